/**
 * Whether a mined transaction did what it asked for. A receipt's status only says the call did not
 * revert: `transfer` sent to an address without code, or to a contract that swallows the call, succeeds
 * and moves nothing. So a token transfer (ERC20 `transfer`, ERC721 `transferFrom`/`safeTransferFrom`,
 * which ERC20 `transferFrom` shares a selector with) counts as a success only when its receipt carries
 * the matching Transfer event of the contract it called.
 */
import { TRANSFER_TOPIC } from '../erc20-events.ts';
import { decodeTransferCall, isErc20OrNftTransferFrom } from './transfer-calls.ts';

export type TransactionStatus = 'PENDING' | 'SUCCESS' | 'FAILED';

export interface TransactionOutcome {
  status: TransactionStatus;
  /** Why a mined transaction failed; null otherwise. */
  reason: string | null;
}

/** A token transfer call, decoded from a transaction's input: what its Transfer event must name. */
export interface ExpectedTransfer {
  /** Lower-case 0x address of the contract called. */
  contract: string;
  from: string;
  to: string;
  /** The token id an ERC721 event indexes; null for ERC20 `transfer`. */
  tokenId: bigint | null;
  /** `transferFrom` is ERC20 (amount in data) or ERC721 (token id indexed): either event shape matches. */
  eitherStandard: boolean;
}

type Json = Record<string, unknown>;

/** PENDING without a receipt; FAILED when reverted, or a token transfer whose Transfer event is missing. */
export function transactionOutcome(tx: Json | null, receipt: Json | null): TransactionOutcome {
  if (receipt === null) return { status: 'PENDING', reason: null };
  // Pre-Byzantium receipts carry a state root instead of a status; every one of them succeeded.
  if (receipt['status'] === '0x0') return { status: 'FAILED', reason: 'reverted' };
  const expected = tx === null ? null : expectedTransfer(tx);
  if (expected !== null && !hasTransferEvent(receipt, expected)) {
    return { status: 'FAILED', reason: `no Transfer event from ${expected.contract}: no token moved` };
  }
  return { status: 'SUCCESS', reason: null };
}

/** The Transfer event a token transfer call must emit; null for any other transaction. */
export function expectedTransfer(tx: Json): ExpectedTransfer | null {
  const contract = typeof tx['to'] === 'string' ? tx['to'].toLowerCase() : null;
  const input = String(tx['input'] ?? tx['data'] ?? '0x');
  const call = contract === null ? null : decodeTransferCall(input);
  if (contract === null || call === null) return null;
  if (call.standard === 'fungible') {
    const from = typeof tx['from'] === 'string' ? tx['from'].toLowerCase() : null;
    if (from === null) return null;
    return { contract, from, to: call.to.toLowerCase(), tokenId: null, eitherStandard: false };
  }
  return {
    contract,
    from: call.from.toLowerCase(),
    to: call.to.toLowerCase(),
    tokenId: call.tokenId,
    eitherStandard: isErc20OrNftTransferFrom(input),
  };
}

function hasTransferEvent(receipt: Json, expected: ExpectedTransfer): boolean {
  const logs: unknown[] = Array.isArray(receipt['logs']) ? receipt['logs'] : [];
  return logs.some((log) => typeof log === 'object' && log !== null && matches(log, expected));
}

function matches(log: object, expected: ExpectedTransfer): boolean {
  const address = 'address' in log ? String(log.address).toLowerCase() : null;
  const topics = 'topics' in log && Array.isArray(log.topics) ? log.topics.map(String) : [];
  if (address !== expected.contract) return false;
  if (topics[0]?.toLowerCase() !== TRANSFER_TOPIC) return false;
  if (topicAddress(topics[1]) !== expected.from || topicAddress(topics[2]) !== expected.to) return false;
  if (topics.length === 4) return expected.tokenId !== null && BigInt(topics[3]!) === expected.tokenId;
  return topics.length === 3 && (expected.tokenId === null || expected.eitherStandard);
}

/** An address in an indexed topic: the last 20 of its 32 bytes. */
function topicAddress(topic: string | undefined): string | null {
  return topic !== undefined && /^0x[0-9a-fA-F]{64}$/.test(topic)
    ? `0x${topic.slice(-40).toLowerCase()}`
    : null;
}
