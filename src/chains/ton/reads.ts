/**
 * TON's answers to the reads every chain has: masterchain seqnos for block numbers, the indexer's block
 * and transaction JSON, the transfers a transaction received and sent (with comments, bounced or not),
 * how it ended, and balances in TON with the nanotons.
 *
 * A transaction is named by its hash (64 hex, or base64 as explorers write it) or by the hash of the
 * message that started it: a send answers its external message's normalized hash (TEP-467), which is
 * what a user has before the transaction exists. The outcome names both the payment's id (its trace's:
 * trace-ids.ts), which is what the send answered and webhooks report, and the transaction's own hash.
 */
import { Type } from '@sinclair/typebox';
import { ApiError, invalidField } from '../../errors.ts';
import { assetAmount } from '../amount.ts';
import type { ChainAdapter } from '../chain-adapter.ts';
import { type FamilyReads, familyRead } from '../family.ts';
import { TonAdapter } from './adapter.ts';
import { NANOTON_DECIMALS } from './block-transfers.ts';
import { decodedTransfers, transactionOutcome } from './decoded-transaction.ts';
import type { TonTransaction } from './toncenter.ts';

const NodeJson = Type.Object({}, { additionalProperties: true });

/** A transaction or message hash: 64 hex, or 32 bytes in base64 or base64url. */
export const TON_HASH_PATTERN = '^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$';

const Transfer = Type.Object({
  type: Type.String({ description: '`TON` or `JETTON`' }),
  direction: Type.String({ description: '`in`: received by the transaction; `out`: sent by it' }),
  from: Type.Union([Type.String(), Type.Null()]),
  to: Type.Union([Type.String(), Type.Null()]),
  jetton: Type.Union([Type.String(), Type.Null()], { description: "The jetton's master; null for TON" }),
  amount: Type.String({ description: "Decimal, in the asset's units" }),
  amount_raw: Type.String({ description: 'In base units (nanotons, jetton units)' }),
  decimals: Type.Integer(),
  comment: Type.Union([Type.String(), Type.Null()], { description: 'The text comment, where there is one' }),
  bounced: Type.Union([Type.Boolean(), Type.Null()], {
    description: 'Sent back (TON) or refused (jetton); null while the message has not landed yet',
  }),
});

const Outcome = Type.Object({
  txid: Type.String({
    description:
      "The id of the payment the transaction is part of, 64 hex: the normalized hash (TEP-467) of the external message its trace began with, as the send answered it and webhooks report it; the transaction's own hash where the trace began without one",
  }),
  hash: Type.String({ description: "This transaction's hash, 64 hex" }),
  account: Type.String(),
  lt: Type.String({ description: 'Logical time' }),
  mc_block_seqno: Type.Union([Type.Integer(), Type.Null()]),
  time: Type.Integer({ description: 'Unix seconds' }),
  status: Type.Union([Type.Literal('success'), Type.Literal('failed'), Type.Literal('aborted')]),
  aborted: Type.Boolean(),
  compute: Type.Object({
    skipped: Type.Boolean(),
    success: Type.Union([Type.Boolean(), Type.Null()]),
    exit_code: Type.Union([Type.Integer(), Type.Null()]),
  }),
  action: Type.Object({
    success: Type.Union([Type.Boolean(), Type.Null()]),
    result_code: Type.Union([Type.Integer(), Type.Null()]),
  }),
  bounce_received: Type.Boolean({ description: 'The inbound message was a bounce coming back' }),
  bounced: Type.Boolean({ description: "The inbound message's value was sent back" }),
  fee: Type.String({ description: 'TON' }),
  fee_nanotons: Type.String(),
});

