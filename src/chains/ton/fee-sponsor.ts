/**
 * TON's fee sponsor (the paymaster, sweeps), the way TON's gasless transfers pay: the owner's V5R1 wallet
 * signs its transfer as a signed internal request, and the sponsor's wallet sends that request to it in
 * an internal message carrying the TON the transfer needs (and the wallet's code and data while it is
 * not deployed). A jetton transfer names the sponsor as its response destination, so what the jetton
 * wallets leave comes back to the sponsor. The owner needs no TON (sponsored-plan.ts says what is sent).
 *
 * A wallet takes one message per seqno: the sponsor's messages go one at a time (wallet-turns.ts, across
 * the gateway's instances), and the transfers that wait meanwhile ride together in the next one
 * (sponsor-batches.ts); an owner's wallet runs its transfer in its own turn, so no other send from it
 * takes the seqno its request carries. What the sponsor lost is read from the transactions of each
 * transfer's trace once it has ended, with its share of the message's fee (sponsored-landing.ts), and
 * told to the ledger exactly.
 */
import { ApiError, invalidField } from '../../errors.ts';
import { boundedAmountField } from '../amount-field.ts';
import {
  type FeeSponsor,
  type PaymasterRequest,
  type SponsoredRun,
  type SponsoredTransfer,
  type SponsorQuote,
  SponsorshipRefused,
} from '../fee-sponsor.ts';
import { NodeHttpError } from '../node-client.ts';
import type { ChainRegistry } from '../registry.ts';
import type { ChainName, Network } from '../types.ts';
import { TonAdapter } from './adapter.ts';
import { tonAddressForm } from './address-form.ts';
import { hexHash, NANOTON_DECIMALS, succeeded } from './block-transfers.ts';
import { shownContract } from './decoded-transaction.ts';
import { ton } from './fees.ts';
import { amountDecimals } from './jettons.ts';
import { tonStoredAddress } from './keys.ts';
import { SponsorBatches } from './sponsor-batches.ts';
import {
  balanceLoss,
  carriedCost,
  DEFAULT_LANDING_WAIT,
  type LandingWait,
  land,
  type NotedMessage,
  notedMessage,
  noteMessage,
  receivedFrom,
  type Trace,
  traceFrom,
  traceOf,
} from './sponsored-landing.ts';
import type { OwnerRequest, WalletSigner } from './sponsored-messages.ts';
import {
  estimatedFee,
  type OwnerWallet,
  ownerWallet,
  type SponsoredMessages,
  sponsoredMessages,
  type TransferPlan,
  transferPlan,
} from './sponsored-plan.ts';
import { readMaster } from './token-reads.ts';
import type { TonTransaction } from './toncenter.ts';
import type { WalletTurn, WalletTurns } from './wallet-turns.ts';

/** The paymaster types, as the family's transfers are named (`transferTypes`). */
const SPONSORED_TYPES = ['TON', 'JETTON'] as const;
/** The largest amount a message carries: a `VarUInteger 16` holds at most 2^120 - 1. */
const COINS_MAX = 2n ** 120n - 1n;
/** Messages a run signs at most when each one expires before it lands. */
const MAX_BUILDS = 3;
/**
 * Over the node's estimate of the sponsor's own fee, in tenths: the storage fee a wallet pays grows with
 * the time since its last transaction, so the fee when the job runs is a little more than when quoted.
 */
const FEE_CUSHION_TENTHS = 11n;
/**
 * The fee of a wallet's first message, which deploys it, where it cannot be estimated (the wallet's key,
 * which its code and data hold, is not known when quoting): well above what a V5R1 deployment costs.
 */
const FIRST_MESSAGE_NANOTONS = 10_000_000n;
/** Estimates of the sponsor's fee at most, while its seqno moves under them (its messages landing meanwhile). */
const FEE_ESTIMATES = 3;
/** A key of the right size, for estimates that only need a message's size and not its signer. */
const STAND_IN_KEY = Buffer.alloc(32, 1);

export interface TonFeeSponsorOptions {
  /** Seconds a sponsor's message is valid for. */
  lifetimeS?: number;
  wait?: LandingWait;
  now?: () => number;
}

export class TonFeeSponsor implements FeeSponsor {
  /** The sponsors' messages, carrying the transfers that wait together. */
  readonly #batches: SponsorBatches;
  readonly #lifetimeS: number;
  readonly #wait: LandingWait;
  readonly #now: () => number;

