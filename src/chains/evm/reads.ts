/**
 * Chaingateway's EVM reads: blocks and receipts with EIP-55 addresses, transactions with the node's
 * numbers in decimal, gas prices in gwei and the amount moved, native balances in the coin's units.
 */
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../errors.ts';
import { assetAmount, formatAmount } from '../amount.ts';
import type { ChainAdapter } from '../chain-adapter.ts';
import { type FamilyReads, familyRead } from '../family.ts';
import { EvmAdapter, type RpcObject } from './adapter.ts';
import { checksumAddress } from './keys.ts';
import {
  erc20DecimalsOrNull,
  lookupAmount,
  type MovedAsset,
  movedAsset,
  nodeTransactionFields,
  optionalAddress,
} from './moved-asset.ts';
import { transactionOutcome } from './outcome.ts';
import { GWEI_DECIMALS, WEI_DECIMALS } from './units.ts';

/** Raw node JSON passed through as the spec does. */
const NodeJson = Type.Object({}, { additionalProperties: true });

export const evmReads: FamilyReads = {
  blockId: Type.String({ pattern: '^([0-9]{1,19}|0x[0-9a-fA-F]{64})$' }),
  txid: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'Transaction hash' }),

  blockNumber: familyRead(
    'Latest block number',
    Type.Object({ blocknumber: Type.Integer() }),
    async (adapter) => ({
      blocknumber: Number(await evm(adapter).getBlockNumber()),
    }),
  ),

  block: familyRead('A block by number or hash, as the node returns it', NodeJson, async (adapter, id) => {
    const block = await evm(adapter).getBlock(/^\d+$/.test(id) ? BigInt(id) : id);
    if (block === null) throw new ApiError(404, 'Block not found');
    return { ...block, miner: optionalAddress(block['miner']) ?? block['miner'] };
  }),

  transaction: familyRead(
    'A transaction: node fields in decimal, gas prices in gwei, the amount moved',
    Type.Object({ transaction: NodeJson }),
    async (adapter, hash) => {
      const node = evm(adapter);
      const tx = await nodeTransaction(node, hash);
      const transfer = await decodeTransfer(node, tx);
      const dec = (key: string) =>
        tx[key] === undefined || tx[key] === null ? null : BigInt(String(tx[key])).toString();
      const gwei = (key: string) =>
        tx[key] === undefined || tx[key] === null
          ? null
          : formatAmount(BigInt(String(tx[key])), GWEI_DECIMALS, { fixed: 10 });
      return {
        transaction: {
          blockHash: (tx['blockHash'] as string | null) ?? null,
          blockNumber: dec('blockNumber'),
          from: checksumAddress(String(tx['from'])),
          gas: dec('gas'),
          gasPrice: gwei('gasPrice'),
          hash: String(tx['hash']),
          nonce: dec('nonce'),
          to: optionalAddress(tx['to']),
          transactionIndex: dec('transactionIndex'),
          maxFeePerGas: gwei('maxFeePerGas'),
          maxPriorityFeePerGas: gwei('maxPriorityFeePerGas'),
          amount: lookupAmount(transfer),
          contractaddress: transfer.contract,
          type: transfer.type,
        },
      };
    },
  ),

  decodedTransaction: familyRead(
    'Decoded: from, to, amount, block, confirmations, status',
    Type.Object({ transaction: NodeJson }),
    async (adapter, hash) => {
      const node = evm(adapter);
      const tx = await nodeTransaction(node, hash);
      const [receipt, head] = await Promise.all([node.getReceipt(hash), node.getBlockNumber()]);
      const transfer = await decodeTransfer(node, tx);
      const blocknumber = tx['blockNumber'] ? Number(BigInt(String(tx['blockNumber']))) : null;
      return {
        transaction: {
          txid: String(tx['hash']),
          from: transfer.from,
          to: transfer.to,
          amount: lookupAmount(transfer),
          contractaddress: transfer.contract,
          tokenid: transfer.tokenId?.toString() ?? null,
          blocknumber,
          confirmations: blocknumber === null ? 0 : Math.max(0, Number(head) - blocknumber + 1),
          status: transactionOutcome(tx, receipt).status,
          type: transfer.type,
        },
      };
    },
  ),

  receipt: familyRead(
    'The receipt as the node returns it',
    Type.Object({ transaction: NodeJson }),
    async (adapter, hash) => ({ transaction: checksummedReceipt(await nodeReceipt(evm(adapter), hash)) }),
  ),

  decodedReceipt: familyRead('The receipt decoded: status, gas, fee', NodeJson, async (adapter, hash) => {
    const node = evm(adapter);
    const receipt = await nodeReceipt(node, hash);
    // The input tells whether a token transfer was asked for, whose Transfer event must then be there.
    const tx = await node.getTransaction(hash);
    const num = (key: string) => BigInt(String(receipt[key] ?? 0));
    const fee = num('gasUsed') * num('effectiveGasPrice');
    return {
      txid: String(receipt['transactionHash']),
      status: transactionOutcome(tx, receipt).status,
      blocknumber: Number(num('blockNumber')),
      from: checksumAddress(String(receipt['from'])),
      to: optionalAddress(receipt['to']),
      gasUsed: num('gasUsed').toString(),
      effectiveGasPrice: formatAmount(num('effectiveGasPrice'), GWEI_DECIMALS),
      fee: formatAmount(fee, WEI_DECIMALS),
      contractaddress: optionalAddress(receipt['contractAddress']),
      logs: ((receipt['logs'] as RpcObject[] | undefined) ?? []).length,
    };
  }),

  balance: familyRead(
    "Native balance, a decimal string in the coin's units",
    Type.String(),
    async (adapter, address) => assetAmount(await evm(adapter).getBalance(address), WEI_DECIMALS),
  ),
};

/** The family's reads are asked of the adapter the registry holds for an EVM chain. */
function evm(adapter: ChainAdapter): EvmAdapter {
  if (!(adapter instanceof EvmAdapter)) throw new Error(`${adapter.chain} is not served by an EVM adapter`);
  return adapter;
}

async function nodeTransaction(adapter: EvmAdapter, hash: string): Promise<RpcObject> {
  const tx = await adapter.getTransaction(hash);
  if (tx === null) throw new ApiError(422, 'transaction not found');
  return tx;
}

async function nodeReceipt(adapter: EvmAdapter, hash: string): Promise<RpcObject> {
  const receipt = await adapter.getReceipt(hash);
  if (receipt === null) throw new ApiError(422, 'transaction not found');
  return receipt;
}

/** What a transaction the node returned moves. */
function decodeTransfer(adapter: EvmAdapter, tx: RpcObject): Promise<MovedAsset> {
  return movedAsset(adapter.chain, nodeTransactionFields(tx), erc20DecimalsOrNull(adapter));
}

/** The node's receipt with its addresses (sender, receiver, created contract, log emitters) checksummed. */
function checksummedReceipt(receipt: RpcObject): RpcObject {
  const logs = Array.isArray(receipt['logs']) ? (receipt['logs'] as unknown[]) : null;
  return {
    ...receipt,
    from: optionalAddress(receipt['from']),
    to: optionalAddress(receipt['to']),
    contractAddress: optionalAddress(receipt['contractAddress']),
    ...(logs === null
      ? {}
      : {
          logs: logs.map((log) =>
            typeof log === 'object' && log !== null && 'address' in log
              ? { ...log, address: optionalAddress(log.address) }
              : log,
          ),
        }),
  };
}
