import { randomBytes } from 'node:crypto';
import { type Address, beginCell, external, internal, SendMode, storeMessage } from '@ton/core';
import { type KeyPair, keyPairFromSeed } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import { expect } from 'vitest';

export interface TestWallet {
  keys: KeyPair;
  contract: WalletContractV5R1;
  address: Address;
}

/** A fresh V5R1 wallet (random key) for the network `globalId`. */
export function newWallet(globalId = -239): TestWallet {
  const keys = keyPairFromSeed(randomBytes(32));
  const contract = WalletContractV5R1.create({
    workchain: 0,
    publicKey: keys.publicKey,
    walletId: { networkGlobalId: globalId },
  });
  return { keys, contract, address: contract.address };
}

export async function getJson(url: string, path: string, status = 200): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${path}`);
  expect(res.status).toBe(status);
  return (await res.json()) as Record<string, unknown>;
}

export async function postJson(
  url: string,
  path: string,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json };
}

export interface WalletInfo {
  balance: string;
  seqno?: number;
  wallet_id?: number;
  wallet_type?: string;
  status: string;
  last_transaction_hash: string;
}

export async function walletInfo(url: string, address: Address): Promise<WalletInfo> {
  const res = await fetch(`${url}/api/v3/walletInformation?address=${address.toString()}&use_v2=false`);
  expect(res.status).toBe(200);
  return (await res.json()) as WalletInfo;
}

export interface TransferOptions {
  to: Address;
  value: bigint;
  seqno: number;
  comment?: string;
  bounce?: boolean;
  body?: import('@ton/core').Cell;
}

/** A wallet's signed transfer as the external message BOC (base64) a client posts; carries the state init at seqno 0. */
export function transferBoc(wallet: TestWallet, transfer: TransferOptions): string {
  const body = wallet.contract.createTransfer({
    seqno: transfer.seqno,
    secretKey: wallet.keys.secretKey,
    sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS,
    messages: [
      internal({
        to: transfer.to,
        value: transfer.value,
        bounce: transfer.bounce ?? false,
        ...(transfer.body ? { body: transfer.body } : transfer.comment ? { body: transfer.comment } : {}),
      }),
    ],
  });
  const message = external({
    to: wallet.address,
    ...(transfer.seqno === 0 ? { init: wallet.contract.init } : {}),
    body,
  });
  return beginCell().store(storeMessage(message)).endCell().toBoc().toString('base64');
}

export interface SentMessage {
  message_hash: string;
  message_hash_norm: string;
}

export async function sendBoc(url: string, boc: string): Promise<SentMessage> {
  const { status, json } = await postJson(url, '/api/v3/message', { boc });
  expect(status).toBe(200);
  return json as SentMessage;
}

export interface TxJson {
  account: string;
  hash: string;
  lt: string;
  mc_block_seqno: number;
  trace_id: string;
  description: { aborted: boolean; compute_ph: { skipped: boolean; success?: boolean; exit_code?: number } };
  in_msg: MsgJson | null;
  out_msgs: MsgJson[];
}

export interface MsgJson {
  hash: string;
  hash_norm?: string;
  source: string | null;
  destination: string | null;
  value: string | null;
  opcode: string | null;
  bounce: boolean | null;
  bounced: boolean | null;
  message_content: { body: string; decoded: { type: string; comment: string } | null };
}

export async function txs(url: string, path: string): Promise<TxJson[]> {
  return (await getJson(url, path))['transactions'] as TxJson[];
}

/** A raw address as the API writes it. */
export const raw = (address: Address) => `${address.workChain}:${address.hash.toString('hex').toUpperCase()}`;
