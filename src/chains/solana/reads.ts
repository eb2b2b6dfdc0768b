/**
 * Solana's answers to the reads every chain has: slots for block numbers, the node's block and
 * transaction JSON, the transfers a transaction made, its status, and balances in SOL with lamports.
 */
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../errors.ts';
import { passedOnNodeJson } from '../../json/node-json.ts';
import { assetAmount, formatAmount } from '../amount.ts';
import type { ChainAdapter } from '../chain-adapter.ts';
import { type FamilyReads, familyRead } from '../family.ts';
import { LAMPORTS_DECIMALS, SolanaAdapter } from './adapter.ts';
import { transactionTransfers } from './block-transfers.ts';
import { signatureField, slotField } from './request-fields.ts';

const NodeJson = Type.Object({}, { additionalProperties: true });

const Transfer = Type.Object({
  type: Type.String({ description: '`SOL` or `SPL`' }),
  from: Type.Union([Type.String(), Type.Null()]),
  to: Type.Union([Type.String(), Type.Null()]),
  mint: Type.Union([Type.String(), Type.Null()]),
  amount: Type.String({ description: "Decimal, in the asset's units" }),
  amount_raw: Type.String({ description: 'In base units (lamports, token units)' }),
  decimals: Type.Integer(),
});

const Outcome = Type.Object({
  signature: Type.String(),
  slot: Type.Union([Type.Integer(), Type.Null()]),
  confirmationStatus: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('success'), Type.Literal('failed')]),
  error: Type.Union([NodeJson, Type.String(), Type.Null()]),
  fee: Type.Union([Type.String({ description: 'SOL' }), Type.Null()]),
});

export const solanaReads: FamilyReads = {
  blockId: Type.String({ pattern: '^[0-9]{1,20}$', description: 'Slot, below 2^64 (a u64)' }),
  txid: Type.String({
    pattern: '^[1-9A-HJ-NP-Za-km-z]{64,88}$',
    description: 'Transaction signature (base58)',
    examples: ['5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW'],
  }),

  blockNumber: familyRead(
    'The newest confirmed slot',
    Type.Object({ blocknumber: Type.Integer() }),
    async (adapter) => ({ blocknumber: Number(await solana(adapter).getBlockNumber()) }),
  ),

  block: familyRead(
    "A slot's block with its transactions' signatures, as the node returns it",
    NodeJson,
    async (adapter, id) => {
      const slot = slotField('block', id);
      // A u64 slot past 2^53 is centuries of 400 ms slots away: no chain has it, and JSON-RPC numbers
      // cannot carry it exactly.
      if (slot > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError(404, 'Block not found');
      const block = await solana(adapter).getBlock(slot);
      if (block === 'skipped') throw new ApiError(404, `Slot ${slot} was skipped: it holds no block`);
      if (block === null) throw new ApiError(404, 'Block not found');
      return objectOf(passedOnNodeJson(block));
    },
  ),

  transaction: familyRead(
    'A transaction as the node returns it (json encoding, v0 included)',
    NodeJson,
    async (adapter, signature) =>
      objectOf(passedOnNodeJson(await nodeTransaction(solana(adapter), signature))),
  ),

  decodedTransaction: familyRead(
    'The SOL and SPL transfers a transaction made, read from its instructions and balance changes',
    Type.Object({ signature: Type.String(), slot: Type.Integer(), transfers: Type.Array(Transfer) }),
    async (adapter, signature) => {
      const node = solana(adapter);
      const tx = await nodeTransaction(node, signature);
      const slot = typeof tx['slot'] === 'number' ? tx['slot'] : 0;
      const transfers = transactionTransfers(BigInt(slot), tx).map((t) => ({
        type: t.type,
        from: t.from,
        to: t.to,
        mint: t.contractAddress,
        amount: assetAmount(t.amountRaw, t.decimals),
        amount_raw: t.amountRaw.toString(),
        decimals: t.decimals,
      }));
      return { signature, slot, transfers };
    },
  ),

  receipt: familyRead(
    "A transaction's status: its slot, commitment, outcome and fee",
    Outcome,
    (adapter, signature) => outcome(solana(adapter), signature),
  ),

  decodedReceipt: familyRead(
    "A transaction's status with the node's own meta (logs, compute units, balances)",
    Type.Object({ outcome: Outcome, meta: NodeJson }),
    async (adapter, signature) => {
      const node = solana(adapter);
      const tx = await nodeTransaction(node, signature);
      return { outcome: await outcome(node, signature), meta: objectOf(passedOnNodeJson(tx['meta'] ?? {})) };
    },
  ),

  balance: familyRead(
    'SOL balance, a decimal string, with the lamports',
    Type.Object({ address: Type.String(), balance: Type.String(), lamports: Type.String() }),
    async (adapter, address) => {
      const lamports = await solana(adapter).getBalance(address);
      return { address, balance: assetAmount(lamports, LAMPORTS_DECIMALS), lamports: lamports.toString() };
    },
  ),
};

/** The family's reads are asked of the adapter the registry holds for Solana. */
function solana(adapter: ChainAdapter): SolanaAdapter {
  if (!(adapter instanceof SolanaAdapter))
    throw new Error(`${adapter.chain} is not served by a Solana adapter`);
  return adapter;
}

async function nodeTransaction(adapter: SolanaAdapter, signature: string): Promise<Record<string, unknown>> {
  const tx = await adapter.getTransaction(signatureField('txid', signature));
  if (tx === null || typeof tx !== 'object') throw new ApiError(422, 'transaction not found');
  return objectOf(tx);
}

async function outcome(adapter: SolanaAdapter, signature: string) {
  const status = await adapter.signatureStatus(signatureField('txid', signature));
  if (status === null) throw new ApiError(422, 'transaction not found');
  const tx = await adapter.getTransaction(signature);
  const meta = tx !== null && typeof tx === 'object' ? objectOf(tx)['meta'] : undefined;
  const fee = meta !== null && typeof meta === 'object' ? objectOf(meta)['fee'] : undefined;
  const feeLamports = typeof fee === 'number' || typeof fee === 'bigint' ? BigInt(fee) : null;
  return {
    signature,
    slot: Number(status.slot),
    confirmationStatus: status.confirmationStatus ?? null,
    status: status.err === null ? ('success' as const) : ('failed' as const),
    error:
      status.err === null
        ? null
        : typeof status.err === 'string'
          ? status.err
          : objectOf(passedOnNodeJson(status.err)),
    fee: feeLamports === null ? null : formatAmount(feeLamports, LAMPORTS_DECIMALS),
  };
}

function objectOf(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? { ...value } : { value };
}
