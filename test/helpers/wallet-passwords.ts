// What the tests of wallet passwords share: a client of the address routes that times its exports, and a
// gateway with no node (the routes under test never need one), with the real scrypt: these tests time it.
import { expect } from 'vitest';
import type { ApiResponse, RequestOptions, TestGateway } from './gateway.ts';

export const PASSWORD = 'correct horse battery';
export const WRONG = 'not the password at all';
/** Each scrypt takes about half a second alone, several on a machine busy with other work. */
export const SLOW = 180_000;

/** The production key derivation, in place of the test gateway's cheap one. */
export const FULL_KDF = { KDF_COST: 'full' };

/** No node is reachable: the routes under test never need one. */
export const NO_NODES = {
  TRON_MAINNET_URLS: 'http://127.0.0.1:9',
  TRON_TESTNET_URLS: 'http://127.0.0.1:9',
  ETHEREUM_MAINNET_URLS: 'http://127.0.0.1:9',
  ETHEREUM_TESTNET_URLS: 'http://127.0.0.1:9',
  NODE_RETRIES: '0',
};

async function timed(work: Promise<ApiResponse>): Promise<ApiResponse & { ms: number }> {
  const started = performance.now();
  const res = await work;
  return { ...res, ms: performance.now() - started };
}

/** One user's client of the Tron and Ethereum address routes, on whichever gateway `gw` gives now. */
export function client(gw: () => TestGateway, token: string) {
  const tron = (method: string, path: string, options: RequestOptions = {}) =>
    gw().request(method, `/api/v2/tron${path}`, { token, ...options });
  return {
    tron,
    ethereum: (method: string, path: string, options: RequestOptions = {}) =>
      gw().request(method, `/api/v2/ethereum${path}`, { token, ...options }),
    async newTronAddress(): Promise<string> {
      const res = await tron('POST', '/addresses', { json: { password: PASSWORD } });
      expect(res.status, res.text).toBe(201);
      return res.body.data[0].address;
    },
    exportTron: (address: string, password: string) =>
      timed(tron('POST', `/addresses/export/${address}`, { json: { password } })),
  };
}
