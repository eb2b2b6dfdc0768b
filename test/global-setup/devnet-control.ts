// The devnets of a test run live in vitest's main process; test files run in workers. This small HTTP
// server starts them when a worker first asks, and lets workers call a devnet's faucet, miner and reorg
// there: POST /<devnet>/<operation> with the arguments as a JSON array (see ../helpers/devnet-wire.ts),
// answered with the result.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BitcoinDevnet } from '../../devnets/bitcoin/index.ts';
import type { EvmDevnet } from '../../devnets/evm/index.ts';
import type { SolanaDevnet } from '../../devnets/solana/index.ts';
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

function texts(args: unknown[], index: number): string[] | undefined {
  const value = args[index];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw new Error(`argument ${index} must be an array of strings`);
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
    reorg: (args) => devnet.reorg(count(args, 0) ?? 1),
    faucetTrx: (args) => devnet.faucetTrx(text(args, 0), big(args, 1)),
    faucetTrc20: (args) => devnet.faucetTrc20(text(args, 0), text(args, 1), big(args, 2)),
    faucetTrc721: (args) => devnet.faucetTrc721(text(args, 0), text(args, 1)),
    faucetTrc10: (args) => devnet.faucetTrc10(text(args, 0), text(args, 1), big(args, 2)),
  };
}

export function solanaOperations(devnet: SolanaDevnet): Record<string, Operation> {
  return {
    airdrop: (args) => devnet.airdrop(text(args, 0), big(args, 1)),
    faucetSpl: (args) => devnet.faucetSpl(text(args, 0), text(args, 1), big(args, 2)),
    advance: (args) => devnet.advance(count(args, 0)),
    skip: async (args) => devnet.skip(count(args, 0) ?? 1),
    reorg: (args) => devnet.reorg(count(args, 0) ?? 1),
    setPriorityFee: async (args) => devnet.setPriorityFee(big(args, 0), texts(args, 1)),
  };
}

export function bitcoinOperations(devnet: BitcoinDevnet): Record<string, Operation> {
  return {
    faucet: (args) => devnet.faucet(text(args, 0), big(args, 1)),
    mine: (args) => devnet.mine(count(args, 0)),
    reorg: (args) => devnet.reorg(count(args, 0) ?? 1, { dropTransactions: args[1] === true }),
    setFeeEstimates: async (args) => {
      const estimates = args[0];
      if (estimates === null || typeof estimates !== 'object')
        throw new Error('argument 0 must be an object');
      devnet.setFeeEstimates(Object.fromEntries(Object.entries(estimates).map(([k, v]) => [k, Number(v)])));
    },
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

/** A devnet as the control server serves it: what test files may read, and what they may ask of it. */
export interface ControlledDevnet {
  info: unknown;
  operations: Record<string, Operation>;
  close(): Promise<void>;
}

export interface DevnetControl {
  url: string;
  /** Stops the server and every devnet it started. */
  close(): Promise<void>;
}

/**
 * Serves devnets by name on 127.0.0.1, each started on its first request (POST /<devnet>/info answers
 * its info), so a run starts only the devnets its test files use, and each once.
 */
export async function startDevnetControl(
  starters: Record<string, () => Promise<ControlledDevnet>>,
): Promise<DevnetControl> {
  const started = new Map<string, Promise<ControlledDevnet>>();
  const devnet = (name: string): Promise<ControlledDevnet> | undefined => {
    const start = starters[name];
    if (start === undefined) return undefined;
    let running = started.get(name);
    if (running === undefined) {
      running = start();
      started.set(name, running);
    }
    return running;
  };
  const answer = async (url: string, body: string): Promise<unknown> => {
    const [, name = '', operationName = ''] = url.split('/');
    const running = devnet(name);
    if (running === undefined) throw new Error(`no devnet ${name}`);
    const { info, operations } = await running;
    if (operationName === 'info') return info;
    const operation = operations[operationName];
    if (operation === undefined) throw new Error(`no operation ${operationName} on ${name}`);
    const args = decodeWire(body || '[]');
    return operation(Array.isArray(args) ? args : []);
  };
  // One connection per call: a kept-alive one the server closes while the test's process is busy (a
  // gateway starting) is reused by its client after the close, and the call fails with "other side closed".
  const headers = { 'content-type': 'application/json', connection: 'close' };
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', async () => {
      try {
        const result = await answer(request.url ?? '', body);
        response.writeHead(200, headers).end(encodeWire({ result }));
      } catch (error) {
        response
          .writeHead(500, headers)
          .end(encodeWire({ error: error instanceof Error ? error.message : String(error) }));
      }
    });
  });
  // A test file's calls can be many seconds apart (a gateway starting between them): past Node's default
  // of 5 s the server closes the idle connection, and a busy client reusing it just then fails its call
  // with "other side closed". The connections are closed with the run instead.
  server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      const running = await Promise.allSettled(started.values());
      await Promise.all(running.flatMap((r) => (r.status === 'fulfilled' ? [r.value.close()] : [])));
    },
  };
}
