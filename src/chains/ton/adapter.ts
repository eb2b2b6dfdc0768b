/**
 * TonAdapter: the one object routes and services use for TON. Everything goes through toncenter's v3
 * API (toncenter.ts) on the shared NodeClient. The watcher reads the chain by masterchain seqno: each
 * masterchain block closes the shard blocks made since the one before, so its transactions are every
 * transaction the chain made in between.
 */
import type { NodeEndpointConfig } from '../../config.ts';
import { type AdapterConnection, adapterNodeClient, connectionOf } from '../adapter-connection.ts';
import type { AdapterContext, AdapterFactory } from '../adapter-context.ts';
import type { ChainAdapter } from '../chain-adapter.ts';
import type { BlockFollower, HeightReading } from '../follower.ts';
import type { NodeClient } from '../node-client.ts';
import type { Network } from '../types.ts';
import { isTonAddress } from './address.ts';
import { hexHash, NANOTON_DECIMALS, transactionTransfers, transferEvent } from './block-transfers.ts';
import { TON_BLOCK_TIME_MS, TON_FINALITY } from './finality.ts';
import { Jettons } from './jettons.ts';
import { TonNodeAnswerError } from './node-answer.ts';
import { Toncenter, type TonTransaction } from './toncenter.ts';
import { TraceIds } from './trace-ids.ts';

/** toncenter's public v3 endpoints (rate-limited without an API key: TON_API_KEY). */
export const TON_DEFAULT_ENDPOINTS: Record<Network, NodeEndpointConfig[]> = {
  mainnet: [{ url: 'https://toncenter.com', headers: {} }],
  testnet: [{ url: 'https://testnet.toncenter.com', headers: {} }],
};

/** How many masterchain blocks' hashes the follower remembers, to name a block's parent without asking. */
const REMEMBERED_HASHES = 64;

export class TonAdapter implements ChainAdapter {
  readonly chain = 'ton' as const;
  readonly network: Network;
  readonly nativeSymbol = 'TON';
  readonly nativeDecimals = NANOTON_DECIMALS;
  readonly follower: BlockFollower;
  readonly toncenter: Toncenter;
  /** Jetton wallets and masters, asked of the contracts and remembered. */
  readonly jettons: Jettons;
  /** The id of each transaction's trace: what the send that made a payment answered. */
  readonly traces: TraceIds;
  readonly #client: NodeClient;
  /** Masterchain seqno -> root hash (hex) of the blocks read lately. */
  readonly #hashes = new Map<number, string>();

  constructor(options: AdapterConnection) {
    this.network = options.network;
    this.#client = adapterNodeClient('ton', options);
    this.toncenter = new Toncenter(this.#client);
    this.jettons = new Jettons(this.toncenter);
    this.traces = new TraceIds(this.toncenter);
    this.follower = {
      finality: TON_FINALITY[options.network],
      blockTimeMs: TON_BLOCK_TIME_MS,
      head: () => this.getBlockNumber(),
      read: (height) => this.#readHeight(height),
    };
  }

  isAddress(value: string): boolean {
    return isTonAddress(value);
  }

  /** The newest masterchain seqno the indexer has. */
  async getBlockNumber(): Promise<bigint> {
    return BigInt((await this.toncenter.masterchainInfo()).last.seqno);
  }

  /** An address's balance in nanotons (0 for one the chain has never seen). */
  async getBalance(address: string): Promise<bigint> {
    return (await this.toncenter.account(address)).balance;
  }

  disableEndpoint(endpoint: string): number {
    return this.#client.disableEndpoint(endpoint);
  }

  async close(): Promise<void> {
    await this.#client.close();
  }

  /** The root hash (hex) of masterchain block `seqno`; null when the indexer has no such block. */
  async #blockHash(seqno: number): Promise<string | null> {
    const known = this.#hashes.get(seqno);
    if (known !== undefined) return known;
    const block = await this.toncenter.block(seqno);
    return block === null ? null : this.#remember(seqno, hexHash(block.rootHash));
  }

  #remember(seqno: number, hash: string): string {
    this.#hashes.set(seqno, hash);
    for (const old of this.#hashes.keys()) {
      if (this.#hashes.size <= REMEMBERED_HASHES) break;
      this.#hashes.delete(old);
    }
    return hash;
  }

  /**
   * One masterchain block for the watcher, with every transfer its transactions made (those that did not
   * stay marked failed), each under its trace's id.
   */
  async #readHeight(height: bigint): Promise<HeightReading> {
    if (height > BigInt(Number.MAX_SAFE_INTEGER)) return { kind: 'not-yet' };
    const seqno = Number(height);
    const block = await this.toncenter.block(seqno);
    if (block === null) return { kind: 'not-yet' };
    const hash = this.#remember(seqno, hexHash(block.rootHash));
    const parentSeqno = block.prevBlocks[0]?.seqno ?? seqno - 1;
    // The first block of a chain has no parent to name.
    const parentHash = block.prevBlocks.length === 0 ? '' : await this.#blockHash(parentSeqno);
    if (parentHash === null) {
      throw new TonNodeAnswerError(
        'ton',
        this.network,
        `ton ${this.network} node has block ${seqno} but not its parent ${parentSeqno}`,
      );
    }
    const time = new Date(block.genUtime * 1000);
    const transactions = await this.toncenter.transactionsOfBlock(seqno);
    const byHash = new Map<string, TonTransaction>(transactions.map((tx) => [hexHash(tx.hash), tx]));
    const transfers = [];
    for (const [position, tx] of transactions.entries()) {
      const made = await transactionTransfers(tx, this.jettons);
      if (made.length === 0) continue;
      const txid = await this.traces.of(tx, byHash);
      for (const transfer of made) {
        transfers.push(
          transferEvent(
            transfer,
            { txid, logIndex: position },
            { chain: 'ton', network: this.network, number: height, hash, time },
          ),
        );
      }
    }
    return {
      kind: 'block',
      block: {
        number: height,
        hash,
        parent: { number: BigInt(parentSeqno), hash: parentHash },
        time,
        transfers,
      },
    };
  }
}

export const tonAdapterFactory: AdapterFactory = (context: AdapterContext) =>
  new TonAdapter(connectionOf(context));
