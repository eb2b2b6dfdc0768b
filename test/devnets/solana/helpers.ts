import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { expect } from 'vitest';

export interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** One JSON-RPC call; every answer, errors included, must be HTTP 200. */
export async function rpc(url: string, method: string, params: unknown[] = []): Promise<RpcAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as RpcAnswer;
}

/** The key paths of a JSON value (arrays: their first element), for shape comparisons. */
export function keyPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.length ? keyPaths(value[0], `${prefix}[]`) : [];
  if (value === null || typeof value !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(value)) out.push(`${prefix}.${k}`, ...keyPaths(v, `${prefix}.${k}`));
  return out.sort();
}

/** A legacy transaction of `instructions` paid and signed by `payer` on the devnet's latest blockhash (base64). */
export async function kitWire(
  url: string,
  payer: KeyPairSigner,
  instructions: Instruction[],
): Promise<string> {
  const { value: latest } = await createSolanaRpc(url).getLatestBlockhash().send();
  const msg = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(msg));
}

/** Sends a base64 wire transaction; its signature, or the node's error as a thrown Error. */
export async function sendWire(url: string, wire: string): Promise<string> {
  const answer = await rpc(url, 'sendTransaction', [wire, { encoding: 'base64' }]);
  if (answer.error) throw new Error(`sendTransaction: ${answer.error.message}`);
  return answer.result as string;
}

/** The raw amount of a token account, or null when it does not exist. */
export async function tokenAmount(url: string, account: string): Promise<string | null> {
  const answer = await rpc(url, 'getTokenAccountBalance', [account]);
  return answer.error ? null : (answer.result as { value: { amount: string } }).value.amount;
}

export async function lamports(url: string, account: string): Promise<bigint> {
  const answer = await rpc(url, 'getBalance', [account]);
  return BigInt((answer.result as { value: number }).value);
}
