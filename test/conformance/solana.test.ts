import { solanaDriver } from './drivers/solana.ts';
import { runConformance } from './scenarios.ts';

runConformance(await solanaDriver());
