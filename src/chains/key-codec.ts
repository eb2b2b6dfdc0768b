/** How a family makes, reads and names its keys (custody stores what it makes). */
import type { ChainKeyPair } from './types.ts';

/** How a family makes, reads and names its keys. */
export interface KeyCodec {
  generate(): ChainKeyPair;
  /** Throws for a malformed or out-of-range key. */
  fromPrivateKey(privateKey: string): ChainKeyPair;
  /** The forms `fromPrivateKey` takes, as a refusal names them (`64 hex characters`). */
  readonly privateKeyForm: string;
  /** The canonical form an address is stored and compared in. */
  normalizeAddress(address: string): string;
}
