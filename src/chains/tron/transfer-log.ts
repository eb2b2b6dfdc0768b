/**
 * Transfer events in java-tron's transaction info: TRC20 logs them with 3 topics (value in the data),
 * TRC721 with 4 (token id indexed). Read here once for both the block follower and the decoded receipt.
 */
import { TRANSFER_TOPIC_HEX } from '../erc20-events.ts';
import { toBase58Address } from './address.ts';
import { wordAddress } from './decode-contract.ts';

type Json = Record<string, unknown>;

/** The parts of one Transfer log; addresses base58. */
export interface TronTransferLog {
  contract: string;
  from: string;
  to: string;
  /** The indexed token id of a TRC721 transfer; null for 3 topics. */
  tokenId: bigint | null;
  /** The log's data as the node sent it: a TRC20's value, in hex. */
  data: string;
}

/** A log's Transfer event; null for any other log. */
export function readTransferLog(log: Json): TronTransferLog | null {
  const topics = (log['topics'] as string[] | undefined) ?? [];
  if (topics[0]?.toLowerCase() !== TRANSFER_TOPIC_HEX || topics.length < 3) return null;
  return {
    contract: toBase58Address(`41${String(log['address']).slice(-40)}`),
    from: wordAddress(topics[1]!),
    to: wordAddress(topics[2]!),
    tokenId: topics.length >= 4 ? BigInt(`0x${topics[3]}`) : null,
    data: String(log['data'] ?? ''),
  };
}

/** The Transfer events of a transaction info's logs, as the decoded receipt shows them (TRC20 value or TRC721 id). */
export function decodeTransferLogs(
  info: Json,
): { contractaddress: string; from: string; to: string; value: string }[] {
  const logs = (info['log'] as Json[] | undefined) ?? [];
  return logs.flatMap((log) => {
    const transfer = readTransferLog(log);
    if (transfer === null) return [];
    const value = transfer.tokenId ?? BigInt(`0x${transfer.data || '0'}`);
    return [
      { contractaddress: transfer.contract, from: transfer.from, to: transfer.to, value: value.toString() },
    ];
  });
}
