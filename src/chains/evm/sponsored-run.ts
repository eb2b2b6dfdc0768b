/**
 * One run of a sponsored EVM transfer: the sponsor sends `from` exactly what the transfer lacks (nothing
 * when it holds enough), then the transfer goes out from `from` with the gas limit and max fee the top-up
 * was sized for, so it always covers it. Both sends take their nonce from the nonce manager, so jobs and
 * the sponsor's other sends never share one.
 *
 * Every signed transaction is noted in the journal (raw bytes and txid) before a node gets it: a run that
 * resumes after a crash finds it and broadcasts the same bytes again, so the sponsor never pays twice. A
 * noted transaction whose nonce another one took is dead (it can never be mined); only then is a new one
 * signed. What the sponsor lost is told to the journal exactly: the top-up's value and its fee.
 */
import type { Hex } from 'viem';
import { ApiError } from '../../errors.ts';
import { assetAmount } from '../amount.ts';
import { type SponsoredRun, SponsorshipRefused } from '../fee-sponsor.ts';
import type { EvmAdapter } from './adapter.ts';
import { EvmBroadcastUnknownError, EvmNonceError } from './errors.ts';
import type { EvmFees } from './fees.ts';
import { checksumAddress } from './keys.ts';
import type { NonceManager } from './nonce-manager.ts';
import { transactionOutcome } from './outcome.ts';
import { fundsCheck } from './sends.ts';
import {
  buildSponsoredTransfer,
  feeOverrides,
  maxFeePerGas,
  PAYMENT_GAS,
  spendableCoin,
  type TransferTerms,
  termsOf,
  topUpFor,
  transferNeeds,
} from './sponsor-plan.ts';
import { type UnsignedEvmTransaction, withTransactionNonce } from './transactions.ts';
import { WEI_DECIMALS } from './units.ts';

/** How a run waits for its transactions to be mined. */
export interface MiningWait {
  /** Between two receipt reads. */
  pollMs: number;
  /** After this long unmined the run stops (its job resumes it later, with the same bytes). */
  timeoutMs: number;
  /** A transaction still unmined after this many reads is broadcast again (a node may have lost it). */
  rebroadcastEvery: number;
}

export const DEFAULT_MINING_WAIT: MiningWait = {
  pollMs: 1_000,
  timeoutMs: 10 * 60_000,
  rebroadcastEvery: 30,
};

/** The journal's names for what a run notes. */
const NOTE = {
  gas: 'gas_limit',
  feeType: 'fee_type',
  maxFee: 'max_fee_per_gas_wei',
  tip: 'max_priority_fee_per_gas_wei',
  gasPrice: 'gas_price_wei',
  topUp: 'top_up_wei',
  topUpTxid: 'top_up_txid',
  topUpRaw: 'top_up_raw',
  transferTxid: 'transfer_txid',
  transferRaw: 'transfer_raw',
  /** What the top-up left at `from` once the transfer paid its real fee, in the coin's units. */
  leftOver: 'left_over',
} as const;

type Signed = { txid: Hex; raw: Hex };

export class EvmSponsoredRun {
  private readonly notes: Record<string, string>;

  constructor(
    private readonly run: SponsoredRun,
    private readonly adapter: EvmAdapter,
    private readonly nonces: NonceManager,
    private readonly wait: MiningWait,
  ) {
    this.notes = { ...run.journal.notes };
  }

  async complete(): Promise<{ txid: string }> {
    const { transfer, owner } = this.run;
    if (checksumAddress(owner.address) !== checksumAddress(transfer.from)) {
      throw new Error('the owner key of a sponsored run is not the key of its transfer.from');
    }
    const terms = await this.terms();
    await this.topUp(terms);
    const txid = await this.transfer(terms);
    return { txid };
  }

  /** The gas and fees the transfer goes out with: fixed by the first run, read back by a resumed one. */
  private async terms(): Promise<TransferTerms> {
    const noted = termsFromNotes(this.notes);
    if (noted !== null) return noted;
    const terms = termsOf(await buildSponsoredTransfer(this.adapter, this.run.transfer));
    await this.note(termsNotes(terms));
    return terms;
  }