export const tonReads: FamilyReads = {
  blockId: Type.String({ pattern: '^[0-9]{1,10}$', description: 'Masterchain block seqno' }),
  txid: Type.String({
    pattern: TON_HASH_PATTERN,
    description:
      "Transaction hash (64 hex, or base64), or the hash of the message that started it (a send's txid: its external message's normalized hash)",
    examples: ['9f0c2d4a3c2b0e0f6e5d4c3b2a19080706050403020100ffeeddccbbaa998877'],
  }),

  blockNumber: familyRead(
    'The newest masterchain block seqno',
    Type.Object({ blocknumber: Type.Integer() }),
    async (adapter) => ({ blocknumber: Number(await ton(adapter).getBlockNumber()) }),
  ),

  block: familyRead(
    "A masterchain block as the indexer returns it, with the transactions it closed (its shard blocks')",
    Type.Object({ block: NodeJson, transactions: Type.Array(NodeJson) }),
    async (adapter, id) => {
      const seqno = Number(id);
      if (!/^[0-9]{1,10}$/.test(id) || seqno > 2 ** 31 - 1) {
        throw invalidField('block', 'The block field must be a masterchain seqno.');
      }
      const node = ton(adapter);
      const block = await node.toncenter.block(seqno);
      if (block === null) throw new ApiError(404, 'Block not found');
      const transactions = await node.toncenter.transactionsOfBlock(seqno);
      return { block: block.raw, transactions: transactions.map((tx) => tx.raw) };
    },
  ),

  transaction: familyRead(
    'A transaction as the indexer returns it, by its hash or the hash of the message that started it',
    NodeJson,
    async (adapter, txid) => (await findTransaction(ton(adapter), txid)).raw,
  ),

  decodedTransaction: familyRead(
    'The TON and jetton transfers a transaction received and sent, with comments, bounced or not, and how it ended',
    Type.Object({ outcome: Outcome, transfers: Type.Array(Transfer) }),
    async (adapter, txid) => {
      const node = ton(adapter);
      const tx = await findTransaction(node, txid);
      return {
        outcome: transactionOutcome(tx, await node.traces.of(tx), node.network),
        transfers: await decodedTransfers(tx, node.toncenter, node.jettons, node.network),
      };
    },
  ),

  receipt: familyRead(
    'How a transaction ended: success, failed or aborted, its exit codes and fee',
    Outcome,
    async (adapter, txid) => {
      const node = ton(adapter);
      const tx = await findTransaction(node, txid);
      return transactionOutcome(tx, await node.traces.of(tx), node.network);
    },
  ),

  decodedReceipt: familyRead(
    "How a transaction ended, with the indexer's description of its phases",
    Type.Object({ outcome: Outcome, description: NodeJson }),
    async (adapter, txid) => {
      const node = ton(adapter);
      const tx = await findTransaction(node, txid);
      const description = tx.raw['description'];
      return {
        outcome: transactionOutcome(tx, await node.traces.of(tx), node.network),
        description: description !== null && typeof description === 'object' ? { ...description } : {},
      };
    },
  ),

  balance: familyRead(
    'TON balance, a decimal string, with the nanotons and the account status',
    Type.Object({
      address: Type.String(),
      balance: Type.String(),
      nanotons: Type.String(),
      status: Type.String({
        description: '`active`, `uninit` (a wallet not deployed yet), `frozen` or `nonexist`',
      }),
    }),
    async (adapter, address) => {
      const account = await ton(adapter).toncenter.account(address);
      return {
        address,
        balance: assetAmount(account.balance, NANOTON_DECIMALS),
        nanotons: account.balance.toString(),
        status: account.status,
      };
    },
  ),
};

/** The family's reads are asked of the adapter the registry holds for TON. */
export function ton(adapter: ChainAdapter): TonAdapter {
  if (!(adapter instanceof TonAdapter)) throw new Error(`${adapter.chain} is not served by a TON adapter`);
  return adapter;
}

/**
 * The transaction a txid names: by its own hash, else as the one its inbound message (an external
 * message's hash or normalized hash) started; 422 when the indexer has neither.
 */
export async function findTransaction(adapter: TonAdapter, txid: string): Promise<TonTransaction> {
  if (!new RegExp(TON_HASH_PATTERN).test(txid)) {
    throw invalidField('txid', 'The txid field must be a transaction or message hash (64 hex, or base64).');
  }
  const byHash = await adapter.toncenter.transactionByHash(txid);
  if (byHash !== null) return byHash;
  const byMessage = await adapter.toncenter.transactionsByMessage(txid, 'in');
  if (byMessage[0] !== undefined) return byMessage[0];
  throw new ApiError(422, 'transaction not found');
}
