// The Solana API tests' setup: a gateway whose Solana mainnet is the run's shared Solana devnet, reached
// through a recording proxy, so a test can tell which JSON-RPC methods the gateway asked of the node
// (a refusal before signing sends nothing); keys made with @solana/web3.js; the API under /api/v2/solana.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getBase58Decoder } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, expect } from 'vitest';
import { type BackgroundRoles, startBackgroundRoles } from '../../src/roles.ts';
import { type ApiResponse, type RequestOptions, startGateway, type TestGateway } from './gateway.ts';
import { type SharedSolanaDevnet, sharedSolanaDevnet } from './shared-devnets.ts';
import { withUnnamedNodesDead } from './unserved-nodes.ts';

export const PASSWORD = 'correct horse battery';
export const LAMPORTS_PER_SOL = 1_000_000_000n;
/** The rent-exempt minimum of an account without data (agave's 890,880 lamports). */
export const RENT_MINIMUM = 890_880n;

const base58 = getBase58Decoder();

/** A JSON-RPC proxy in front of the devnet that keeps the methods asked, in order. */
export interface RecordingProxy {
  url: string;
  methods: string[];
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const methods: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks);
      try {
        const parsed: unknown = JSON.parse(body.toString('utf8'));
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
          if (call !== null && typeof call === 'object' && typeof call.method === 'string') {
            methods.push(call.method);
          }
        }
      } catch {
        // not JSON: forwarded as it is, the node answers it
      }
      try {
        const answer = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': request.headers['content-type'] ?? 'application/json' },
          body,
        });
        response
          .writeHead(answer.status, {
            'content-type': answer.headers.get('content-type') ?? 'application/json',
          })
          .end(Buffer.from(await answer.arrayBuffer()));
      } catch (error) {
        response.writeHead(502).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    methods,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface SolanaApiContext {
  devnet: SharedSolanaDevnet;
  gw: TestGateway;
  proxy: RecordingProxy;
  roles: BackgroundRoles | null;
  /** The gateway's Solana API (`/api/v2/solana` + path) as this file's user. */
  api(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  close(): Promise<void>;
}

/** A gateway on the shared devnet (through a recording proxy); with `roles`, its watcher and deliverer run. */
export async function startSolanaApi(options: { roles?: boolean } = {}): Promise<SolanaApiContext> {
  const devnet = await sharedSolanaDevnet();
  const proxy = await startRecordingProxy(devnet.url);
  const gw = await startGateway({
    env: withUnnamedNodesDead({
      SOLANA_MAINNET_URLS: proxy.url,
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      NODE_RETRIES: '1',
      LOG_LEVEL: 'warn',
    }),
  });
  const roles = options.roles ? startBackgroundRoles(gw.ctx, { pollMs: 50 }) : null;
  const { token } = await gw.userToken(undefined, 'enterprise');
  return {
    devnet,
    gw,
    proxy,
    roles,
    api: (method, path, requestOptions = {}) =>
      gw.request(method, `/api/v2/solana${path}`, { token, ...requestOptions }),
    close: async () => {
      await roles?.stop();
      await gw.close();
      await proxy.close();
    },
  };
}

/**
 * This file's Solana API: started before its tests (startSolanaApi) and closed after them. What it returns
 * reads the running one, so a file holds it as a constant.
 */
export function solanaApiForFile(options: { roles?: boolean } = {}): SolanaApiContext {
  let started: SolanaApiContext | undefined;
  beforeAll(async () => {
    started = await startSolanaApi(options);
  }, 60_000);
  afterAll(async () => {
    await started?.close();
  });
  const running = (): SolanaApiContext => {
    if (started === undefined) throw new Error('the Solana API starts in beforeAll');
    return started;
  };
  return {
    get devnet() {
      return running().devnet;
    },
    get gw() {
      return running().gw;
    },
    get proxy() {
      return running().proxy;
    },
    get roles() {
      return running().roles;
    },
    api: (...args) => running().api(...args),
    close: () => running().close(),
  };
}

/** A fresh key pair, with its 64-byte secret in base58 (the wallets' form). */
export function newKey(): { keypair: Keypair; address: string; secretKey: string } {
  const keypair = Keypair.generate();
  return { keypair, address: keypair.publicKey.toBase58(), secretKey: base58.decode(keypair.secretKey) };
}

/** A stored address (sealed with PASSWORD) holding `lamports`. */
export async function fundedAddress(context: SolanaApiContext, lamports: bigint): Promise<string> {
  const created = await context.api('POST', '/addresses', { json: { password: PASSWORD } });
  expect(created.status, created.text).toBe(201);
  const address: string = created.body.data[0].address;
  if (lamports > 0n) await context.devnet.airdrop(address, lamports);
  return address;
}

export async function lamportsOf(context: SolanaApiContext, address: string): Promise<bigint> {
  const res = await context.api('GET', `/balances/${address}`);
  expect(res.status, res.text).toBe(200);
  return BigInt(res.body.data.lamports);
}

export async function tokenUnitsOf(
  context: SolanaApiContext,
  address: string,
  mint: string,
): Promise<bigint> {
  const res = await context.api('GET', `/balances/${address}/spl/${mint}`);
  expect(res.status, res.text).toBe(200);
  return BigInt(res.body.data.balance_raw);
}

/** SOL in the API's decimal form. */
export function sol(lamports: bigint): string {
  const whole = lamports / LAMPORTS_PER_SOL;
  const fraction = (lamports % LAMPORTS_PER_SOL).toString().padStart(9, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}
