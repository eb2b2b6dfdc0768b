import { sharedEvmDriver } from './drivers/evm.ts';
import { runConformance } from './scenarios.ts';

runConformance(await sharedEvmDriver('ethereum'));
