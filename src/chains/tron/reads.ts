/** Chaingateway's Tron reads: blocks, transactions and receipts as the node returns them or decoded, TRX balances. */
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../errors.ts';
import { passedOnNodeJson } from '../../json/node-json.ts';
import { assetAmount } from '../amount.ts';
import type { ChainAdapter } from '../chain-adapter.ts';
import { type FamilyReads, familyRead } from '../family.ts';
import { TronAdapter } from './adapter.ts';
import { toBase58Address } from './address.ts';
import { contractStatus, decodeTransfer } from './decode-contract.ts';
import { NodeJson, Txid } from './schemas.ts';
import { decodeTransferLogs } from './transfer-log.ts';
import { TRX_DECIMALS, trxText } from './trx-amount.ts';

const Nullable = <Schema extends ReturnType<typeof Type.String | typeof Type.Integer>>(schema: Schema) =>
  Type.Union([schema, Type.Null()]);

export const tronReads: FamilyReads = {
  blockId: Type.String({
    pattern: '^([0-9]{1,19}|[0-9a-fA-F]{64})$',
    description: 'Block number or 64-hex blockID',
  }),
  txid: Txid,

  blockNumber: familyRead(
    'Latest block number',
    Type.Object({ blocknumber: Type.Integer() }),
    async (adapter) => ({
      blocknumber: Number(await tron(adapter).getBlockNumber()),
    }),
  ),

  block: familyRead('A block by number or blockID, as the node returns it', NodeJson, async (adapter, id) => {
    const block = await tron(adapter).getBlock(id);
    if (block === null) throw new ApiError(404, 'Block not found');
    return nodeObject(block);
  }),

  transaction: familyRead(
    'A transaction as the node returns it',
    Type.Object({ transaction: NodeJson }),
    async (adapter, txid) => ({ transaction: nodeObject(await nodeTransaction(tron(adapter), txid)) }),
  ),

  decodedTransaction: familyRead(
    "A transaction decoded: from, to, amount in the asset's units, block and confirmations",
    Type.Object({
      transaction: Type.Object({
        txid: Type.String(),
        from: Nullable(Type.String()),
        to: Nullable(Type.String()),
        amount: Nullable(Type.String()),
        contractaddress: Nullable(Type.String()),
        tokenid: Nullable(Type.String()),
        blocknumber: Nullable(Type.Integer()),
        confirmations: Type.Integer(),
        status: Type.String({
          description: 'SUCCESS, PENDING, or the contract failure (REVERT, OUT_OF_ENERGY ...)',
        }),
        type: Type.String({ description: 'Tron (TRX), TRC10, TRC20, TRC721, or the contract type' }),
      }),
    }),
    async (adapter, txid) => ({ transaction: await decodedTransaction(tron(adapter), txid) }),
  ),

  receipt: familyRead(
    "The transaction's receipt (gettransactioninfobyid) as the node returns it",
    Type.Object({ transaction: NodeJson }),
    async (adapter, txid) => ({ transaction: nodeObject(await transactionInfo(tron(adapter), txid)) }),
  ),

  decodedReceipt: familyRead(
    'The receipt decoded: status (SUCCESS or the failure), fees in TRX, Transfer events',
    Type.Object({
      txid: Type.String(),
      status: Type.String(),
      blocknumber: Type.Integer(),
      timestamp: Type.String(),
      fee: Type.String(),
      energy_usage_total: Type.String(),
      energy_fee: Type.String(),
      net_usage: Type.String(),
      net_fee: Type.String(),
      contractaddress: Nullable(Type.String()),
      transfers: Type.Array(
        Type.Object({
          contractaddress: Type.String(),
          from: Type.String(),
          to: Type.String(),
          value: Type.String(),
        }),
      ),
    }),
    async (adapter, txid) => {
      const info = await transactionInfo(tron(adapter), txid);
      const receipt = (info['receipt'] ?? {}) as Record<string, unknown>;
      const sun = (value: unknown) => trxText(BigInt(String(value ?? 0)));
      return {
        txid: normalizeTxid(txid),
        status: info['result'] === 'FAILED' ? 'FAILED' : String(receipt['result'] ?? 'SUCCESS'),
        blocknumber: Number(info['blockNumber'] ?? 0),
        timestamp: new Date(Number(info['blockTimeStamp'] ?? 0)).toISOString(),
        fee: sun(info['fee']),
        energy_usage_total: String(receipt['energy_usage_total'] ?? 0),
        energy_fee: sun(receipt['energy_fee']),
        net_usage: String(receipt['net_usage'] ?? 0),
        net_fee: sun(receipt['net_fee']),
        contractaddress:
          typeof info['contract_address'] === 'string' ? toBase58Address(info['contract_address']) : null,
        transfers: decodeTransferLogs(info),
      };
    },
  ),

  balance: familyRead(
    'TRX balance in sun',
    Type.Object({ tronaddress: Type.String(), decimals: Type.Integer(), balance: Type.String() }),
    async (adapter, address) => {
      const balance = await tron(adapter).getBalance(address);
      return { tronaddress: toBase58Address(address), decimals: TRX_DECIMALS, balance: balance.toString() };
    },
  ),
};

