import { chainLibrary } from '../chain-library.ts';

/**
 * @scure/btc-signer (transactions, PSBTs), loaded when a Bitcoin transaction is first built or read: a
 * gateway that builds none never loads it.
 */
export const btcSigner = chainLibrary('@scure/btc-signer', () => import('@scure/btc-signer'));