  constructor(
    private readonly registry: ChainRegistry,
    private readonly turns: WalletTurns,
    options: TonFeeSponsorOptions = {},
  ) {
    this.#batches = new SponsorBatches(turns);
    this.#lifetimeS = options.lifetimeS ?? 60;
    this.#wait = options.wait ?? DEFAULT_LANDING_WAIT;
    this.#now = options.now ?? Date.now;
  }

  types(_chain: ChainName): readonly string[] {
    return SPONSORED_TYPES;
  }

  async transfer(_chain: ChainName, network: Network, request: PaymasterRequest): Promise<SponsoredTransfer> {
    const from = addressField('from', request.from, network);
    const to = addressField('to', request.to, network);
    if (request.amount === undefined || request.amount === '') {
      throw invalidField('amount', 'The amount field is required.');
    }
    const contract = request.contractaddress ?? '';
    if (request.type === 'TON') {
      if (contract !== '') throw invalidField('contractaddress', 'A TON transfer takes no contractaddress.');
      const units = positive(request.amount, NANOTON_DECIMALS);
      return { type: 'TON', from, to, contract: null, tokenId: null, units, decimals: NANOTON_DECIMALS };
    }
    if (request.type !== 'JETTON') {
      throw invalidField('type', `The type field must be one of ${SPONSORED_TYPES.join(', ')} on TON.`);
    }
    if (contract === '') {
      throw invalidField('contractaddress', "The contractaddress field is required: the jetton's master.");
    }
    addressField('contractaddress', contract, network);
    const master = await readMaster(this.adapter(network), contract, 422);
    const decimals = amountDecimals(master);
    const units = positive(request.amount, decimals);
    return {
      type: 'JETTON',
      from,
      to,
      contract: shownContract(master.master, network),
      tokenId: null,
      units,
      decimals,
    };
  }

  /**
   * What the sponsor attaches and its own fee (the node's estimate, with a little over it for the storage
   * fee that grows meanwhile): the most the transfer can cost it, as the excess only comes back.
   */
  async quote(
    _chain: ChainName,
    network: Network,
    transfer: SponsoredTransfer,
    sponsor: string,
  ): Promise<SponsorQuote> {
    const adapter = this.adapter(network);
    const messages = await sponsoredMessages();
    const plan = await this.plan(adapter, messages, transfer, sponsor);
    if (plan.kind === 'self-paid') {
      return {
        maxCost: 0n,
        answer: { attached: '0', sponsor_fee: '0', paymaster_fee: '0', paid_by: 'owner' },
      };
    }
    const fee = await this.sponsorFee(adapter, messages, network, transfer, plan, sponsor, null);
    const quotedFee = (fee * FEE_CUSHION_TENTHS + 9n) / 10n;
    const maxCost = plan.attached + quotedFee;
    return {
      maxCost,
      answer: {
        attached: ton(plan.attached),
        sponsor_fee: ton(quotedFee),
        paymaster_fee: ton(maxCost),
        paid_by: 'sponsor',
      },
    };
  }

