import type { FamilyModule, FamilyRead } from '../chains/family.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { ChainName, Network } from '../chains/types.ts';
import { ApiError } from '../errors.ts';

export interface ChainReadsDeps {
  registry: ChainRegistry;
  /** The family that serves a chain (its reads). */
  familyOf: (chain: ChainName) => FamilyModule | undefined;
}

/** Where a read asks: which chain, on which network. */
export interface ReadTarget {
  chain: ChainName;
  network: Network;
}

/**
 * The reads every chain has: head, blocks, transactions, receipts, native balances. The node is the
 * chain's served one (404 `Unsupported blockchain` otherwise); the answer is the family's
 * (`FamilyModule.reads`).
 */
export class ChainReads {
  constructor(private readonly deps: ChainReadsDeps) {}

  blockNumber(target: ReadTarget): Promise<unknown> {
    return this.ask(target, (reads) => reads.blockNumber);
  }

  block(target: ReadTarget, id: string): Promise<unknown> {
    return this.ask(target, (reads) => reads.block, id);
  }

  transaction(target: ReadTarget, txid: string): Promise<unknown> {
    return this.ask(target, (reads) => reads.transaction, txid);
  }

  decodedTransaction(target: ReadTarget, txid: string): Promise<unknown> {
    return this.ask(target, (reads) => reads.decodedTransaction, txid);
  }

  receipt(target: ReadTarget, txid: string): Promise<unknown> {
    return this.ask(target, (reads) => reads.receipt, txid);
  }

  decodedReceipt(target: ReadTarget, txid: string): Promise<unknown> {
    return this.ask(target, (reads) => reads.decodedReceipt, txid);
  }

  balance(target: ReadTarget, address: string): Promise<unknown> {
    return this.ask(target, (reads) => reads.balance, address);
  }

  /** One read of the family that serves the target's chain, asked of that chain's node. */
  private async ask<Input extends unknown[]>(
    { chain, network }: ReadTarget,
    pick: (reads: FamilyModule['reads']) => FamilyRead<Input>,
    ...input: Input
  ): Promise<unknown> {
    const adapter = this.deps.registry.get(chain, network);
    const family = this.deps.familyOf(chain);
    if (family === undefined) throw new ApiError(404, 'Unsupported blockchain');
    return pick(family.reads).read(adapter, ...input);
  }
}
