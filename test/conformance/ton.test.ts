// The conformance suite on TON, against a TON devnet this file starts and stops (no shared devnet has
// TON yet).
import { afterAll } from 'vitest';
import { startTonDevnet } from '../../devnets/ton/index.ts';
import { tonDriver } from './drivers/ton.ts';
import { runConformance } from './scenarios.ts';

const devnet = await startTonDevnet({ blockIntervalMs: 250 });
afterAll(async () => {
  await devnet.close();
});

runConformance(tonDriver(devnet));