  /**
   * Resumes the message an earlier run noted while it can still land; else signs, notes and sends a new
   * one (at most MAX_BUILDS while they expire). Records what the sponsor lost from the landed trace.
   */
  async run(run: SponsoredRun): Promise<{ txid: string }> {
    const adapter = this.adapter(run.network);
    const messages = await sponsoredMessages();
    const ownerKey = messages.publicKeyOf(run.owner.privateKey);
    const ownerAddress = messages.v5r1Wallet(ownerKey, run.network).address.toRawString();
    if (ownerAddress !== messages.rawOf(run.transfer.from)) {
      throw new SponsorshipRefused(`the owner's key is not the key of ${run.transfer.from}`);
    }
    // The owner's wallet runs the transfer on its next seqno: no other send from it meanwhile.
    return this.turns.take(run.network, ownerAddress, async (turn) => {
      const earlier = notedMessage(run.journal.notes);
      if (earlier !== null) {
        const landed = await land(adapter, earlier, this.#wait);
        if (landed !== 'expired') return this.settled(adapter, messages, run, landed, earlier);
      }
      for (let built = 0; built < MAX_BUILDS; built++) {
        const { landed, noted, ownerSeqno } = await this.signAndLand(adapter, messages, run, ownerKey, turn);
        if (landed !== 'expired') {
          const settled = await this.settled(adapter, messages, run, landed, noted);
          // Settled: the owner's wallet ran the transfer, on that seqno.
          await turn.took(ownerSeqno);
          return settled;
        }
      }
      throw new SponsorshipRefused(
        `the message was not taken on chain before it expired, ${MAX_BUILDS} times`,
      );
    });
  }

  /** Nothing is lent on TON: the sponsor attaches TON, and what is left comes back on its own. */
  async unwind(_run: SponsoredRun): Promise<void> {}

  async decimals(_chain: ChainName, network: Network, contract: string | null): Promise<number> {
    if (contract === null) return NANOTON_DECIMALS;
    addressField('contractaddress', contract, network);
    return amountDecimals(await readMaster(this.adapter(network), contract, 422));
  }

  /** TON: the wallet's balance. A jetton: what the owner's jetton wallet holds (0 while it has none). */
  async holding(
    _chain: ChainName,
    network: Network,
    address: string,
    contract: string | null,
  ): Promise<bigint> {
    const adapter = this.adapter(network);
    if (contract === null) return adapter.getBalance(address);
    const { rawOf } = await sponsoredMessages();
    const master = await readMaster(adapter, contract, 422);
    const wallet = await adapter.jettons.walletOf(master.master, rawOf(address));
    return wallet === null ? 0n : ((await adapter.jettons.walletData(wallet))?.balance ?? 0n);
  }

  /** A jetton: all of it (none: null). TON: all but the fee of the wallet's own message; null when that leaves nothing. */
  async sweepUnits(
    _chain: ChainName,
    network: Network,
    address: string,
    contract: string | null,
    held: bigint,
  ): Promise<bigint | null> {
    if (contract !== null) return held > 0n ? held : null;
    const adapter = this.adapter(network);
    const messages = await sponsoredMessages();
    const owner = await ownerWallet(adapter, messages.rawOf(address));
    const fee = await this.selfPaidFee(adapter, messages, network, address, owner);
    return held > fee ? held - fee : null;
  }

  private async plan(
    adapter: TonAdapter,
    messages: SponsoredMessages,
    transfer: SponsoredTransfer,
    sponsor: string,
  ): Promise<TransferPlan> {
    const plan = await transferPlan(adapter, messages, transfer, sponsor, (owner) =>
      this.selfPaidFee(adapter, messages, adapter.network, transfer.from, owner),
    );
    // Its request would carry the seqno its own carrying message takes: the wallet would refuse it.
    if (plan.kind === 'sponsored' && messages.rawOf(transfer.from) === messages.rawOf(sponsor)) {
      throw new ApiError(422, `${transfer.from} is the sponsor: it cannot sponsor its own transfer`);
    }
    return plan;
  }

  /**
   * The fee of the owner's own message moving all its TON, as the node estimates it. A wallet not deployed
   * is given the most a first message costs, whether its key is known or not, so that a sweep's amount and
   * its run agree.
   */
  private async selfPaidFee(
    adapter: TonAdapter,
    messages: SponsoredMessages,
    network: Network,
    owner: string,
    wallet: OwnerWallet,
  ): Promise<bigint> {
    if (wallet.status !== 'active') return FIRST_MESSAGE_NANOTONS;
    const request: OwnerRequest = {
      network,
      owner: { publicKey: STAND_IN_KEY, seed: null },
      seqno: wallet.seqno,
      validUntil: this.validUntil(),
      actions: [
        {
          to: messages.rawOf(owner),
          value: 0n,
          bounce: false,
          body: null,
          mode: messages.OWNER_MODES.carryBalance,
        },
      ],
    };
    const { body } = await messages.ownerExternal(request, false);
    try {
      return estimatedFee(
        await adapter.toncenter.estimateFee({
          address: messages.rawOf(owner),
          body: messages.bocOf(body),
          ignoreChksig: true,
        }),
      );
    } catch (error) {
      // The node refuses to run a message whose wallet is too poor to buy its gas: it cannot pay itself.
      if (error instanceof NodeHttpError && error.status === 500) return wallet.balance;
      throw error;
    }
  }

  /** The sponsor's fee for the message carrying `plan`, as the node estimates it (zero-signed). */
  private async sponsorFee(
    adapter: TonAdapter,
    messages: SponsoredMessages,
    network: Network,
    transfer: SponsoredTransfer,
    plan: TransferPlan,
    sponsor: string,
    sponsorKey: Buffer | null,
  ): Promise<bigint> {
    const sponsorRaw = messages.rawOf(sponsor);
    const owner: WalletSigner = { publicKey: STAND_IN_KEY, seed: null };
    const carrier = await this.carrier(messages, network, transfer, plan, owner);
    for (let attempt = 1; ; attempt++) {
      const sponsorWallet = await ownerWallet(adapter, sponsorRaw);
      const deploy = sponsorWallet.status !== 'active';
      if (deploy && sponsorKey === null) return FIRST_MESSAGE_NANOTONS;
      // The wallet refuses a message whose seqno is not its own: the next one after those seen landing.
      const seqno = Math.max(sponsorWallet.seqno, (await this.turns.taken(network, sponsorRaw)) + 1);
      const { body, init } = await messages.sponsorBody({
        network,
        sponsor: { publicKey: sponsorKey ?? STAND_IN_KEY, seed: null },
        seqno,
        validUntil: this.validUntil(),
        deploy,
        carriers: [carrier],
      });
      try {
        return estimatedFee(
          await adapter.toncenter.estimateFee({
            address: sponsorRaw,
            body: messages.bocOf(body),
            ...(init?.code && init.data
              ? { initCode: messages.bocOf(init.code), initData: messages.bocOf(init.data) }
              : {}),
            ignoreChksig: true,
          }),
        );
      } catch (error) {
        // A message of the sponsor's landed between the read and the estimate: its seqno moved on.
        const moved = (await ownerWallet(adapter, sponsorRaw)).seqno !== sponsorWallet.seqno;
        if (!moved || attempt >= FEE_ESTIMATES) throw error;
      }
    }
  }

  /** The sponsor's message to the owner's wallet: the owner's signed request, and its wallet's init while undeployed. */
  private async carrier(
    messages: SponsoredMessages,
    network: Network,
    transfer: SponsoredTransfer,
    plan: TransferPlan,
    owner: WalletSigner,
  ) {
    const request: OwnerRequest = {
      network,
      owner,
      seqno: plan.owner.seqno,
      // The owner's wallet runs the request after the sponsor's wallet has sent it: a little later.
      validUntil: this.validUntil() + this.#lifetimeS,
      actions: plan.actions,
    };
    return {
      to: messages.rawOf(transfer.from),
      value: plan.attached,
      body: await messages.ownerRequestBody(request),
      init: plan.owner.status === 'active' ? null : messages.walletInit(owner.publicKey, network),
    };
  }

  /**
   * Signs the run's message on its wallet's next seqno, notes it, sends it and waits for its landing, in
   * the owner's `turn`: the sponsor's message (in the sponsor's turn, with the transfers riding along), or
   * the owner's own for a transfer it pays itself. Answers the seqno the owner's wallet runs it on.
   */
  private async signAndLand(
    adapter: TonAdapter,
    messages: SponsoredMessages,
    run: SponsoredRun,
    ownerKey: Buffer,
    turn: WalletTurn,
  ): Promise<{ landed: TonTransaction | 'expired'; noted: NotedMessage; ownerSeqno: number }> {
    const { network, transfer, sponsor, owner } = run;
    const planned = await this.plan(adapter, messages, transfer, sponsor.address);
    // The node's index may lag behind the owner's last message.
    const ownerSeqno = Math.max(planned.owner.seqno, turn.taken + 1);
    const plan = { ...planned, owner: { ...planned.owner, seqno: ownerSeqno } };
    const ownerSigner: WalletSigner = { publicKey: ownerKey, seed: owner.privateKey };
    if (plan.kind === 'self-paid') {
      const validUntil = this.validUntil();
      const signed = await messages.ownerExternal(
        { network, owner: ownerSigner, seqno: ownerSeqno, validUntil, actions: plan.actions },
        plan.owner.status !== 'active',
      );
      const noted = { hash: signed.hash, boc: signed.boc, validUntil, index: 0, size: 1 };
      await noteMessage(run.journal, noted);
      return { landed: await land(adapter, noted, this.#wait), noted, ownerSeqno };
    }
    const sponsorKey = messages.publicKeyOf(sponsor.privateKey);
    const sponsorWallet = messages.rawOf(sponsor.address);
    if (messages.v5r1Wallet(sponsorKey, network).address.toRawString() !== sponsorWallet) {
      throw new SponsorshipRefused(`the sponsor's key is not the key of ${sponsor.address}`);
    }
    // Priced as a message of its own: riding with others only shares the message's fee.
    const fee = await this.sponsorFee(
      adapter,
      messages,
      network,
      transfer,
      plan,
      sponsor.address,
      sponsorKey,
    );
    if (plan.attached + fee > run.maxCost) {
      throw new SponsorshipRefused(
        `fees rose since the estimate: the transfer would now cost the sponsor up to ${ton(plan.attached + fee)} TON, ${ton(run.maxCost)} TON was reserved; ask again`,
      );
    }
    const carrier = await this.carrier(messages, network, transfer, plan, ownerSigner);
    let noted: NotedMessage | null = null;
    const landed = await this.#batches.ride(
      network,
      sponsorWallet,
      {
        carrier,
        note: async (message) => {
          await noteMessage(run.journal, message);
          noted = message;
        },
      },
      {
        sign: async (carriers, taken) => {
          const state = await ownerWallet(adapter, sponsorWallet);
          const seqno = Math.max(state.seqno, taken + 1);
          const validUntil = this.validUntil();
          const signed = await messages.signedSponsorMessage({
            network,
            sponsor: { publicKey: sponsorKey, seed: sponsor.privateKey },
            seqno,
            validUntil,
            deploy: state.status !== 'active',
            carriers,
          });
          return { signed, seqno, validUntil };
        },
        land: (message) => land(adapter, message, this.#wait),
      },
    );
    if (noted === null) throw new Error('a sponsored message landed without being noted');
    return { landed, noted, ownerSeqno };
  }

  /**
   * Records what the landed message cost the sponsor for this transfer, then judges it: the owner's
   * wallet must have run the request and sent its message, and a jetton wallet must have taken the
   * transfer. Answers the owner's transaction.
   */
  private async settled(
    adapter: TonAdapter,
    messages: SponsoredMessages,
    run: SponsoredRun,
    root: TonTransaction,
    noted: NotedMessage,
  ): Promise<{ txid: string }> {
    const sponsor = messages.rawOf(run.sponsor.address);
    const owner = messages.rawOf(run.transfer.from);
    const rootHash = hexHash(root.hash);
    let trace: Trace;
    let ownerTx: TonTransaction | null;
    if (sameAccount(root.account, owner)) {
      // The owner's own message: the sponsor bore nothing, unless it is the receiver of a bounce.
      trace = await traceOf(adapter, root, this.#wait);
      const loss = balanceLoss(trace, sponsor);
      if (loss > 0n) await run.journal.spent('fees', loss, rootHash);
      ownerTx = root;
    } else {
      const carrier = root.outMsgs.find((message) => sameAccount(message.destination, owner)) ?? null;
      trace =
        carrier === null
          ? { transactions: [root] }
          : await traceFrom(adapter, root, [{ message: carrier, depth: 1 }], this.#wait);
      const cost = carriedCost(root, carrier, trace, sponsor, noted.index, noted.size);
      if (cost.fees > 0n) await run.journal.spent('fees', cost.fees, rootHash);
      // What the sponsor's message carried and did not get back (as excess or a bounce).
      if (cost.attached > 0n) await run.journal.spent('attached', cost.attached, rootHash);
      ownerTx = receivedFrom(trace, sponsor, owner);
    }
    if (ownerTx === null) {
      throw new SponsorshipRefused(
        `the sponsor's message (transaction ${rootHash}) sent nothing to ${run.transfer.from}: its balance did not cover it`,
      );
    }
    const txid = hexHash(ownerTx.hash);
    if (!succeeded(ownerTx) || ownerTx.outMsgs.length === 0) {
      throw new SponsorshipRefused(
        `the owner's wallet did not run the transfer (transaction ${txid}, exit code ${ownerTx.exitCode ?? 'none'})`,
      );
    }
    const sentTo = ownerTx.outMsgs[0]?.destination ?? null;
    const next = sentTo === null ? null : receivedFrom(trace, owner, sentTo);
    if (run.transfer.contract !== null && (next === null || !succeeded(next))) {
      throw new SponsorshipRefused(
        `the jetton wallet refused the transfer (transaction ${txid}, exit code ${next?.exitCode ?? 'none'})`,
      );
    }
    return { txid };
  }

  private validUntil(): number {
    return Math.floor(this.#now() / 1000) + this.#lifetimeS;
  }

  private adapter(network: Network): TonAdapter {
    return this.registry.adapterOf('ton', network, TonAdapter);
  }
}

/** Whether two addresses (raw, in any case) are one account. */
function sameAccount(a: string | null, b: string): boolean {
  return a !== null && a.toLowerCase() === b.toLowerCase();
}

/** An address field as custody keeps it (the wallet form), or the 422 naming it. */
function addressField(field: string, value: string, network: Network): string {
  // TON reads no setting to check an address.
  const problem = tonAddressForm.fieldProblem(field, value, network, {});
  if (problem !== null) throw invalidField(field, problem);
  return tonStoredAddress(value, network);
}

/** Base units as a sponsored transfer keeps them; nothing to move is no transfer. */
function positive(amount: string, decimals: number): string {
  const units = boundedAmountField(
    amount,
    decimals,
    COINS_MAX,
    (most) => `The amount field is too large: a TON message carries at most ${most}.`,
  );
  if (units === 0n) throw invalidField('amount', 'The amount field must be more than 0.');
  return units.toString();
}
