import { bitcoinDriver } from './drivers/bitcoin.ts';
import { runConformance } from './scenarios.ts';

runConformance(await bitcoinDriver());
