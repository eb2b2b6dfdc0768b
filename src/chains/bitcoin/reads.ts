/**
 * Bitcoin's answers to the reads every chain has: block heights, block headers by height or hash, a
 * transaction as Chaingateway answers it (`{txid: <raw hex>}`), the payments it made, its confirmations,
 * and balances in BTC, confirmed with the unconfirmed change beside it.
 */
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../errors.ts';
import { assetAmount } from '../amount.ts';
import type { ChainAdapter } from '../chain-adapter.ts';
import { type FamilyReads, familyRead } from '../family.ts';
import { BitcoinAdapter } from './adapter.ts';
import type { BitcoinTx, BlockHeader } from './backend.ts';
import { transfersOf } from './block-transfers.ts';
import { BTC_DECIMALS } from './btc-amount.ts';

/** Bitcoin Core's words for a transaction it does not hold, which Chaingateway answers with 422. */
export const NO_SUCH_TRANSACTION =
  'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.';

const TXID = '^[0-9a-fA-F]{64}$';
const btc = (sats: bigint) => assetAmount(sats, BTC_DECIMALS);
const Btc = (description: string) => Type.String({ description: `${description}, BTC` });
const Height = Type.Union([Type.Integer(), Type.Null()]);

const Block = Type.Object({
  id: Type.String(),
  height: Type.Integer(),
  version: Type.Integer(),
  timestamp: Type.Integer(),
  mediantime: Type.Integer(),
  tx_count: Type.Integer(),
  size: Type.Integer(),
  weight: Type.Integer(),
  merkle_root: Type.String(),
  previousblockhash: Type.Union([Type.String(), Type.Null()]),
  nonce: Type.Integer(),
  bits: Type.Union([Type.String(), Type.Integer()]),
  difficulty: Type.Number(),
});

const Status = Type.Object({
  txid: Type.String(),
  status: Type.Union([Type.Literal('confirmed'), Type.Literal('unconfirmed')]),
  blocknumber: Height,
  blockhash: Type.Union([Type.String(), Type.Null()]),
  confirmations: Type.Integer({ description: '0 while in the mempool' }),
  fee: Type.Union([Btc('What the transaction paid'), Type.Null()]),
  vsize: Type.Integer(),
  rbf: Type.Boolean({ description: 'Whether it signals replace-by-fee (BIP-125)' }),
});

const Payment = Type.Object({
  type: Type.Literal('BTC'),
  from: Type.Union([Type.String({ description: "The first input's address" }), Type.Null()]),
  to: Type.String(),
  amount: Btc('What the output holds'),
  amount_raw: Type.String({ description: 'Satoshis' }),
  vout: Type.Integer(),
});

