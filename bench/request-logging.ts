import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { startGateway } from '../test/helpers/gateway.ts';
import type { Benchmark } from './types.ts';

const run = promisify(execFile);

/** Requests per second the load generator (its own process) gets from `url`. */
async function load(url: string): Promise<number> {
  const { stdout } = await run(process.execPath, [
    '--import',
    'tsx',
    'bench/load-generator.ts',
    url,
    '3000',
    '32',
  ]);
  const { perSecond, failed } = JSON.parse(stdout) as { perSecond: number; failed: number };
  if (failed > 0) throw new Error(`${failed} requests to ${url} failed`);
  return perSecond;
}

/**
 * What the gateway's per-request work costs at the default log level (one log line in, one out, each
 * scrubbed of secrets): its `GET /healthz` against a bare Fastify route answering the same JSON, one after
 * the other on this machine, with the load generator in a separate process.
 */
export const requestLogging: Benchmark = {
  name: 'http: gateway /healthz at LOG_LEVEL=info vs a bare Fastify route',
  async run() {
    const bare = Fastify();
    bare.get('/healthz', async () => ({ status: 200, ok: true, message: 'OK', data: { healthy: true } }));
    const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });
    const baseline = await load(`${bareUrl}/healthz`).finally(() => bare.close());
    const gw = await startGateway({ env: { LOG_LEVEL: 'info' } });
    try {
      return { unit: 'req/s', baseline, measured: await load(`${gw.baseUrl}/healthz`) };
    } finally {
      await gw.close();
    }
  },
};