  /** Sends `from` what it lacks (once, across resumes), waits for it, and tells the journal its cost. */
  private async topUp(terms: TransferTerms): Promise<void> {
    const { sponsor, transfer } = this.run;
    let sent = await this.resumed(NOTE.topUpTxid, NOTE.topUpRaw);
    if (sent === null) {
      // Nothing of a top-up went out yet: size it on what `from` holds now.
      const needs = transferNeeds(await buildSponsoredTransfer(this.adapter, transfer, terms));
      const value = topUpFor(needs, await spendableCoin(this.adapter, this.nonces, transfer.from));
      if (value === 0n) {
        await this.note({ [NOTE.topUp]: '0' });
        return;
      }
      const most = value + PAYMENT_GAS * maxFeePerGas(terms.fees);
      if (most > this.run.maxCost) {
        throw new SponsorshipRefused(
          `fees rose since the estimate: the top-up would now cost the sponsor up to ${most} wei, ${this.run.maxCost} wei was reserved; ask again`,
        );
      }
      const tx = await this.adapter.buildTransfer(sponsor.address, transfer.from, value, {
        ...feeOverrides(terms.fees),
        gas: PAYMENT_GAS,
      });
      sent = await this.send(tx, sponsor.privateKey, NOTE.topUpTxid, NOTE.topUpRaw, {
        [NOTE.topUp]: value.toString(),
      });
    } else if (sent === 'none') {
      return;
    }
    const receipt = await this.mined(sent);
    if (receipt['status'] === '0x0') {
      throw new SponsorshipRefused(`the top-up ${sent.txid} to ${transfer.from} reverted`);
    }
    const value = BigInt(this.notes[NOTE.topUp] ?? '0');
    await this.run.journal.spent('top_up', value, sent.txid);
    await this.run.journal.spent('top_up_fee', paidFee(receipt), sent.txid);
  }

  /** Sends the transfer from `from` with exactly `terms` (once, across resumes) and waits for it. */
  private async transfer(terms: TransferTerms): Promise<string> {
    const { owner, transfer } = this.run;
    let sent = await this.resumed(NOTE.transferTxid, NOTE.transferRaw);
    if (sent === null || sent === 'none') {
      const tx = await buildSponsoredTransfer(this.adapter, transfer, terms);
      sent = await this.send(tx, owner.privateKey, NOTE.transferTxid, NOTE.transferRaw, {});
    }
    const receipt = await this.mined(sent);
    const outcome = transactionOutcome(await this.adapter.getTransaction(sent.txid), receipt);
    await this.noteLeftOver(receipt);
    if (outcome.status !== 'SUCCESS') {
      throw new SponsorshipRefused(
        `the transfer ${sent.txid} failed on chain: ${outcome.reason ?? 'reverted'}`,
      );
    }
    return sent.txid;
  }

  /**
   * What the sponsor's top-up left at `from` after the transfer paid its real fee (and moved its value):
   * the part of the top-up the transfer did not use, never more than the top-up.
   */
  private async noteLeftOver(receipt: Record<string, unknown>): Promise<void> {
    if (this.notes[NOTE.leftOver] !== undefined) return;
    const topUp = BigInt(this.notes[NOTE.topUp] ?? '0');
    const unused = topUp - paidFee(receipt);
    const left = unused < 0n ? 0n : unused;
    await this.note({ [NOTE.leftOver]: assetAmount(left, WEI_DECIMALS) });
  }

  /**
   * A transaction noted by an earlier run: broadcast again when no node has it. Null when none was noted
   * or the one noted is dead (its nonce went to another transaction); 'none' for a top-up the first run
   * found unneeded.
   */
  private async resumed(txidNote: string, rawNote: string): Promise<Signed | 'none' | null> {
    if (txidNote === NOTE.topUpTxid && this.notes[NOTE.topUp] === '0') return 'none';
    const txid = this.notes[txidNote];
    const raw = this.notes[rawNote];
    if (txid === undefined || raw === undefined) return null;
    const signed = { txid: txid as Hex, raw: raw as Hex };
    return (await this.rebroadcast(signed)) ? signed : null;
  }

