import type { FamilyModule, FamilyRead } from '../chains/family.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { ChainName, Network } from '../chains/types.ts';
import { ApiError } from '../errors.ts';
import type { TransactionLog } from './transaction-log.ts';

export interface ChainReadsDeps {
  registry: ChainRegistry;
  /** The family that serves a chain (its reads). */
  familyOf: (chain: ChainName) => FamilyModule | undefined;
  /** The send history: why a send of the asker's the node does not know failed (a dropped one). */
  transactions?: TransactionLog;
}

/** Where a read asks: which chain, on which network; who asks, for the lookups of their own sends. */
export interface ReadTarget {
  chain: ChainName;
  network: Network;
  userId?: string;
}

/** Every family's answer to a lookup of a transaction its node does not have. */
const NOT_FOUND = 'transaction not found';

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
    return this.lookUp(target, (reads) => reads.transaction, txid);
  }

  decodedTransaction(target: ReadTarget, txid: string): Promise<unknown> {
    return this.lookUp(target, (reads) => reads.decodedTransaction, txid);
  }

  receipt(target: ReadTarget, txid: string): Promise<unknown> {
    return this.lookUp(target, (reads) => reads.receipt, txid);
  }

  decodedReceipt(target: ReadTarget, txid: string): Promise<unknown> {
    return this.lookUp(target, (reads) => reads.decodedReceipt, txid);
  }

  balance(target: ReadTarget, address: string): Promise<unknown> {
    return this.ask(target, (reads) => reads.balance, address);
  }

  /**
   * A transaction lookup. One the node does not have stays 422 `transaction not found`; when it is a
   * send of the asker's that the history has failed (dropped by the node), the answer says why.
   */
  private async lookUp(
    target: ReadTarget,
    pick: (reads: FamilyModule['reads']) => FamilyRead<[txid: string]>,
    txid: string,
  ): Promise<unknown> {
    try {
      return await this.ask(target, pick, txid);
    } catch (error) {
      const { transactions } = this.deps;
      const notFound = error instanceof ApiError && error.status === 422 && error.message === NOT_FOUND;
      if (!notFound || transactions === undefined || target.userId === undefined) throw error;
      const why = await transactions.failureOf(target.userId, target.chain, target.network, txid);
      throw why === null ? error : new ApiError(422, `${NOT_FOUND}: ${why}`);
    }
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