/** The family's reads are asked of the adapter the registry holds for a Tron chain. */
function tron(adapter: ChainAdapter): TronAdapter {
  if (!(adapter instanceof TronAdapter)) throw new Error(`${adapter.chain} is not served by a Tron adapter`);
  return adapter;
}

async function nodeTransaction(adapter: TronAdapter, txid: string): Promise<Record<string, unknown>> {
  const tx = await adapter.getTransaction(normalizeTxid(txid));
  if (tx === null) throw new ApiError(422, 'transaction not found');
  return tx;
}

async function transactionInfo(adapter: TronAdapter, txid: string): Promise<Record<string, unknown>> {
  const info = await adapter.getTransactionInfo(normalizeTxid(txid));
  if (info === null) throw new ApiError(422, 'transaction not found');
  return info;
}

/** The spec's decoded form: who sent what, in which block, how deep. Token amounts in the token's units. */
async function decodedTransaction(adapter: TronAdapter, txid: string) {
  const tx = await nodeTransaction(adapter, txid);
  const [info, head] = await Promise.all([
    adapter.getTransactionInfo(normalizeTxid(txid)),
    adapter.getBlockNumber(),
  ]);
  const transfer = decodeTransfer(tx);
  const blocknumber = info?.['blockNumber'] === undefined ? null : Number(info['blockNumber']);
  let amount: string | null = null;
  if (transfer.amount !== null) {
    if (transfer.type === 'Tron') amount = trxText(transfer.amount);
    else if (transfer.type === 'TRC20' && transfer.contractaddress) {
      const decimals = await adapter.getTrc20Decimals(transfer.contractaddress);
      amount = assetAmount(transfer.amount, decimals);
    } else if (transfer.type === 'TRC10' && transfer.tokenid) {
      const { precision } = await adapter.getTrc10Info(transfer.tokenid);
      amount = assetAmount(transfer.amount, precision);
    } else amount = transfer.amount.toString();
  }
  return {
    txid: normalizeTxid(txid),
    from: transfer.from,
    to: transfer.to,
    amount,
    contractaddress: transfer.contractaddress,
    tokenid: transfer.tokenid,
    blocknumber,
    confirmations: blocknumber === null ? 0 : Math.max(0, Number(head) - blocknumber + 1),
    status: contractStatus(tx),
    type: transfer.type,
  };
}

/** The node's JSON as it wrote it: its int64s beyond 2^53 leave as numbers with every digit. */
function nodeObject(json: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(json).map(([key, value]) => [key, passedOnNodeJson(value)]));
}

function normalizeTxid(txid: string): string {
  return txid.replace(/^0x/i, '').toLowerCase();
}
