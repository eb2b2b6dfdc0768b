import { chainLibrary } from '../chain-library.ts';

/**
 * viem's clients and accounts (local signing, sender recovery, a transport for viem clients), loaded
 * when an EVM transaction is first signed or its sender recovered: the rest of viem's whole index (every
 * chain's definition, the actions, the clients), some 10 MiB, is more than a gateway serving no EVM send
 * needs. The pure helpers the family calls at every step (hex, ABI and transaction encoding) come from
 * `viem/utils`, which holds none of that.
 */
export const viem = chainLibrary('viem', () => import('viem'));

export const viemAccounts = chainLibrary('viem/accounts', () => import('viem/accounts'));
