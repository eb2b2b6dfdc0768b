import { chainLibrary } from '../chain-library.ts';

/**
 * viem, in three parts each loaded the first time it is needed, never at start. `viemUtils` holds the
 * encoders and decoders (ABI, transactions, revert data), loaded when an EVM transaction or contract call
 * is first built or decoded (some 20 MiB); `viemAccounts` signs; `viem`'s whole index (every chain's
 * definition, the actions, the clients, some 10 MiB more) recovers a sender and makes viem transports.
 * The hex helpers every request needs are the family's own (hex.ts).
 */
export const viemUtils = chainLibrary('viem/utils', () => import('viem/utils'));

export const viemAccounts = chainLibrary('viem/accounts', () => import('viem/accounts'));

export const viem = chainLibrary('viem', () => import('viem'));
