import type { HeightReading } from '../follower.ts';
import type { Network, TransferEvent } from '../types.ts';
import { decodeTransfer } from './decode-contract.ts';
import type { TronNodeApi } from './node-api.ts';
import { readTransferLog } from './transfer-log.ts';
import { TRX_DECIMALS } from './trx-amount.ts';

export interface TokenDecimals {
  trc20Decimals(contract: string): Promise<number>;
  trc10Precision(tokenId: string): Promise<number>;
}

type Json = Record<string, unknown>;

/**
 * Every successful transfer of one Tron block: TRX and TRC10 from the transactions themselves, TRC20 and
 * TRC721 from the Transfer logs of their receipts. Failed transactions (ret != SUCCESS, receipt FAILED)
 * carry no transfer. TRX moved inside contract calls (internal transactions) is not reported. Tron
 * never skips a height: a block the node does not have is one it has not reached yet.
 */
export async function readTronBlock(
  node: TronNodeApi,
  tokens: TokenDecimals,
  network: Network,
  number: bigint,
): Promise<HeightReading> {
  const block = await node.getBlockByNum(number);
  const header = (block['block_header'] as Json | undefined)?.['raw_data'] as Json | undefined;
  if (!header || typeof block['blockID'] !== 'string') return { kind: 'not-yet' };
  const time = new Date(Number(header['timestamp'] ?? 0));
  const base = {
    chain: 'tron' as const,
    network,
    blockNumber: number,
    blockHash: block['blockID'] as string,
    time,
  };
  const transactions = (block['transactions'] as Json[] | undefined) ?? [];
  const transfers: TransferEvent[] = [];

  for (const tx of transactions) {
    if ((tx['ret'] as Json[] | undefined)?.[0]?.['contractRet'] !== 'SUCCESS') continue;
    const transfer = decodeTransfer(tx);
    const moved = { ...base, txid: String(tx['txID']), logIndex: 0, from: transfer.from, to: transfer.to };
    if (transfer.type === 'Tron' && transfer.amount !== null) {
      transfers.push({
        ...moved,
        contractAddress: null,
        tokenId: null,
        type: 'TRX',
        amountRaw: transfer.amount,
        decimals: TRX_DECIMALS,
      });
    } else if (transfer.type === 'TRC10' && transfer.amount !== null && transfer.tokenid !== null) {
      transfers.push({
        ...moved,
        contractAddress: null,
        tokenId: transfer.tokenid,
        type: 'TRC10',
        amountRaw: transfer.amount,
        decimals: await tokens.trc10Precision(transfer.tokenid),
      });
    }
  }

  if (
    transactions.some(
      (tx) =>
        ((tx['raw_data'] as Json)['contract'] as Json[] | undefined)?.[0]?.['type'] ===
        'TriggerSmartContract',
    )
  ) {
    for (const info of await node.getTransactionInfosByBlockNum(number)) {
      if (
        info['result'] === 'FAILED' ||
        ((info['receipt'] as Json | undefined)?.['result'] !== undefined &&
          (info['receipt'] as Json)['result'] !== 'SUCCESS')
      )
        continue;
      const logs = (info['log'] as Json[] | undefined) ?? [];
      for (const [index, log] of logs.entries()) {
        const event = await logTransfer(log, tokens);
        if (event) transfers.push({ ...base, txid: String(info['id']), logIndex: index + 1, ...event });
      }
    }
  }
  const parent = { number: number - 1n, hash: String(header['parentHash']) };
  return { kind: 'block', block: { number, hash: base.blockHash, parent, time, transfers } };
}

async function logTransfer(log: Json, tokens: TokenDecimals) {
  const transfer = readTransferLog(log);
  if (transfer === null) return null;
  const { from, to, contract: contractAddress, tokenId } = transfer;
  if (tokenId !== null) {
    return {
      from,
      to,
      contractAddress,
      tokenId: tokenId.toString(),
      type: 'TRC721',
      amountRaw: 1n,
      decimals: 0,
    };
  }
  if (!/^[0-9a-fA-F]{1,64}$/.test(transfer.data)) return null;
  return {
    from,
    to,
    contractAddress,
    tokenId: null,
    type: 'TRC20',
    amountRaw: BigInt(`0x${transfer.data}`),
    decimals: await tokens.trc20Decimals(contractAddress),
  };
}
