/**
 * Every successful transfer of one EVM block, for the webhook watchers. Why one module: the watcher needs
 * a block's transfers in the form webhooks compare (lower-case 0x addresses), and reading them takes three
 * node answers that must agree with one another (the block, its receipts, token decimals).
 *
 * - Native coin: from the block's own transactions (value > 0), counted only when the receipt says the
 *   transaction succeeded; logIndex 0.
 * - Token logs are numbered by their block log index + 1, so a transaction's native transfer (0) and its
 *   block's first log never share the outbox's (txid, logIndex) key.
 * - Tokens: from the receipts' Transfer logs (a reverted transaction's logs never appear in its receipt).
 *   Never from call data: a `transfer` sent to an address without code succeeds, logs nothing and so is
 *   no token transfer (coin attached to it did move, and is reported as native).
 *   3 topics + 32 bytes of data is ERC20/BEP20; 4 topics (token id indexed) is ERC721/BEP721.
 * - Not reported: native coin moved by contracts (internal transactions: no log, only a trace shows it)
 *   and Transfer events of other shapes (pre-standard tokens with unindexed arguments).
 *
 * Receipts come from eth_getBlockReceipts where the node has it, else one eth_getTransactionReceipt per
 * transaction. Each receipt must name this block's hash: a reorg between the calls throws, and the
 * watcher retries the block instead of mixing two chains.
 */
import { TRANSFER_TOPIC } from '../erc20-events.ts';
import type { FollowedBlock, HeightReading } from '../follower.ts';
import type { ChainName, Network, TransferEvent } from '../types.ts';
import { type EvmTransferTypes, evmTransferTypes } from './chains.ts';
import { EvmInvalidResponseError } from './errors.ts';
import { type EvmRpc, JsonRpcError } from './rpc.ts';

/** Decimals of an ERC20 contract; a contract that does not answer `decimals()` reports raw units (0). */
export type Erc20DecimalsReader = (contract: string) => Promise<number>;

/** How many per-transaction receipt requests run at once when the node lacks eth_getBlockReceipts. */
const RECEIPT_CONCURRENCY = 8;

type Json = Record<string, unknown>;

export class EvmBlockReader {
  readonly #rpc: EvmRpc;
  readonly #decimals: Erc20DecimalsReader;
  readonly #chain: ChainName;
  readonly #network: Network;
  readonly #types: EvmTransferTypes;
  /** Cleared once the node answers eth_getBlockReceipts with "no such method". */
  #blockReceipts = true;

  constructor(rpc: EvmRpc, decimals: Erc20DecimalsReader, chain: ChainName, network: Network) {
    this.#rpc = rpc;
    this.#decimals = decimals;
    this.#chain = chain;
    this.#network = network;
    this.#types = evmTransferTypes(chain);
  }

