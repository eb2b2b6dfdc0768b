/**
 * The start-up network check over real HTTP: two JSON-RPC nodes, one on Ethereum mainnet and one on
 * Sepolia, and an unreachable Tron node, behind the real EVM and Tron adapters.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainFamilies } from '../../src/chains/families.ts';
import { checkNodes } from '../../src/chains/network-check.ts';
import { buildRegistry } from '../../src/chains/registry.ts';
import { loadConfig } from '../../src/config.ts';
import { loggerToLines, messagesAt } from '../helpers/log-lines.ts';

/** A JSON-RPC node that answers eth_chainId and eth_blockNumber, and counts what it is asked. */
async function rpcNode(chainId: number): Promise<{ url: string; asked: string[]; server: Server }> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      asked.push(method);
      const result = method === 'eth_chainId' ? `0x${chainId.toString(16)}` : '0x10';
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked, server };
}

let mainnet: Awaited<ReturnType<typeof rpcNode>>;
let sepolia: Awaited<ReturnType<typeof rpcNode>>;

beforeAll(async () => {
  mainnet = await rpcNode(1);
  sepolia = await rpcNode(11155111);
});

afterAll(() => {
  mainnet.server.close();
  sepolia.server.close();
});

describe('checkNodes', () => {
  it('disables an endpoint on another network, the chain when none is left, and only logs one unreachable', async () => {
    const config = loadConfig({
      ETHEREUM_MAINNET_URLS: `${sepolia.url},${mainnet.url}`,
      ETHEREUM_TESTNET_URLS: mainnet.url,
      TRON_MAINNET_URLS: 'http://127.0.0.1:9',
      NODE_RETRIES: '0',
    });
    const { lines, logger } = loggerToLines();
    const families = { ethereum: chainFamilies().ethereum!, tron: chainFamilies().tron! };
    const registry = buildRegistry(config, logger, families);
    try {
      await checkNodes(registry, families, config, logger);

      const sepoliaHost = new URL(sepolia.url).host;
      const mainnetHost = new URL(mainnet.url).host;
      expect(messagesAt(lines, 50)).toEqual(
        expect.arrayContaining([
          `ethereum mainnet node ${sepoliaHost} is on another network: expected chain id 1, found chain id 11155111; endpoint disabled`,
          `ethereum testnet node ${mainnetHost} is on another network: expected chain id 11155111, found chain id 1; endpoint disabled`,
        ]),
      );
      expect(messagesAt(lines, 50)).toHaveLength(2);

      // Mainnet carries on over its right node; the Sepolia one, listed first, is never asked again.
      expect(registry.isDisabled('ethereum', 'mainnet')).toBe(false);
      const askedBefore = sepolia.asked.length;
      expect(await registry.get('ethereum', 'mainnet').getBlockNumber()).toBe(16n);
      expect(await registry.get('ethereum', 'mainnet').getBlockNumber()).toBe(16n);
      expect(sepolia.asked).toHaveLength(askedBefore);

      // Testnet had only a mainnet node: nothing is left to serve it.
      expect(registry.isDisabled('ethereum', 'testnet')).toBe(true);
      expect(() => registry.get('ethereum', 'testnet')).toThrow(
        expect.objectContaining({ status: 503, message: expect.stringMatching(/found chain id 1$/) }),
      );

      // Unreachable is not wrong: logged, and served once it answers.
      expect(registry.isDisabled('tron', 'mainnet')).toBe(false);
    } finally {
      await registry.closeAll();
    }
  });
});