  /** True when the node has (or now takes) the transaction; false when its nonce went to another one. */
  private async rebroadcast(signed: Signed): Promise<boolean> {
    if ((await this.adapter.getTransaction(signed.txid)) !== null) return true;
    try {
      await this.adapter.broadcast(signed.raw);
      return true;
    } catch (error) {
      // The adapter answers a re-send of a transaction it knows as a success: "too low" means another one.
      if (error instanceof EvmNonceError && error.kind === 'too_low') return false;
      throw error;
    }
  }

  /**
   * Signs `tx` with the next nonce of its sender, notes it before any node gets it, and broadcasts it. A
   * broadcast without an answer is not a failure here: the bytes are noted, and waiting re-sends them.
   */
  private async send(
    tx: UnsignedEvmTransaction,
    key: string,
    txidNote: string,
    rawNote: string,
    extra: Record<string, string>,
  ): Promise<Signed> {
    let raw: Hex | null = null;
    const beforeBroadcast = async (hash: Hex) => {
      if (raw === null) throw new Error('signed transaction missing before its broadcast');
      await this.note({ ...extra, [txidNote]: hash, [rawNote]: raw });
    };
    const { chain, network } = this.run;
    try {
      const sent = await this.nonces.send(
        { chain, network, address: tx.from },
        this.adapter,
        async (nonce) => {
          raw = (await this.adapter.sign(await withTransactionNonce(tx, nonce), key)).raw;
          return raw;
        },
        fundsCheck(this.adapter, tx),
        beforeBroadcast,
      );
      return { txid: sent.hash, raw: sent.raw };
    } catch (error) {
      const noted = this.notes[txidNote];
      if (error instanceof EvmBroadcastUnknownError && noted !== undefined && raw !== null) {
        // No answer from the node: the noted bytes may be in its pool; waiting sends them again.
        return { txid: noted as Hex, raw };
      }
      throw error;
    }
  }

  /** The receipt of `signed`, re-broadcasting it now and then while it is unmined. */
  private async mined(signed: Signed): Promise<Record<string, unknown>> {
    const deadline = Date.now() + this.wait.timeoutMs;
    for (let reads = 1; ; reads++) {
      const receipt = await this.adapter.getReceipt(signed.txid);
      if (receipt !== null) return receipt;
      if (Date.now() >= deadline) {
        throw new ApiError(504, `${signed.txid} is not mined yet; the sponsored transfer resumes later`);
      }
      if (reads % this.wait.rebroadcastEvery === 0 && !(await this.rebroadcast(signed))) {
        throw new SponsorshipRefused(`${signed.txid} was replaced: another transaction took its nonce`);
      }
      await new Promise((resolve) => setTimeout(resolve, this.wait.pollMs));
    }
  }

  private async note(notes: Record<string, string>): Promise<void> {
    await this.run.journal.note(notes);
    Object.assign(this.notes, notes);
  }
}

/** What a mined transaction paid: gas used at the price it was charged. */
export function paidFee(receipt: Record<string, unknown>): bigint {
  const gasUsed = receipt['gasUsed'];
  const price = receipt['effectiveGasPrice'];
  if (typeof gasUsed !== 'string' || typeof price !== 'string') {
    throw new ApiError(502, 'the node sent a receipt without gasUsed or effectiveGasPrice');
  }
  return BigInt(gasUsed) * BigInt(price);
}

function termsNotes({ gas, fees }: TransferTerms): Record<string, string> {
  return fees.type === 'legacy'
    ? { [NOTE.gas]: gas.toString(), [NOTE.feeType]: 'legacy', [NOTE.gasPrice]: fees.gasPrice.toString() }
    : {
        [NOTE.gas]: gas.toString(),
        [NOTE.feeType]: 'eip1559',
        [NOTE.maxFee]: fees.maxFeePerGas.toString(),
        [NOTE.tip]: fees.maxPriorityFeePerGas.toString(),
      };
}

function termsFromNotes(notes: Record<string, string>): TransferTerms | null {
  const gas = notes[NOTE.gas];
  if (gas === undefined) return null;
  const whole = (name: string) => BigInt(notes[name] ?? '0');
  const fees: EvmFees =
    notes[NOTE.feeType] === 'legacy'
      ? { type: 'legacy', gasPrice: whole(NOTE.gasPrice) }
      : { type: 'eip1559', maxFeePerGas: whole(NOTE.maxFee), maxPriorityFeePerGas: whole(NOTE.tip) };
  return { gas: BigInt(gas), fees };
}
