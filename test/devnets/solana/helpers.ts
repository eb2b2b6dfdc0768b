import type { Address, Instruction, KeyPairSigner } from '@solana/kit';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
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

/** The associated token account of `owner` for `mint` under a token program (the classic one unless told). */
export async function associatedTokenAccount(
  mint: Address,
  owner: Address,
  tokenProgram: Address = TOKEN_PROGRAM_ADDRESS,
): Promise<Address> {
  const [account] = await findAssociatedTokenPda({ mint, owner, tokenProgram });
  return account;
}

/**
 * A token send as a wallet writes it: open the receiver's associated token account if it is not there,
 * then transferChecked `amount` (of 6 decimals) into it from the sender's, all paid by the sender.
 */
export async function tokenSendInstructions(
  sender: KeyPairSigner,
  receiver: Address,
  mint: Address,
  amount: bigint,
  tokenProgram: Address = TOKEN_PROGRAM_ADDRESS,
): Promise<Instruction[]> {
  const destination = await associatedTokenAccount(mint, receiver, tokenProgram);
  return [
    getCreateAssociatedTokenIdempotentInstruction({
      payer: sender,
      ata: destination,
      owner: receiver,
      mint,
      tokenProgram,
    }),
    getTransferCheckedInstruction(
      {
        source: await associatedTokenAccount(mint, sender.address, tokenProgram),
        mint,
        destination,
        authority: sender,
        amount,
        decimals: 6,
      },
      { programAddress: tokenProgram },
    ),
  ];
}
