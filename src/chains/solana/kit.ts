import { chainLibrary } from '../chain-library.ts';

/**
 * @solana/kit (the typed RPC, addresses, transaction messages, signing) and the System and Token
 * programs' instruction builders, each loaded the first time a Solana chain is used (a read, a build, a
 * send): some 20 MiB that a gateway serving no Solana request never loads. Base58 and base64, which
 * every request's checks need, are the family's own (codec.ts).
 */
export const solanaKit = chainLibrary('@solana/kit', () => import('@solana/kit'));

export const systemInstructions = chainLibrary(
  '@solana-program/system',
  () => import('@solana-program/system'),
);

export const tokenInstructions = chainLibrary('@solana-program/token', () => import('@solana-program/token'));

/** What `solanaKit` answers, for helpers handed the loaded library. */
export type SolanaKit = Awaited<ReturnType<typeof solanaKit>>;
