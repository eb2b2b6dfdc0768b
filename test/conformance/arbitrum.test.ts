import { evmDriver } from './drivers/evm.ts';
import { runConformance } from './scenarios.ts';

runConformance(await evmDriver('arbitrum'));
