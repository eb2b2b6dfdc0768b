/**
 * The sponsor's messages, one wallet at a time. A V5R1 wallet takes one external message per seqno, and a
 * message signed on a seqno another one took never lands: so the sponsor's messages go one after the
 * other, each in a turn at its wallet (wallet-turns.ts) from reading the wallet to its landing. One message sends up to 255 internal
 * messages: the transfers that wait while one is on its way ride together in the next, each carried to its
 * own owner's wallet, so a sweep of many addresses takes a few messages rather than one per address.
 *
 * Every job of a message notes it (with its place in it) before the node gets it; a message one of them
 * could not note is not sent, and all of them fail this run.
 */
import type { Network } from '../types.ts';
import type { NotedMessage } from './sponsored-landing.ts';
import type { Carrier, SignedExternal } from './sponsored-messages.ts';
import type { TonTransaction } from './toncenter.ts';
import type { WalletTurns } from './wallet-turns.ts';

/** Internal messages one sponsor message carries at most (V5R1 sends up to 255). */
export const MAX_CARRIED = 100;

/** One transfer waiting for a ride. */
export interface Passenger {
  carrier: Carrier;
  /** Keeps the message in the job's journal, before it is sent. */
  note(noted: NotedMessage): Promise<void>;
}

/** How a lane's messages are signed and taken to the chain. */
export interface Flight {
  /** The sponsor's message carrying `carriers`, on a seqno after `taken` (the last one the wallet was seen to take). */
  sign(
    carriers: Carrier[],
    taken: number,
  ): Promise<{ signed: SignedExternal; seqno: number; validUntil: number }>;
  land(noted: NotedMessage): Promise<TonTransaction | 'expired'>;
}

interface Seat {
  passenger: Passenger;
  resolve(landed: TonTransaction | 'expired'): void;
  reject(error: unknown): void;
}

export class SponsorBatches {
  readonly #waiting = new Map<string, Seat[]>();
  readonly #flying = new Set<string>();

  constructor(private readonly turns: WalletTurns) {}

  /**
   * Sends `passenger`'s carrier in the next message of the sponsor's `wallet` (raw); answers the
   * transaction that message landed in.
   */
  ride(
    network: Network,
    wallet: string,
    passenger: Passenger,
    flight: Flight,
  ): Promise<TonTransaction | 'expired'> {
    const lane = `${network}:${wallet}`;
    return new Promise((resolve, reject) => {
      const waiting = this.#waiting.get(lane) ?? [];
      waiting.push({ passenger, resolve, reject });
      this.#waiting.set(lane, waiting);
      if (!this.#flying.has(lane)) void this.#fly(network, wallet, flight);
    });
  }

  async #fly(network: Network, wallet: string, flight: Flight): Promise<void> {
    const lane = `${network}:${wallet}`;
    this.#flying.add(lane);
    try {
      for (let batch = this.#board(lane); batch.length > 0; batch = this.#board(lane)) {
        try {
          const landed = await this.turns.take(network, wallet, async (turn) => {
            const carriers = batch.map((seat) => seat.passenger.carrier);
            const { signed, seqno, validUntil } = await flight.sign(carriers, turn.taken);
            const message = { hash: signed.hash, boc: signed.boc, validUntil };
            await Promise.all(
              batch.map((seat, index) => seat.passenger.note({ ...message, index, size: batch.length })),
            );
            const landed = await flight.land({ ...message, index: 0, size: batch.length });
            if (landed !== 'expired' && landed.computeSuccess !== false) await turn.took(seqno);
            return landed;
          });
          for (const seat of batch) seat.resolve(landed);
        } catch (error) {
          for (const seat of batch) seat.reject(error);
        }
      }
    } finally {
      this.#flying.delete(lane);
    }
  }

  /** The next message's passengers: the longest waiting, one per owner's wallet, at most MAX_CARRIED. */
  #board(lane: string): Seat[] {
    const waiting = this.#waiting.get(lane) ?? [];
    const batch: Seat[] = [];
    const owners = new Set<string>();
    const left: Seat[] = [];
    for (const seat of waiting) {
      // Two requests to one wallet in one message: the second would carry a seqno the first just used.
      if (batch.length < MAX_CARRIED && !owners.has(seat.passenger.carrier.to)) {
        owners.add(seat.passenger.carrier.to);
        batch.push(seat);
      } else left.push(seat);
    }
    if (left.length === 0) this.#waiting.delete(lane);
    else this.#waiting.set(lane, left);
    return batch;
  }
}
