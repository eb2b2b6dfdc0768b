/**
 * The webhook watcher's reader of a Bitcoin chain over a BitcoinBackend: every height holds a block
 * (Bitcoin never skips one), whose parent is the block below it.
 */
import type { BlockFollower, Finality, HeightReading } from '../follower.ts';
import type { Network, TransferEvent } from '../types.ts';
import type { BitcoinBackend } from './backend.ts';
import { transfersOf } from './block-transfers.ts';
import { mapBounded } from './bounded-map.ts';
import { BITCOIN_BLOCK_TIME_MS, BITCOIN_FINALITY } from './finality.ts';

/** Addresses whose mempool is asked at once. */
const ADDRESS_CONCURRENCY = 4;

export class BitcoinFollower implements BlockFollower {
  readonly finality: Finality;
  readonly blockTimeMs = BITCOIN_BLOCK_TIME_MS;
  readonly #backend: BitcoinBackend;
  readonly #network: Network;

  constructor(backend: BitcoinBackend, network: Network) {
    this.#backend = backend;
    this.#network = network;
    this.finality = BITCOIN_FINALITY[network];
  }

  async head(): Promise<bigint> {
    return BigInt(await this.#backend.tipHeight());
  }

  async read(height: bigint): Promise<HeightReading> {
    if (height < 0n || height > BigInt(Number.MAX_SAFE_INTEGER)) return { kind: 'not-yet' };
    const h = Number(height);
    if (h > (await this.#backend.tipHeight())) return { kind: 'not-yet' };
    // Null when the tip moved back (a reorg) between the two calls.
    const hash = await this.#backend.blockHash(h);
    if (hash === null) return { kind: 'not-yet' };
    const header = await this.#backend.blockHeader(hash);
    if (header === null) return { kind: 'not-yet' };
    const txs = await this.#backend.blockTransactions(hash);
    const where = { height: h, hash: header.hash, time: header.time };
    return {
      kind: 'block',
      block: {
        number: height,
        hash: header.hash,
        // The genesis block has no parent: it names an all-zero hash below it, as its header does.
        parent: { number: height - 1n, hash: header.previousHash ?? '0'.repeat(64) },
        time: new Date(header.time * 1000),
        transfers: txs.flatMap((tx) => transfersOf(tx, where, this.#network)),
      },
    };
  }

  /** The mempool's transfers to or from the addresses; each transaction once, however many it touches. */
  async unconfirmed(addresses: readonly string[]): Promise<TransferEvent[]> {
    const lists = await mapBounded(addresses, ADDRESS_CONCURRENCY, (address) =>
      this.#backend.mempoolTransactions(address),
    );
    const seen = new Set<string>();
    const now = Math.floor(Date.now() / 1000);
    return lists.flat().flatMap((tx) => {
      if (seen.has(tx.txid)) return [];
      seen.add(tx.txid);
      return transfersOf(tx, { height: 0, hash: '', time: now }, this.#network);
    });
  }
}