  /** The block's successful transfers; `not-yet` when the node has no block `number` (EVM never skips one). */
  async read(number: bigint): Promise<HeightReading> {
    const block = await this.#rpc.request<Json | null>('eth_getBlockByNumber', [hex(number), true]);
    if (block === null) return { kind: 'not-yet' };
    return { kind: 'block', block: await this.#followed(number, block) };
  }

  async #followed(number: bigint, block: Json): Promise<FollowedBlock> {
    const hash = text(block['hash'], 'block hash').toLowerCase();
    const parent = { number: number - 1n, hash: text(block['parentHash'], 'parent hash').toLowerCase() };
    const time = new Date(Number(BigInt(text(block['timestamp'], 'timestamp'))) * 1000);
    const transactions = (block['transactions'] ?? []) as Json[];
    const transfers: TransferEvent[] = [];
    if (transactions.length === 0) return { number, hash, parent, time, transfers };

    const receipts = await this.#receipts(number, hash, transactions);
    const base = { chain: this.#chain, network: this.#network, blockNumber: number, blockHash: hash, time };
    for (const tx of transactions) {
      const txid = text(tx['hash'], 'transaction hash').toLowerCase();
      const receipt = receipts.get(txid);
      if (!receipt) throw this.#invalid(`no receipt for ${txid} in block ${number}`);
      // Pre-Byzantium receipts carry a state root instead of a status; every one of them succeeded.
      if (receipt['status'] === '0x0') continue;
      const value = BigInt(text(tx['value'] ?? '0x0', 'value'));
      if (value > 0n) {
        // A contract creation sends its value to the new contract.
        const to = (tx['to'] ?? receipt['contractAddress'] ?? null) as string | null;
        transfers.push({
          ...base,
          txid,
          logIndex: 0,
          from: lower(tx['from']),
          to: lower(to),
          contractAddress: null,
          tokenId: null,
          type: this.#types.native,
          amountRaw: value,
          decimals: 18,
        });
      }
      for (const log of (receipt['logs'] ?? []) as Json[]) {
        const event = await this.#logTransfer(log);
        if (event)
          transfers.push({
            ...base,
            txid,
            logIndex: Number(BigInt(text(log['logIndex'], 'logIndex'))) + 1,
            ...event,
          });
      }
    }
    return { number, hash, parent, time, transfers };
  }

  async #logTransfer(log: Json) {
    const topics = (log['topics'] ?? []) as string[];
    if (topics[0]?.toLowerCase() !== TRANSFER_TOPIC || log['removed'] === true) return null;
    const contractAddress = text(log['address'], 'log address').toLowerCase();
    const data = String(log['data'] ?? '0x');
    if (topics.length === 4) {
      return {
        from: topicAddress(topics[1]!),
        to: topicAddress(topics[2]!),
        contractAddress,
        tokenId: BigInt(topics[3]!).toString(),
        type: this.#types.nft,
        amountRaw: 1n,
        decimals: 0,
      };
    }
    if (topics.length !== 3 || !/^0x[0-9a-fA-F]{64}$/.test(data)) return null;
    return {
      from: topicAddress(topics[1]!),
      to: topicAddress(topics[2]!),
      contractAddress,
      tokenId: null,
      type: this.#types.fungible,
      amountRaw: BigInt(data),
      decimals: await this.#decimals(contractAddress),
    };
  }

  /** Receipts by lower-case transaction hash, all checked to belong to block `hash`. */
  async #receipts(number: bigint, hash: string, transactions: Json[]): Promise<Map<string, Json>> {
    let receipts: Json[] | null = null;
    if (this.#blockReceipts) {
      try {
        receipts = await this.#rpc.request<Json[] | null>('eth_getBlockReceipts', [hex(number)]);
      } catch (error) {
        if (!(error instanceof JsonRpcError)) throw error;
        if (error.code === -32601 || /not (found|supported|available)|does not exist/i.test(error.message)) {
          this.#blockReceipts = false;
        }
      }
    }
    if (receipts === null || receipts === undefined) {
      receipts = [];
      const hashes = transactions.map((tx) => text(tx['hash'], 'transaction hash'));
      for (let i = 0; i < hashes.length; i += RECEIPT_CONCURRENCY) {
        const batch = hashes.slice(i, i + RECEIPT_CONCURRENCY);
        const answers = await Promise.all(
          batch.map((h) => this.#rpc.request<Json | null>('eth_getTransactionReceipt', [h])),
        );
        for (const [j, receipt] of answers.entries()) {
          if (receipt === null)
            throw this.#invalid(`no receipt for ${batch[j]} of block ${number} (reorg in progress?)`);
          receipts.push(receipt);
        }
      }
    }
    const byHash = new Map<string, Json>();
    for (const receipt of receipts) {
      if (String(receipt['blockHash']).toLowerCase() !== hash) {
        throw this.#invalid(`receipts of block ${number} belong to another block (reorg in progress?)`);
      }
      byHash.set(text(receipt['transactionHash'], 'receipt hash').toLowerCase(), receipt);
    }
    return byHash;
  }

  #invalid(message: string): EvmInvalidResponseError {
    return new EvmInvalidResponseError(`${this.#chain} ${this.#network}: ${message}`);
  }
}

function hex(n: bigint): string {
  return `0x${n.toString(16)}`;
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new EvmInvalidResponseError(`node sent no ${what}`);
  return value;
}

function lower(value: unknown): string | null {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value) ? value.toLowerCase() : null;
}

/** An address in an indexed topic: the last 20 of its 32 bytes. */
function topicAddress(topic: string): string {
  return `0x${topic.slice(-40).toLowerCase()}`;
}
