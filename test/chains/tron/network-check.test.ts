/**
 * Tron nodes on the wrong network, as the gateway meets them at start: the project's Tron devnet, started
 * once as a mainnet node and once as a Nile node, configured where they do and do not belong.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTronDevnet, type TronDevnet } from '../../../devnets/tron/index.ts';
import { chainFamilies } from '../../../src/chains/families.ts';
import { checkNodes } from '../../../src/chains/network-check.ts';
import { buildRegistry } from '../../../src/chains/registry.ts';
import { loadConfig } from '../../../src/config.ts';
import { NodeMetrics } from '../../../src/health/node-metrics.ts';
import { NodeMonitor } from '../../../src/health/node-monitor.ts';
import { readinessOf } from '../../../src/health/readiness.ts';
import { TroubleLog } from '../../../src/health/trouble-log.ts';
import { createMetricsRegistry } from '../../../src/http/metrics.ts';
import { createLogger } from '../../../src/logger.ts';
import { loggerToLines, messagesAt } from '../../helpers/log-lines.ts';

let mainnetNode: TronDevnet;
let nileNode: TronDevnet;
let unnamedNode: TronDevnet;

beforeAll(async () => {
  [mainnetNode, nileNode, unnamedNode] = await Promise.all([
    startTronDevnet({ blockIntervalMs: null, p2pVersion: 11111 }),
    startTronDevnet({ blockIntervalMs: null, p2pVersion: 201910292 }),
    startTronDevnet({ blockIntervalMs: null }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([mainnetNode?.close(), nileNode?.close(), unnamedNode?.close()]);
});

describe('a Tron node on the wrong network', () => {
  it('is disabled with one log line, and the chain carries on over the right node', async () => {
    const config = loadConfig({
      TRON_MAINNET_URLS: unnamedNode.url,
      TRON_TESTNET_URLS: `${mainnetNode.url},${nileNode.url}`,
      TRON_API_KEY: 'secret-api-key',
    });
    const { lines, logger } = loggerToLines();
    const families = { tron: chainFamilies().tron! };
    const registry = buildRegistry(config, logger, families);
    try {
      await checkNodes(registry, families, config, logger);
      const host = new URL(mainnetNode.url).host;
      expect(messagesAt(lines, 50)).toEqual([
        `tron testnet node ${host} is on another network: expected network id 201910292 (Nile) or 1 (Shasta), found network id 11111 (mainnet); endpoint disabled`,
      ]);
      expect(JSON.stringify(lines)).not.toContain('secret-api-key');

      expect(registry.isDisabled('tron', 'testnet')).toBe(false);
      const testnet = registry.get('tron', 'testnet');
      await nileNode.mine(3);
      expect(await testnet.getBlockNumber()).toBe(BigInt(nileNode.chain.head.header.number));

      // A node that names no network is kept, with a warning.
      expect(registry.isDisabled('tron', 'mainnet')).toBe(false);
      expect(messagesAt(lines, 40)).toEqual([
        `tron mainnet node ${new URL(unnamedNode.url).host} does not tell its network (expected network id 11111 (mainnet))`,
      ]);
    } finally {
      await registry.closeAll();
    }
  });

  it('leaves nothing to serve when it was the only node: the chain answers 503', async () => {
    const config = loadConfig({ TRON_MAINNET_URLS: nileNode.url });
    const families = { tron: chainFamilies().tron! };
    const registry = buildRegistry(config, createLogger('silent'), families);
    try {
      await checkNodes(registry, families, config, createLogger('silent'));
      expect(registry.isDisabled('tron', 'mainnet')).toBe(true);
      // /readyz shows why, and the node answering its probes does not make the chain reachable.
      const monitor = new NodeMonitor({
        config,
        registry,
        families,
        metrics: new NodeMetrics(createMetricsRegistry()),
        trouble: new TroubleLog(),
        logger: createLogger('silent'),
      });
      await monitor.probeAll();
      const [status] = monitor.status();
      expect(status?.endpoints[0]).toMatchObject({
        up: true,
        disabled: expect.stringMatching(/is on another network: expected .*, found network id 201910292/),
      });
      const readiness = readinessOf(monitor.status(), config, true);
      expect(readiness.chains[0]).toMatchObject({ reachable: false, required: true });
      expect(readiness.ready).toBe(false);
      await monitor.stop();
      expect(() => registry.get('tron', 'mainnet')).toThrow(
        expect.objectContaining({
          status: 503,
          message: expect.stringMatching(/found network id 201910292 \(Nile\)$/),
        }),
      );
    } finally {
      await registry.closeAll();
    }
  });
});
