// The JSON-RPC methods: each reads its positional params as the node does and answers the node's shape.
import type { SolanaChain } from '../chain.ts';
import { FINALIZED_DEPTH, MAX_PROCESSING_AGE, messageFee } from '../chain.ts';
import { decodeMessage, fromBase58, fromBase64, type Message, parseAddress, toBase64 } from '../codec.ts';
import { invalidParams, RpcError } from '../errors.ts';
import { isObject, type Json } from '../json.ts';
import {
  decodeMint,
  decodeTokenAccount,
  isTokenProgram,
  parsedMint,
  parsedTokenAccount,
  uiTokenAmount,
} from '../token.ts';
import { checkVersion, landedJson, metaJson, transactionJson, txEncodingOf } from '../transaction-json.ts';

export const API_VERSION = '3.1.8';
const U64_MAX = 18446744073709551615n;

export interface MethodContext {
  chain: SolanaChain;
  genesisHash: string;
  /** Executes and lands (or queues) a transaction; returns its signature. */
  submit(bytes: Uint8Array, opts: { skipPreflight: boolean }): Promise<string>;
  airdrop(address: string, lamports: bigint): Promise<string>;
  /**
   * What getRecentPrioritizationFees answers per block (micro-lamports per compute unit): 0 by default;
   * with `accounts`, only a request naming one of them sees the fee (as the node reports the fees paid
   * by transactions writing the accounts asked about), others see 0.
   */
  priorityFee: { microLamports: bigint; accounts: ReadonlySet<string> | null };
}

export type Method = (params: unknown[], ctx: MethodContext) => Json | Promise<Json>;

const wrap = (ctx: MethodContext, value: Json): Json => ({
  context: { apiVersion: API_VERSION, slot: ctx.chain.head.slot },
  value,
});

function address(v: unknown): string {
  const a = parseAddress(v);
  if (!a) throw invalidParams('Invalid param: Invalid');
  return a;
}

function config(v: unknown): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw invalidParams('Invalid params: invalid type: expected a map.');
  return v;
}

function u64(v: unknown, what: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'bigint' && v >= 0n) return v;
  throw invalidParams(`Invalid params: invalid type: expected u64 for ${what}.`);
}

function accountJson(ctx: MethodContext, addr: string, encoding: unknown): Json {
  const acc = ctx.chain.account(addr);
  if (!acc) return null;
  let data: Json = [toBase64(acc.data), 'base64'];
  if (encoding === 'jsonParsed' && isTokenProgram(acc.programAddress)) {
    const t = decodeTokenAccount(acc.data);
    const m = t ? null : decodeMint(acc.data);
    if (t) data = parsedTokenAccount(t, ctx.chain.mintDecimals(t.mint), acc.programAddress, acc.data);
    else if (m) data = parsedMint(m, acc.programAddress, acc.data);
  } else if (encoding !== undefined && encoding !== 'base64' && encoding !== 'jsonParsed') {
    throw invalidParams(`Invalid params: unsupported encoding ${String(encoding)}.`);
  }
  return {
    data,
    executable: acc.executable,
    lamports: acc.lamports,
    owner: acc.programAddress,
    rentEpoch: U64_MAX,
    space: BigInt(acc.data.length),
  };
}

function txBytes(v: unknown, encoding: unknown): Uint8Array {
  if (typeof v !== 'string') throw invalidParams('Invalid params: invalid type: expected a string.');
  try {
    if (encoding === 'base64') return fromBase64(v);
    if (encoding === undefined || encoding === 'base58') return fromBase58(v);
  } catch (err) {
    throw invalidParams(`invalid ${String(encoding ?? 'base58')} encoding: ${(err as Error).message}`);
  }
  throw invalidParams(`Invalid params: unknown encoding ${String(encoding)}.`);
}

/** A landed transaction's status as getSignatureStatuses writes it; null while unknown or not in a block. */
export function statusOf(chain: SolanaChain, sig: unknown): Json {
  if (typeof sig !== 'string') throw invalidParams('Invalid param: Invalid');
  const r = chain.txs.get(sig);
  if (!r || r.slot === null) return null;
  const head = chain.head;
  const block = chain.blocks.get(r.slot);
  const depth = head.blockHeight - (block?.blockHeight ?? head.blockHeight);
  const finalized = chain.slot - r.slot >= FINALIZED_DEPTH;
  return {
    slot: r.slot,
    confirmations: finalized ? null : depth,
    err: r.meta.err,
    status: r.meta.err === null ? { Ok: null } : { Err: r.meta.err },
    confirmationStatus: finalized ? 'finalized' : depth >= 1n ? 'confirmed' : 'processed',
  };
}

