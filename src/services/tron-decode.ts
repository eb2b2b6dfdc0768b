import { formatAmount } from '../chains/amount.ts';
import { TRANSFER_TOPIC_HEX } from '../chains/erc20-events.ts';
import { isTronAddress, toBase58Address } from '../chains/tron/address.ts';

const TRC20_TRANSFER = 'a9059cbb';
const TRC721_TRANSFER_FROM = '23b872dd';

type Json = Record<string, unknown>;

/** What a transaction moves, read from its first contract (the one Tron executes). */
export interface DecodedTransfer {
  type: 'Tron' | 'TRC10' | 'TRC20' | 'TRC721' | string;
  from: string | null;
  to: string | null;
  /** Base units. */
  amount: bigint | null;
  contractaddress: string | null;
  tokenid: string | null;
}

function base58(value: unknown): string | null {
  return typeof value === 'string' && isTronAddress(value) ? toBase58Address(value) : null;
}

/** A 32-byte ABI word holding an address (TronWeb writes the 41 prefix into it; the EVM reads the low 20 bytes). */
function wordAddress(word: string): string {
  return toBase58Address(`41${word.slice(24)}`);
}

export function decodeTransfer(tx: Json): DecodedTransfer {
  const contract = ((tx['raw_data'] as Json | undefined)?.['contract'] as Json[] | undefined)?.[0];
  const value = ((contract?.['parameter'] as Json | undefined)?.['value'] ?? {}) as Json;
  const type = String(contract?.['type'] ?? '');
  const from = base58(value['owner_address']);
  const none = { from, to: null, amount: null, contractaddress: null, tokenid: null };
  if (type === 'TransferContract') {
    return {
      ...none,
      type: 'Tron',
      to: base58(value['to_address']),
      amount: BigInt(String(value['amount'] ?? 0)),
    };
  }
  if (type === 'TransferAssetContract') {
    const assetHex = String(value['asset_name'] ?? '');
    const tokenid = /^[0-9a-f]+$/i.test(assetHex) ? Buffer.from(assetHex, 'hex').toString('utf8') : assetHex;
    return {
      ...none,
      type: 'TRC10',
      to: base58(value['to_address']),
      amount: BigInt(String(value['amount'] ?? 0)),
      tokenid,
    };
  }
  if (type === 'TriggerSmartContract') {
    const data = String(value['data'] ?? '').toLowerCase();
    const contractaddress = base58(value['contract_address']);
    const words = (offset: number) => data.slice(8 + offset * 64, 8 + (offset + 1) * 64);
    if (data.startsWith(TRC20_TRANSFER) && data.length >= 8 + 128) {
      return {
        ...none,
        type: 'TRC20',
        to: wordAddress(words(0)),
        amount: BigInt(`0x${words(1)}`),
        contractaddress,
      };
    }
    if (data.startsWith(TRC721_TRANSFER_FROM) && data.length >= 8 + 192) {
      return {
        ...none,
        type: 'TRC721',
        from: wordAddress(words(0)),
        to: wordAddress(words(1)),
        amount: 1n,
        contractaddress,
        tokenid: BigInt(`0x${words(2)}`).toString(),
      };
    }
    return { ...none, type: 'CONTRACT', contractaddress };
  }
  return { ...none, type: type.replace(/Contract$/, '') || 'UNKNOWN' };
}

/** Transfer events of a receipt's logs, decoded (TRC20 value or TRC721 token id). */
export function decodeTransferLogs(
  info: Json,
): { contractaddress: string; from: string; to: string; value: string }[] {
  const logs = (info['log'] as Json[] | undefined) ?? [];
  return logs
    .filter((log) => {
      const topics = log['topics'] as string[] | undefined;
      return topics?.[0]?.toLowerCase() === TRANSFER_TOPIC_HEX && topics.length >= 3;
    })
    .map((log) => {
      const topics = log['topics'] as string[];
      const data = String(log['data'] ?? '');
      const value = topics.length >= 4 ? BigInt(`0x${topics[3]}`) : BigInt(`0x${data || '0'}`);
      return {
        contractaddress: toBase58Address(`41${String(log['address']).slice(-40)}`),
        from: wordAddress(topics[1]!),
        to: wordAddress(topics[2]!),
        value: value.toString(),
      };
    });
}

/** `1.000000`: TRX amounts as the spec's decoded transaction shows them. */
export function trxText(sun: bigint): string {
  return formatAmount(sun, 6, { fixed: 6 });
}
