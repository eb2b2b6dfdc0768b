/**
 * A family's chain library (tronweb, viem, @solana/kit, @scure/btc-signer): tens of MiB of code and
 * heap each, which a process that never uses the family should not pay for. A family reaches its library
 * only through `chainLibrary`, from the code that needs it (signing, building, decoding), so the library
 * loads the first time a chain of the family is used, by a request or a background task, and never at
 * start: the family's module (`index.ts`) and everything it imports stay light.
 */

const loaded = new Set<string>();

/** A loader of `name` that imports it once, when first awaited, and answers the same value after. */
export function chainLibrary<T>(name: string, load: () => Promise<T>): () => Promise<T> {
  let library: Promise<T> | undefined;
  return () => {
    if (library === undefined) {
      library = load().then(
        (value) => {
          loaded.add(name);
          return value;
        },
        (error: unknown) => {
          // A failed import is tried again by the next use rather than remembered.
          library = undefined;
          throw error;
        },
      );
    }
    return library;
  };
}

/** The chain libraries this process has loaded so far, by name. */
export function loadedChainLibraries(): string[] {
  return [...loaded];
}