function blockOrError(ctx: MethodContext, slotParam: unknown) {
  const slot = u64(slotParam, 'slot');
  const block = ctx.chain.blocks.get(slot);
  if (block) return block;
  if (ctx.chain.skipped.has(slot)) {
    throw new RpcError(-32007, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
  }
  throw new RpcError(-32004, `Block not available for slot ${slot}`);
}

export const methods: Record<string, Method> = {
  getSlot: (_p, ctx) => ctx.chain.head.slot,
  getBlockHeight: (_p, ctx) => ctx.chain.head.blockHeight,
  getGenesisHash: (_p, ctx) => ctx.genesisHash,
  getVersion: () => ({ 'feature-set': 3640012085, 'solana-core': API_VERSION }),
  getHealth: () => 'ok',
  getBalance: (p, ctx) => wrap(ctx, ctx.chain.balance(address(p[0]))),
  getLatestBlockhash: (_p, ctx) =>
    wrap(ctx, {
      blockhash: ctx.chain.head.blockhash,
      lastValidBlockHeight: ctx.chain.head.blockHeight + MAX_PROCESSING_AGE,
    }),
  isBlockhashValid: (p, ctx) => {
    if (typeof p[0] !== 'string') throw invalidParams('Invalid param: Invalid');
    return wrap(ctx, ctx.chain.isBlockhashValid(p[0]));
  },
  getAccountInfo: (p, ctx) => wrap(ctx, accountJson(ctx, address(p[0]), config(p[1])['encoding'])),
  getMinimumBalanceForRentExemption: (p, ctx) =>
    ctx.chain.svm.minimumBalanceForRentExemption(u64(p[0] ?? 0, 'data length')),
  getFeeForMessage: (p, ctx) => {
    let message: Message;
    try {
      message = decodeMessage(fromBase64(String(p[0])));
    } catch (err) {
      throw invalidParams(`Invalid params: ${(err as Error).message}`);
    }
    return wrap(ctx, messageFee(message));
  },
  getRecentPrioritizationFees: (p, ctx) => {
    const asked = p[0] === undefined || p[0] === null ? [] : p[0];
    if (!Array.isArray(asked)) throw invalidParams('Invalid params: invalid type: expected a sequence.');
    const named = asked.map(address);
    const { microLamports, accounts } = ctx.priorityFee;
    const fee = accounts === null || named.some((a) => accounts.has(a)) ? microLamports : 0n;
    const out: Json[] = [];
    for (const b of [...ctx.chain.blocks.values()].slice(-150))
      out.push({ prioritizationFee: fee, slot: b.slot });
    return out;
  },
  requestAirdrop: (p, ctx) => ctx.airdrop(address(p[0]), u64(p[1], 'lamports')),
  sendTransaction: (p, ctx) => {
    const cfg = config(p[1]);
    return ctx.submit(txBytes(p[0], cfg['encoding']), { skipPreflight: cfg['skipPreflight'] === true });
  },
  simulateTransaction: (p, ctx) => {
    const cfg = config(p[1]);
    const { wire, kit } = ctx.chain.decode(txBytes(p[0], cfg['encoding']));
    if (cfg['sigVerify'] === true && !ctx.chain.verifySignatures(wire)) {
      throw new RpcError(-32003, 'Transaction signature verification failure');
    }
    const sim = ctx.chain.simulate(wire, kit);
    return wrap(ctx, {
      accounts: null,
      err: sim.err?.json ?? null,
      innerInstructions: null,
      loadedAccountsDataSize: 0,
      logs: sim.logs,
      replacementBlockhash: null,
      returnData: null,
      unitsConsumed: sim.unitsConsumed,
    });
  },
  getSignatureStatuses: (p, ctx) => {
    if (!Array.isArray(p[0])) throw invalidParams('Invalid params: invalid type: expected a sequence.');
    if (p[0].length > 256) throw invalidParams('Too many inputs provided; max 256');
    return wrap(
      ctx,
      p[0].map((s) => statusOf(ctx.chain, s)),
    );
  },
  getTransaction: (p, ctx) => {
    if (typeof p[0] !== 'string') throw invalidParams('Invalid param: Invalid');
    const cfg = config(p[1]);
    const encoding = txEncodingOf(cfg['encoding']);
    const r = ctx.chain.txs.get(p[0]);
    if (!r || r.slot === null) return null;
    checkVersion(r, cfg['maxSupportedTransactionVersion']);
    const block = ctx.chain.blocks.get(r.slot);
    return {
      blockTime: block?.blockTime ?? null,
      slot: r.slot,
      ...landedJson(r, encoding, cfg['maxSupportedTransactionVersion']),
    };
  },
  getBlock: (p, ctx) => {
    const block = blockOrError(ctx, p[0]);
    const cfg = config(p[1]);
    const encoding = txEncodingOf(cfg['encoding']);
    const details = cfg['transactionDetails'] ?? 'full';
    const out: Record<string, Json> = {
      blockHeight: block.blockHeight,
      blockTime: block.blockTime,
      blockhash: block.blockhash,
      parentSlot: block.parentSlot,
      previousBlockhash: block.previousBlockhash,
    };
    const records = block.signatures.map((s) => ctx.chain.txs.get(s)).filter((r) => r !== undefined);
    if (details === 'full') {
      for (const r of records) checkVersion(r, cfg['maxSupportedTransactionVersion']);
      out['transactions'] = records.map((r) =>
        landedJson(r, encoding, cfg['maxSupportedTransactionVersion']),
      );
    } else if (details === 'signatures') {
      out['signatures'] = block.signatures;
    } else if (details === 'accounts') {
      out['transactions'] = records.map((r) => ({
        meta: metaJson(r),
        transaction: {
          accountKeys: r.tx.message.accountKeys,
          signatures: (transactionJson(r, 'json') as { signatures: Json }).signatures,
        },
        version: cfg['maxSupportedTransactionVersion'] === undefined ? undefined : r.tx.message.version,
      }));
    } else if (details !== 'none') {
      throw invalidParams(`Invalid params: unknown variant \`${String(details)}\`.`);
    }
    if (cfg['rewards'] !== false) out['rewards'] = [];
    return out;
  },
  getBlocks: (p, ctx) => {
    const start = u64(p[0], 'start_slot');
    const end = p[1] === undefined || isObject(p[1]) ? ctx.chain.head.slot : u64(p[1], 'end_slot');
    if (end - start > 500000n) throw new RpcError(-32602, 'Slot range too large; max 500000');
    return [...ctx.chain.blocks.keys()]
      .filter((s) => s >= start && s <= end)
      .sort((a, b) => (a < b ? -1 : 1));
  },
  getTokenAccountsByOwner: (p, ctx) => {
    const owner = address(p[0]);
    const filter = config(p[1]);
    const encoding = config(p[2])['encoding'];
    let mint: string | null = null;
    let program: string | null = null;
    if (typeof filter['mint'] === 'string') mint = address(filter['mint']);
    else if (typeof filter['programId'] === 'string') {
      program = address(filter['programId']);
      if (!isTokenProgram(program)) throw invalidParams('Invalid param: unrecognized Token program id');
    } else throw invalidParams('Invalid params: expected {mint} or {programId}');
    const value: Json[] = [];
    for (const [pubkey, t] of ctx.chain.tokenAccounts) {
      if (t.owner !== owner || (mint !== null && t.mint !== mint)) continue;
      if (program !== null && t.program !== program) continue;
      value.push({ pubkey, account: accountJson(ctx, pubkey, encoding ?? 'base64') });
    }
    return wrap(ctx, value);
  },
  getTokenAccountBalance: (p, ctx) => {
    const acc = ctx.chain.account(address(p[0]));
    const t = acc && isTokenProgram(acc.programAddress) ? decodeTokenAccount(acc.data) : null;
    if (!t) throw invalidParams('Invalid param: could not find account');
    return wrap(ctx, uiTokenAmount(t.amount, ctx.chain.mintDecimals(t.mint)));
  },
  getTokenSupply: (p, ctx) => {
    const acc = ctx.chain.account(address(p[0]));
    const m = acc && isTokenProgram(acc.programAddress) ? decodeMint(acc.data) : null;
    if (!m) throw invalidParams('Invalid param: not a Token mint');
    return wrap(ctx, uiTokenAmount(m.supply, m.decimals));
  },
};
