/**
 * One step of a sponsored job on Tron: a transaction signed, noted in the job's journal before the node
 * gets it, broadcast, and waited for until mined. A step resumed after a crash never sends a second
 * transaction while its first may still land: the noted one is looked up on chain, broadcast again
 * (the node answers a duplicate as the same transaction), and only a noted transaction that has
 * expired unseen is replaced by a new one.
 */
import type { SponsorJournal } from '../fee-sponsor.ts';
import type { TronAdapter } from './adapter.ts';
import { TronBroadcastError } from './errors.ts';
import type { NodeJson } from './node-api.ts';
import { int } from './resources.ts';
import type { SignedTronTransaction, TronTransaction } from './types.ts';

/** How long and how often a step waits for its transaction to be mined. */
export interface MiningWait {
  pollMs: number;
  timeoutMs: number;
}

/** A transaction not mined within the wait: the job stops here and resumes from its journal later. */
export class NotMinedYet extends Error {
  constructor(txid: string) {
    super(`transaction ${txid} is not mined yet`);
    this.name = 'NotMinedYet';
  }
}

/** Mined: the transaction's id and its gettransactioninfobyid answer. */
export interface MinedStep {
  txid: string;
  info: NodeJson;
}

export class SponsorSteps {
  constructor(
    private readonly adapter: TronAdapter,
    private readonly journal: SponsorJournal,
    private readonly wait: MiningWait,
  ) {}

  /** The journal key of a step's signed transaction. */
  static txKey(step: string): string {
    return `${step}.tx`;
  }

  /** The txid a step noted, if any. */
  notedTxid(step: string): string | null {
    const noted = this.journal.notes[SponsorSteps.txKey(step)];
    return noted === undefined ? null : (JSON.parse(noted) as SignedTronTransaction).txID;
  }

  /**
   * Runs `step` to its mined transaction: the noted one when it landed or still can, else a new one from
   * `build`, signed with `privateKey`. A refusal by the node throws TronBroadcastError.
   */
  async run(step: string, privateKey: string, build: () => Promise<TronTransaction>): Promise<MinedStep> {
    const noted = this.journal.notes[SponsorSteps.txKey(step)];
    if (noted !== undefined) {
      const landed = await this.#landed(JSON.parse(noted) as SignedTronTransaction);
      if (landed) return landed;
    }
    const signed = await this.adapter.sign(await build(), privateKey);
    await this.journal.note({ [SponsorSteps.txKey(step)]: JSON.stringify(signed) });
    await this.adapter.broadcast(signed);
    return this.#mined(signed.txID);
  }

  /**
   * What became of a step's noted transaction, without sending it again (an unwind lends nothing): its
   * mined info, or null when none was noted or it expired unmined; NotMinedYet while it may still land.
   */
  async settled(step: string): Promise<MinedStep | null> {
    const noted = this.journal.notes[SponsorSteps.txKey(step)];
    if (noted === undefined) return null;
    const signed = JSON.parse(noted) as SignedTronTransaction;
    const deadline = Date.now() + this.wait.timeoutMs;
    for (;;) {
      const info = await this.minedInfo(signed.txID);
      if (info) return { txid: signed.txID, info };
      if ((await this.#headTime()) > BigInt(signed.raw_data.expiration)) {
        const late = await this.minedInfo(signed.txID);
        return late ? { txid: signed.txID, info: late } : null;
      }
      if (Date.now() >= deadline) throw new NotMinedYet(signed.txID);
      await new Promise((resolve) => setTimeout(resolve, this.wait.pollMs));
    }
  }

  /** The head block's time (ms): a transaction expiring before it can be included no more. */
  async #headTime(): Promise<bigint> {
    const block = await this.adapter.getBlock(String(await this.adapter.getBlockNumber()));
    const header = (block?.['block_header'] ?? {}) as NodeJson;
    return int(((header['raw_data'] ?? {}) as NodeJson)['timestamp']);
  }

  /** The mined info of `txid`, or null when the chain has no such transaction (yet). */
  async minedInfo(txid: string): Promise<NodeJson | null> {
    const info = await this.adapter.getTransactionInfo(txid);
    return info !== null && info['blockNumber'] !== undefined ? info : null;
  }

  /** A noted transaction mined, or sent again and mined; null when it expired without landing. */
  async #landed(signed: SignedTronTransaction): Promise<MinedStep | null> {
    const info = await this.minedInfo(signed.txID);
    if (info) return { txid: signed.txID, info };
    try {
      await this.adapter.broadcast(signed);
    } catch (error) {
      if (!(error instanceof TronBroadcastError) || error.code !== 'TRANSACTION_EXPIRATION_ERROR')
        throw error;
      // Expired: it can land no more, unless it did between the two questions.
      const late = await this.minedInfo(signed.txID);
      return late ? { txid: signed.txID, info: late } : null;
    }
    return this.#mined(signed.txID);
  }

  async #mined(txid: string): Promise<MinedStep> {
    const deadline = Date.now() + this.wait.timeoutMs;
    for (;;) {
      const info = await this.minedInfo(txid);
      if (info) return { txid, info };
      if (Date.now() >= deadline) throw new NotMinedYet(txid);
      await new Promise((resolve) => setTimeout(resolve, this.wait.pollMs));
    }
  }
}
