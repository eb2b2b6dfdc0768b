import { TronWeb } from 'tronweb';
import { afterAll, beforeAll, expect } from 'vitest';
import { startTronDevnet, type TronDevnet } from '../../../devnets/tron/index.ts';
import { stringifyJson } from '../../../devnets/tron/json.ts';

/** POSTs a java-tron style request; every answer, errors included, must be HTTP 200. */
export async function post<T = Record<string, unknown>>(
  base: string,
  path: string,
  body: unknown = {},
): Promise<T> {
  const res = await fetch(`${base}${path}`, { method: 'POST', body: stringifyJson(body) });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

export const utf8Hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');
export const fromHex = (h: string) => Buffer.from(h, 'hex').toString('utf8');

/** A 32-byte ABI word holding an address (TronWeb writes the 41-prefixed form; the EVM reads 20 bytes). */
export const addressWord = (hex41: string) => hex41.slice(2).padStart(64, '0');
export const uintWord = (n: bigint) => n.toString(16).padStart(64, '0');

/**
 * A test file's own devnet, blocks made only when a test asks, and a TronWeb on it: started before the
 * file's tests (handed to `started`), closed after them.
 */
export function useTronDevnet(solidifyLag: number, started: (devnet: TronDevnet, tw: TronWeb) => void): void {
  let devnet: TronDevnet | undefined;
  beforeAll(async () => {
    devnet = await startTronDevnet({ blockIntervalMs: null, solidifyLag });
    started(devnet, new TronWeb({ fullHost: devnet.url }));
  }, 120_000);
  afterAll(async () => {
    await devnet?.close();
  });
}

/** The ABI parameters of a TRC20 `transfer(to, amount)`, as TronWeb takes them. */
export const trc20TransferParams = (to: string, amount: number) => [
  { type: 'address', value: to },
  { type: 'uint256', value: amount },
];

/** A TRC20 `transfer(to, amount)` from `from`, built by the node through TronWeb's triggersmartcontract. */
export function buildTrc20Transfer(
  tw: TronWeb,
  call: { token: string; from: string; to: string; amount: number; feeLimit: number },
) {
  return tw.transactionBuilder.triggerSmartContract(
    call.token,
    'transfer(address,uint256)',
    { feeLimit: call.feeLimit },
    trc20TransferParams(call.to, call.amount),
    call.from,
  );
}
