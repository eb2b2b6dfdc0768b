import { tronDriver } from './drivers/tron.ts';
import { runConformance } from './scenarios.ts';

runConformance(await tronDriver());
