import { chainLibrary } from '../chain-library.ts';

/**
 * @ton/core (cells, BOCs, message bodies), loaded the first time a TON body is read or built: a gateway
 * that serves no TON request never loads it. Addresses and keys, which every request's checks need, are
 * the family's own (address.ts, wallet-v5r1.ts).
 */
export const tonCore = chainLibrary('@ton/core', () => import('@ton/core'));

/** What `tonCore` answers, for helpers handed the loaded library. */
export type TonCore = Awaited<ReturnType<typeof tonCore>>;
