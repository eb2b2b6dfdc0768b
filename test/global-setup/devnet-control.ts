// The devnets of a test run live in vitest's main process; test files run in workers. This small HTTP
// server lets a worker call a devnet's faucet, miner and reorg there: POST /<devnet>/<operation> with
// the arguments as a JSON array (see ../helpers/devnet-wire.ts), answered with the result.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EvmDevnet } from '../../devnets/evm/index.ts';
import type { TronDevnet } from '../../devnets/tron/index.ts';
import { decodeWire, encodeWire } from '../helpers/devnet-wire.ts';

type Operation = (args: unknown[]) => Promise<unknown>;

function text(args: unknown[], index: number): string {
  const value = args[index];
  if (typeof value !== 'string') throw new Error(`argument ${index} must be a string`);
  return value;
}

function big(args: unknown[], index: number): bigint {
  const value = args[index];
  if (typeof value !== 'bigint') throw new Error(`argument ${index} must be a bigint`);
  return value;
}

function count(args: unknown[], index: number): number | undefined {
  const value = args[index];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new Error(`argument ${index} must be an integer`);
  return value;
}

export function tronOperations(devnet: TronDevnet): Record<string, Operation> {
  return {
    mine: (args) => devnet.mine(count(args, 0)),
    faucetTrx: (args) => devnet.faucetTrx(text(args, 0), big(args, 1)),
    faucetTrc20: (args) => devnet.faucetTrc20(text(args, 0), text(args, 1), big(args, 2)),
    faucetTrc721: (args) => devnet.faucetTrc721(text(args, 0), text(args, 1)),
    faucetTrc10: (args) => devnet.faucetTrc10(text(args, 0), text(args, 1), big(args, 2)),
  };
}

export function evmOperations(devnet: EvmDevnet): Record<string, Operation> {
  return {
    rpc: (args) => devnet.rpc(text(args, 0), Array.isArray(args[1]) ? args[1] : []),
    faucetNative: (args) => devnet.faucetNative(text(args, 0), big(args, 1)),
    faucetErc20: (args) => devnet.faucetErc20(text(args, 0), text(args, 1), big(args, 2)),
    faucetErc721: (args) => devnet.faucetErc721(text(args, 0), text(args, 1)),
    mine: (args) => devnet.mine(count(args, 0)),
    reorg: async (args) => devnet.reorg(count(args, 0) ?? 1),
  };
}

export interface DevnetControl {
  url: string;
  close(): Promise<void>;
}

/** Serves `operations` (devnet name -> operation name -> operation) on 127.0.0.1. */
export async function startDevnetControl(
  operations: Record<string, Record<string, Operation>>,
): Promise<DevnetControl> {
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', async () => {
      const [, devnet = '', name = ''] = (request.url ?? '').split('/');
      const operation = operations[devnet]?.[name];
      if (request.method !== 'POST' || operation === undefined) {
        response.writeHead(404).end(encodeWire({ error: `no operation ${request.method} ${request.url}` }));
        return;
      }
      try {
        const args = decodeWire(body || '[]');
        const result = await operation(Array.isArray(args) ? args : []);
        response.writeHead(200, { 'content-type': 'application/json' }).end(encodeWire({ result }));
      } catch (error) {
        response
          .writeHead(500, { 'content-type': 'application/json' })
          .end(encodeWire({ error: error instanceof Error ? error.message : String(error) }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
