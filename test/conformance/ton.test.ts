import { afterAll } from 'vitest';
import { startTonDevnet } from '../../devnets/ton/index.ts';
import { tonDriver } from './drivers/ton.ts';
import { runConformance } from './scenarios.ts';

// TON's devnet runs in this file's process (the shared devnets are the older families'): a block every
// 200 ms, as sends wait for theirs to land.
const devnet = await startTonDevnet({ blockIntervalMs: 200 });
afterAll(() => devnet.close());

runConformance(tonDriver(devnet));
