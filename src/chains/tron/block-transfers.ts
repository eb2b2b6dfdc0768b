import type { BlockTransfers, Network, TransferEvent } from '../types.ts';
import { toBase58Address } from './address.ts';
import type { TronNodeApi } from './node-api.ts';
import { readTransferLog } from './transfer-log.ts';

export interface TokenDecimals {
  trc20Decimals(contract: string): Promise<number>;
  trc10Precision(tokenId: string): Promise<number>;
}

type Json = Record<string, unknown>;

/**
 * Every successful transfer of one Tron block: TRX and TRC10 from the transactions themselves, TRC20 and
 * TRC721 from the Transfer logs of their receipts. Failed transactions (ret != SUCCESS, receipt FAILED)
 * carry no transfer. TRX moved inside contract calls (internal transactions) is not reported.
 */
export async function readTronBlock(
  node: TronNodeApi,
  tokens: TokenDecimals,
  network: Network,
  number: bigint,
): Promise<BlockTransfers | null> {
  const block = await node.getBlockByNum(number);
  const header = (block['block_header'] as Json | undefined)?.['raw_data'] as Json | undefined;
  if (!header || typeof block['blockID'] !== 'string') return null;
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
    const contract = ((tx['raw_data'] as Json)['contract'] as Json[] | undefined)?.[0];
    const value = ((contract?.['parameter'] as Json | undefined)?.['value'] ?? {}) as Json;
    const txid = String(tx['txID']);
    const from = address(value['owner_address']);
    if (contract?.['type'] === 'TransferContract') {
      transfers.push({
        ...base,
        txid,
        logIndex: 0,
        from,
        to: address(value['to_address']),
        contractAddress: null,
        tokenId: null,
        type: 'TRX',
        amountRaw: BigInt(String(value['amount'] ?? 0)),
        decimals: 6,
      });
    } else if (contract?.['type'] === 'TransferAssetContract') {
      const tokenId = Buffer.from(String(value['asset_name'] ?? ''), 'hex').toString('utf8');
      transfers.push({
        ...base,
        txid,
        logIndex: 0,
        from,
        to: address(value['to_address']),
        contractAddress: null,
        tokenId,
        type: 'TRC10',
        amountRaw: BigInt(String(value['amount'] ?? 0)),
        decimals: await tokens.trc10Precision(tokenId),
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
  return { number, hash: base.blockHash, parentHash: String(header['parentHash']), time, transfers };
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

function address(value: unknown): string | null {
  return typeof value === 'string' && /^41[0-9a-fA-F]{40}$/.test(value) ? toBase58Address(value) : null;
}
