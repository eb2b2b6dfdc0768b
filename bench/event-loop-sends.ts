import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTronDevnet } from '../devnets/tron/index.ts';
import { startGateway } from '../test/helpers/gateway.ts';
import type { Benchmark } from './types.ts';

const SENDS = 20;
const PASSWORD = 'bench wallet password';

/** The event loop's p99 and longest delay over `work`, in ms (a 1 ms sampling timer). */
async function loopDelays(work: () => Promise<unknown>): Promise<{ p99: number; max: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await work();
  histogram.disable();
  return { p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 };
}

/**
 * Goal 5: the gateway's event loop while 20 sends from password-protected addresses run at once (each
 * opens its key with scrypt at 128 MiB on the thread pool), against the same loop idle for as long. A first
 * send before them loads the chain's library (once per process), so the figure does not depend on which
 * benchmarks ran before it in the same process; that send's longest delay is noted.
 */
export const eventLoopSends: Benchmark = {
  name: `event loop: p99 delay while ${SENDS} password-protected sends run`,
  async run() {
    const devnet = await startTronDevnet({ blockIntervalMs: 3_000, solidifyLag: 0 });
    const gw = await startGateway({
      env: { TRON_MAINNET_URLS: devnet.url, TRON_TESTNET_URLS: devnet.url, LOG_LEVEL: 'warn' },
    });
    try {
      const { token } = await gw.userToken('bench@example.com', 'enterprise');
      const created: string[] = [];
      for (let i = 0; i < SENDS; i++) {
        const res = await gw.request('POST', '/api/v2/tron/addresses', {
          token,
          json: { password: PASSWORD },
        });
        if (res.status !== 201) throw new Error(`creating an address answered ${res.status}: ${res.text}`);
        created.push(res.body.data[0].address as string);
      }
      await Promise.all(created.map((address) => devnet.faucetTrx(address, 10_000_000n)));
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      // The process's first Tron send loads the chain library (a family's library loads on first use, so
      // that an idle API role holds none): a stall once per process, measured on its own.
      const send = (from: string, to: string) =>
        gw.request('POST', '/api/v2/tron/transactions', {
          token,
          json: { from, to, amount: '1', password: PASSWORD },
        });
      const first = await loopDelays(async () => {
        const res = await send(created[0]!, created[1]!);
        if (res.status !== 201) throw new Error(`the first send answered ${res.status}: ${res.text}`);
      });
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      let elapsed = 0;
      const { p99: measured } = await loopDelays(async () => {
        const started = performance.now();
        const sends = await Promise.all(
          // Each pays the next: nobody pays themselves.
          created.map((from, i) => send(from, created[(i + 1) % created.length]!)),
        );
        elapsed = performance.now() - started;
        const failed = sends.filter((res) => res.status !== 201);
        if (failed.length > 0) throw new Error(`${failed.length} sends failed: ${failed[0]!.text}`);
      });
      const { p99: baseline } = await loopDelays(
        () => new Promise((resolve) => setTimeout(resolve, elapsed)),
      );
      return [
        {
          what: `event-loop delay p99 while ${SENDS} password-protected sends run`,
          unit: 'ms',
          measured,
          baseline: { what: 'the same loop idle as long', value: baseline },
          goal: { on: 'value', op: '<', value: 20 },
          note: `the ${SENDS} sends took ${(elapsed / 1000).toFixed(1)} s; before them, a first send (longest delay ${first.max.toFixed(0)} ms: it loads the chain library, unless an earlier benchmark of this run did)`,
        },
      ];
    } finally {
      await gw.close();
      await devnet.close();
    }
  },
};
