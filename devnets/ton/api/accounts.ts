// Accounts as the indexer shows them: state, balance and last transaction, wallets recognised by their
// code, and the address book of user-friendly forms.
import { Address, type Cell } from '@ton/core';
import { WalletContractV5R1 } from '@ton/ton';
import type { JsonObject } from '../api-json.ts';
import { BASECHAIN, type StoredTx } from '../chain.ts';
import { rawAddress } from '../messages.ts';
import type { ApiContext } from './context.ts';

const ZERO_HASH = Buffer.alloc(32).toString('base64');
const V5R1_CODE_HASH = WalletContractV5R1.create({
  workchain: 0,
  publicKey: Buffer.alloc(32),
}).init.code.hash();

export function isWalletCode(code: Cell | null | undefined): boolean {
  return !!code && code.hash().equals(V5R1_CODE_HASH);
}

/** The user-friendly form the address book shows: bounceable only for a deployed contract that is not a wallet. */
export function userFriendly(ctx: ApiContext, address: Address): string {
  const state = ctx.chain.peek(address)?.accountState;
  const contract = state?.type === 'active' && !isWalletCode(state.state.code);
  return address.toString({ bounceable: contract, testOnly: ctx.globalId === -3, urlSafe: true });
}

/** Every address the transactions name (accounts, message sources and destinations) in its user-friendly form. */
export function addressBook(ctx: ApiContext, txs: StoredTx[]): JsonObject {
  const book: JsonObject = {};
  const note = (address: Address | null | undefined) => {
    if (!address) return;
    const raw = rawAddress(address);
    if (!(raw in book)) book[raw] = { user_friendly: userFriendly(ctx, address), domain: null };
  };
  for (const { tx } of txs) {
    note(new Address(BASECHAIN, Buffer.from(tx.address.toString(16).padStart(64, '0'), 'hex')));
    for (const message of [tx.inMessage, ...tx.outMessages.values()]) {
      if (!message) continue;
      const { info } = message;
      if (info.type !== 'external-in' && info.src) note(info.src);
      if (info.type !== 'external-out' && info.dest) note(info.dest);
    }
  }
  return book;
}

export interface AccountView {
  status: 'active' | 'uninit' | 'frozen' | 'nonexist';
  balance: bigint;
  code: Cell | null;
  data: Cell | null;
  frozenHash: string | null;
  lastLt: bigint;
  lastHash: string;
}

export function accountView(ctx: ApiContext, address: Address): AccountView {
  const shard = ctx.chain.peek(address)?.account;
  const account = shard?.account;
  const none: AccountView = {
    status: 'nonexist',
    balance: 0n,
    code: null,
    data: null,
    frozenHash: null,
    lastLt: 0n,
    lastHash: ZERO_HASH,
  };
  if (!shard || !account) return none;
  const last = {
    lastLt: shard.lastTransactionLt,
    lastHash: Buffer.from(shard.lastTransactionHash.toString(16).padStart(64, '0'), 'hex').toString('base64'),
  };
  const balance = account.storage.balance.coins;
  const state = account.storage.state;
  if (state.type === 'active') {
    return {
      ...none,
      ...last,
      status: 'active',
      balance,
      code: state.state.code ?? null,
      data: state.state.data ?? null,
    };
  }
  if (state.type === 'frozen') {
    const frozenHash = Buffer.from(state.stateHash.toString(16).padStart(64, '0'), 'hex').toString('base64');
    return { ...none, ...last, status: 'frozen', balance, frozenHash };
  }
  if (shard.lastTransactionLt === 0n && balance === 0n) return none;
  return { ...none, ...last, status: 'uninit', balance };
}

export const bocOrNull = (cell: Cell | null) => (cell ? cell.toBoc().toString('base64') : null);
