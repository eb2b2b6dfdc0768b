// What the endpoints share: the devnet they serve and the shape of a route.
import type { Message } from '@ton/core';
import type { TonChain } from '../chain.ts';

export type Route = (query: URLSearchParams, body: unknown) => Promise<unknown>;

export interface ApiContext {
  chain: TonChain;
  globalId: number;
  /** Runs work on the emulator one piece at a time (block closes and get-methods never interleave). */
  serial<T>(job: () => Promise<T>): Promise<T>;
  /** Queues an external message for the next block. */
  submit(message: Message): void;
  /** Whether POST /message first runs the message on the current state and refuses what the account would. */
  refuseUnaccepted: boolean;
}
