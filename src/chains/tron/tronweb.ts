import { chainLibrary } from '../chain-library.ts';

/**
 * tronweb's utilities (transaction protobuf codec and checks, signing), loaded when a Tron transaction is
 * first built, checked or signed: about 20 MiB that a gateway serving no Tron request never loads.
 */
export const tronweb = chainLibrary('tronweb', async () => (await import('tronweb')).utils);