export const bitcoinReads: FamilyReads = {
  blockId: Type.String({
    pattern: '^([0-9]{1,10}|[0-9a-fA-F]{64})$',
    description: 'Block height or block hash',
    examples: ['840000'],
  }),
  txid: Type.String({
    pattern: TXID,
    description: 'Transaction id (hex)',
    examples: ['9aede7eee01b79aab1cd5a8990f31069756bdf9c969c67b1fd90428ece11919f'],
  }),

  blockNumber: familyRead(
    'The height of the newest block',
    Type.Object({ blocknumber: Type.Integer() }),
    async (adapter) => ({ blocknumber: Number(await bitcoin(adapter).getBlockNumber()) }),
  ),

  block: familyRead(
    "A block's header, as Esplora answers it, with its transactions' ids",
    Type.Object({ ...Block.properties, txids: Type.Array(Type.String()) }),
    async (adapter, id) => {
      const { backend } = bitcoin(adapter);
      const header = await backend.blockHeader(id);
      if (header === null) throw new ApiError(404, 'Block not found');
      return { ...blockJson(header), txids: await backend.blockTxids(header.hash) };
    },
  ),

  transaction: familyRead(
    'A transaction as Chaingateway answers it: its raw hex under `txid`',
    Type.Object({ txid: Type.String({ description: 'The raw transaction, hex' }) }),
    async (adapter, txid) => {
      const hex = await bitcoin(adapter).backend.transactionHex(txid.toLowerCase());
      if (hex === null) throw new ApiError(422, NO_SUCH_TRANSACTION);
      return { txid: hex };
    },
  ),

  decodedTransaction: familyRead(
    'The payments a transaction made: one per output to an address, with the payer',
    Type.Object({ ...Status.properties, payments: Type.Array(Payment) }),
    async (adapter, txid) => {
      const node = bitcoin(adapter);
      const tx = await transactionOf(node, txid);
      const at = {
        height: tx.status.blockHeight ?? 0,
        hash: tx.status.blockHash ?? '',
        time: tx.status.blockTime ?? 0,
      };
      const payments = transfersOf(tx, at, node.network).map((transfer) => ({
        type: 'BTC' as const,
        from: transfer.from,
        to: transfer.to ?? '',
        amount: btc(transfer.amountRaw),
        amount_raw: transfer.amountRaw.toString(),
        vout: transfer.logIndex,
      }));
      return { ...(await statusOf(node, tx)), payments };
    },
  ),

  receipt: familyRead(
    "A transaction's status: confirmed or in the mempool, its block, confirmations and fee",
    Status,
    async (adapter, txid) => {
      const node = bitcoin(adapter);
      return statusOf(node, await transactionOf(node, txid));
    },
  ),

  decodedReceipt: familyRead(
    "A transaction's status with its inputs and outputs as the node decodes them",
    Type.Object({
      ...Status.properties,
      inputs: Type.Array(
        Type.Object({
          txid: Type.String(),
          vout: Type.Integer(),
          address: Type.Union([Type.String(), Type.Null()]),
          value: Type.Union([Btc('The coin spent'), Type.Null()]),
          sequence: Type.Integer(),
        }),
      ),
      outputs: Type.Array(
        Type.Object({
          n: Type.Integer(),
          address: Type.Union([Type.String(), Type.Null()]),
          type: Type.String(),
          value: Btc('The coin made'),
        }),
      ),
    }),
    async (adapter, txid) => {
      const node = bitcoin(adapter);
      const tx = await transactionOf(node, txid);
      return {
        ...(await statusOf(node, tx)),
        inputs: tx.inputs.map((input) => ({
          txid: input.txid,
          vout: input.vout,
          address: input.prevout?.address ?? null,
          value: input.prevout === null ? null : btc(input.prevout.value),
          sequence: input.sequence,
        })),
        outputs: tx.outputs.map((output) => ({
          n: output.n,
          address: output.address,
          type: output.type,
          value: btc(output.value),
        })),
      };
    },
  ),

  balance: familyRead(
    'BTC balance of confirmed coins, a decimal string, with what the mempool adds or spends beside it',
    Type.Object({
      address: Type.String(),
      balance: Btc('Confirmed'),
      unconfirmed: Btc('What unconfirmed transactions add (negative: spend)'),
      balance_sats: Type.String(),
      unconfirmed_sats: Type.String(),
    }),
    async (adapter, address) => {
      const balance = await bitcoin(adapter).backend.balance(address);
      return {
        address,
        balance: btc(balance.confirmed),
        unconfirmed: btc(balance.unconfirmed),
        balance_sats: balance.confirmed.toString(),
        unconfirmed_sats: balance.unconfirmed.toString(),
      };
    },
  ),
};

/** The family's reads are asked of the adapter the registry holds for Bitcoin. */
function bitcoin(adapter: ChainAdapter): BitcoinAdapter {
  if (!(adapter instanceof BitcoinAdapter))
    throw new Error(`${adapter.chain} is not served by a Bitcoin adapter`);
  return adapter;
}

async function transactionOf(adapter: BitcoinAdapter, txid: string): Promise<BitcoinTx> {
  const tx = await adapter.backend.transaction(txid.toLowerCase());
  if (tx === null) throw new ApiError(422, NO_SUCH_TRANSACTION);
  return tx;
}

async function statusOf(adapter: BitcoinAdapter, tx: BitcoinTx) {
  const height = tx.status.confirmed ? tx.status.blockHeight : null;
  const tip = height === null ? null : Number(await adapter.getBlockNumber());
  return {
    txid: tx.txid,
    status: tx.status.confirmed ? ('confirmed' as const) : ('unconfirmed' as const),
    blocknumber: height,
    blockhash: tx.status.confirmed ? tx.status.blockHash : null,
    confirmations: height === null || tip === null ? 0 : Math.max(0, tip - height + 1),
    fee: tx.fee === null ? null : btc(tx.fee),
    vsize: tx.vsize,
    rbf: tx.inputs.some((input) => input.sequence < 0xfffffffe),
  };
}

function blockJson(header: BlockHeader) {
  return {
    id: header.hash,
    height: header.height,
    version: header.version,
    timestamp: header.time,
    mediantime: header.mediantime,
    tx_count: header.txCount,
    size: header.size,
    weight: header.weight,
    merkle_root: header.merkleRoot,
    previousblockhash: header.previousHash,
    nonce: header.nonce,
    bits: header.bits,
    difficulty: header.difficulty,
  };
}
