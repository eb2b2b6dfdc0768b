/**
 * Tron's fee sponsor (Chaingateway's paymaster): the sponsor lends the sender the energy and bandwidth
 * a transfer needs with Stake 2.0 delegations (or, with no stake left to lend, sends exactly the TRX the
 * transfer will burn), creates the sender's account first when the chain does not know it, lets the
 * sender's key send the transfer, and takes the delegations back once it is mined. Every transaction is
 * noted in the job's journal before the node gets it (sponsor-steps.ts), and every sun the sponsor
 * loses is reported to the ledger with the transaction that cost it.
 */
import { invalidField } from '../../errors.ts';
import { formatAmount } from '../amount.ts';
import { amountField } from '../amount-field.ts';
import type {
  FeeSponsor,
  KeyHolder,
  PaymasterRequest,
  SponsoredRun,
  SponsoredTransfer,
  SponsorJournal,
  SponsorQuote,
} from '../fee-sponsor.ts';
import { SponsorshipRefused } from '../fee-sponsor.ts';
import { OneAtATime } from '../one-at-a-time.ts';
import type { ChainRegistry } from '../registry.ts';
import type { ChainName, Network } from '../types.ts';
import { decodeRevertReason } from './abi.ts';
import { TronAdapter } from './adapter.ts';
import { isTronAddress, toBase58Address } from './address.ts';
import { TronBroadcastError, TronContractError, TronNodeError } from './errors.ts';
import type { NodeJson } from './node-api.ts';
import { decodeNodeText } from './node-messages.ts';
import { freeBandwidthAvailable, int, stakedBandwidthAvailable } from './resources.ts';
import { systemTransactionBandwidth } from './sponsor-costs.ts';
import { buildTransfer, planSponsorship, sponsorPrices, type TronSponsorPlan } from './sponsor-plan.ts';
import { type MinedStep, type MiningWait, SponsorSteps } from './sponsor-steps.ts';
import { TRX_DECIMALS } from './trx-amount.ts';
import type { TronResource } from './types.ts';

const TYPES = ['TRX', 'TRC10', 'TRC20', 'TRC721'] as const;
const RESOURCES: readonly TronResource[] = ['ENERGY', 'BANDWIDTH'];
/** Tron produces a block every 3 s; a step waits a few of them before the job is left to resume. */
const DEFAULT_WAIT: MiningWait = { pollMs: 1000, timeoutMs: 90_000 };
const PLAN_NOTE = 'plan';

export interface TronFeeSponsorDeps {
  registry: ChainRegistry;
  /** The most TRX (sun) a TRC20/TRC721 transfer may burn: its fee_limit. */
  feeLimitSun: bigint;
  wait?: MiningWait;
}

export class TronFeeSponsor implements FeeSponsor {
  readonly #wait: MiningWait;
  /** Planning, one job at a time per sponsor. */
  readonly #planning = new OneAtATime();
  /** Stake each sponsor is lending to jobs of this process, until their delegations are mined. */
  readonly #lending = new StakeInFlight();

  constructor(private readonly deps: TronFeeSponsorDeps) {
    this.#wait = deps.wait ?? DEFAULT_WAIT;
  }

  types(_chain: ChainName): readonly string[] {
    return TYPES;
  }

  async transfer(_chain: ChainName, network: Network, request: PaymasterRequest): Promise<SponsoredTransfer> {
    const type = request.type.toUpperCase();
    if (!(TYPES as readonly string[]).includes(type)) {
      throw invalidField('type', `The type field must be one of ${TYPES.join(', ')}.`);
    }
    const from = addressField('from', request.from);
    const to = addressField('to', request.to);
    const adapter = this.#adapter(network);
    const parties = { type, from, to };
    if (type === 'TRX') {
      const units = amountField(required('amount', request.amount), TRX_DECIMALS);
      return { ...parties, contract: null, tokenId: null, units: units.toString(), decimals: TRX_DECIMALS };
    }
    if (type === 'TRC10') {
      const tokenId = required('tokenid', request.tokenid);
      if (!/^[1-9][0-9]{0,18}$/.test(tokenId)) {
        throw invalidField('tokenid', 'The tokenid field must be a TRC10 token id such as 1002000.');
      }
      const { precision } = await tokenRead('tokenid', () => adapter.getTrc10Info(tokenId));
      const units = amountField(required('amount', request.amount), precision);
      return { ...parties, contract: null, tokenId, units: units.toString(), decimals: precision };
    }
    const contract = addressField('contractaddress', required('contractaddress', request.contractaddress));
    if (type === 'TRC20') {
      const decimals = await tokenRead('contractaddress', () => adapter.getTrc20Decimals(contract));
      const units = amountField(required('amount', request.amount), decimals);
      return { ...parties, contract, tokenId: null, units: units.toString(), decimals };
    }
    const tokenId = required('tokenid', request.tokenid);
    if (!/^\d{1,78}$/.test(tokenId))
      throw invalidField('tokenid', 'The tokenid field must be a whole number.');
    return { ...parties, contract, tokenId, units: '1', decimals: 0 };
  }

  async quote(
    _chain: ChainName,
    network: Network,
    transfer: SponsoredTransfer,
    sponsor: string,
  ): Promise<SponsorQuote> {
    const plan = await planSponsorship(this.#adapter(network), transfer, sponsor, this.deps.feeLimitSun);
    return {
      maxCost: plan.maxSun,
      answer: {
        energy_consumption: Number(plan.energy),
        bandwidth_consumption: Number(plan.bandwidth),
        paymaster_fee: formatAmount(plan.expectedSun, TRX_DECIMALS),
      },
    };
  }

  async run(run: SponsoredRun): Promise<{ txid: string }> {
    const adapter = this.#adapter(run.network);
    const steps = new SponsorSteps(adapter, run.journal, this.#wait);
    let plan: TronSponsorPlan | null = null;
    let outcome: { txid: string } | { refused: string };
    try {
      plan = await this.#planBeside(adapter, run);
      try {
        await this.#lend(adapter, steps, run, plan);
      } finally {
        this.#lending.done(run.sponsor.address, plan.delegate);
      }
      outcome = await this.#send(adapter, steps, run);
    } catch (error) {
      // The node's refusal to build or take a step is the job's end; anything else (a node out of
      // reach, a transaction not mined yet) leaves it to resume.
      if (!(error instanceof TronBroadcastError || error instanceof TronNodeError)) throw error;
      outcome = { refused: error.apiMessage || error.message };
    }
    const noted = run.journal.notes[PLAN_NOTE];
    plan ??= noted === undefined ? null : readPlan(noted);
    if (plan !== null) await this.#reclaim(adapter, steps, run, plan);
    if ('refused' in outcome) throw new SponsorshipRefused(outcome.refused);
    return outcome;
  }

  async unwind(run: SponsoredRun): Promise<void> {
    const noted = run.journal.notes[PLAN_NOTE];
    if (noted === undefined) return;
    const adapter = this.#adapter(run.network);
    await this.#reclaim(adapter, new SponsorSteps(adapter, run.journal, this.#wait), run, readPlan(noted));
  }

  /** At worst the account creation's fee burned (no staked bandwidth) and the creation's own fee. */
  async activationCost(_chain: ChainName, network: Network): Promise<bigint> {
    const prices = await sponsorPrices(this.#adapter(network));
    return prices.createAccountFeeSun + prices.newAccountFeeSun;
  }

  async activate(
    _chain: ChainName,
    network: Network,
    sponsor: KeyHolder,
    address: string,
    journal: SponsorJournal,
  ): Promise<string | null> {
    const adapter = this.#adapter(network);
    const steps = new SponsorSteps(adapter, journal, this.#wait);
    await activation(adapter, steps, journal, sponsor, address);
    return steps.notedTxid('activation');
  }

  async decimals(_chain: ChainName, network: Network, contract: string | null): Promise<number> {
    if (contract === null) return TRX_DECIMALS;
    const address = addressField('contractaddress', contract);
    return tokenRead('contractaddress', () => this.#adapter(network).getTrc20Decimals(address));
  }

  async holding(
    _chain: ChainName,
    network: Network,
    address: string,
    contract: string | null,
  ): Promise<bigint> {
    const adapter = this.#adapter(network);
    if (contract === null) return adapter.getBalance(address);
    return (await adapter.getTrc20Balance(address, contract)).balance;
  }

  async sweepUnits(
    _chain: ChainName,
    network: Network,
    address: string,
    contract: string | null,
    held: bigint,
  ): Promise<bigint | null> {
    if (contract !== null) return held > 0n ? held : null;
    const adapter = this.#adapter(network);
    const [resources, prices] = await Promise.all([
      adapter.getAccountResources(address),
      sponsorPrices(adapter),
    ]);
    // Its own TRX transfer (to an existing account) burns every byte only when neither staked nor free
    // bandwidth covers it whole.
    const bytes = systemTransactionBandwidth({ type: 'TransferContract', amount: held });
    const covered =
      stakedBandwidthAvailable(resources) >= bytes || freeBandwidthAvailable(resources) >= bytes;
    const units = held - (covered ? 0n : bytes * prices.bandwidthPriceSun);
    return units > 0n ? units : null;
  }

  #adapter(network: Network): TronAdapter {
    return this.deps.registry.adapterOf('tron', network, TronAdapter);
  }

  /** The plan a first run makes and notes; a resumed run follows the noted one. */
  /**
   * The job's plan, made one job at a time per sponsor, counting the stake other jobs of this process are
   * lending and the node does not show lent yet (their delegations not mined): two jobs planned together
   * never count the same free stake. What this plan lends is counted until `#lending.done`.
   */
  #planBeside(adapter: TronAdapter, run: SponsoredRun): Promise<TronSponsorPlan> {
    const sponsor = run.sponsor.address;
    return this.#planning.run(sponsor, async () => {
      const plan = await this.#plan(adapter, run, this.#lending.of(sponsor));
      this.#lending.add(sponsor, plan.delegate);
      return plan;
    });
  }

  async #plan(
    adapter: TronAdapter,
    run: SponsoredRun,
    lending: Readonly<Record<TronResource, bigint>>,
  ): Promise<TronSponsorPlan> {
    const noted = run.journal.notes[PLAN_NOTE];
    if (noted !== undefined) return readPlan(noted);
    const plan = await planSponsorship(
      adapter,
      run.transfer,
      run.sponsor.address,
      this.deps.feeLimitSun,
      lending,
    );
    await run.journal.note({ [PLAN_NOTE]: writePlan(plan) });
    return plan;
  }

  /** Activation, then the delegations or the TRX the plan says. */
  async #lend(adapter: TronAdapter, steps: SponsorSteps, run: SponsoredRun, plan: TronSponsorPlan) {
    const { sponsor, transfer, journal } = run;
    if (plan.activate) await activation(adapter, steps, journal, sponsor, transfer.from);
    for (const resource of RESOURCES) {
      const sun = plan.delegate[resource];
      if (sun === 0n) continue;
      const step = `delegate-${resource.toLowerCase()}`;
      const mined = await steps.run(step, sponsor.privateKey, () =>
        adapter.buildDelegate(sponsor.address, transfer.from, sun, resource),
      );
      await spentFee(journal, step, mined);
    }
    if (plan.topUpSun > 0n) {
      const mined = await steps.run('top-up', sponsor.privateKey, () =>
        adapter.buildTrxTransfer(sponsor.address, transfer.from, plan.topUpSun),
      );
      await journal.spent('top-up', plan.topUpSun, mined.txid);
      await spentFee(journal, 'top-up-fee', mined);
    }
  }

  /** The transfer, signed by its owner; its revert as `refused`. */
  async #send(
    adapter: TronAdapter,
    steps: SponsorSteps,
    run: SponsoredRun,
  ): Promise<{ txid: string } | { refused: string }> {
    const sent = await steps.run('transfer', run.owner.privateKey, () =>
      buildTransfer(adapter, run.transfer, this.deps.feeLimitSun),
    );
    const failure = failureOf(sent.info);
    return failure === null ? { txid: sent.txid } : { refused: failure };
  }

  /** Takes back what the job's delegations lent, where the chain still holds it. */
  async #reclaim(
    adapter: TronAdapter,
    steps: SponsorSteps,
    run: SponsoredRun,
    plan: TronSponsorPlan,
  ): Promise<void> {
    const { sponsor, transfer, journal } = run;
    for (const resource of RESOURCES) {
      if (plan.delegate[resource] === 0n) continue;
      const delegation = await steps.settled(`delegate-${resource.toLowerCase()}`);
      if (delegation === null || failureOf(delegation.info) !== null) continue;
      const step = `reclaim-${resource.toLowerCase()}`;
      const stillLent = async () => {
        const held = (await adapter.getUnlockedDelegation(sponsor.address, transfer.from))[resource];
        const noted = plan.delegate[resource];
        if (held < noted) return held;
        return noted;
      };
      // A reclaim already noted is followed to its end; a new one takes back what is still lent.
      if (steps.notedTxid(step) === null && (await stillLent()) === 0n) continue;
      const mined = await steps.run(step, sponsor.privateKey, async () =>
        adapter.buildUndelegate(sponsor.address, transfer.from, await stillLent(), resource),
      );
      await spentFee(journal, step, mined);
    }
  }
}

/** Creates `address` on chain, paid by the sponsor (AccountCreateContract), unless it exists already. */
async function activation(
  adapter: TronAdapter,
  steps: SponsorSteps,
  journal: SponsorJournal,
  sponsor: KeyHolder,
  address: string,
): Promise<void> {
  if (steps.notedTxid('activation') === null && (await adapter.getAccount(address)) !== null) return;
  const mined = await steps.run('activation', sponsor.privateKey, () =>
    adapter.buildAccountCreate(sponsor.address, address),
  );
  await spentFee(journal, 'activation', mined);
}

/** The TRX a mined sponsor transaction burned (its `fee`: bandwidth, and an account's creation). */
async function spentFee(journal: SponsorJournal, what: string, mined: MinedStep): Promise<void> {
  const fee = int(mined.info['fee']);
  if (fee > 0n) await journal.spent(what, fee, mined.txid);
}

/** Why a mined transaction failed (a revert's reason, the VM's message or its result), or null. */
function failureOf(info: NodeJson): string | null {
  const receipt = (info['receipt'] ?? {}) as NodeJson;
  const result = typeof receipt['result'] === 'string' ? receipt['result'] : 'SUCCESS';
  if (info['result'] !== 'FAILED' && result === 'SUCCESS') return null;
  const output = Array.isArray(info['contractResult']) ? String(info['contractResult'][0] ?? '') : '';
  const message = typeof info['resMessage'] === 'string' ? decodeNodeText(info['resMessage']) : '';
  return decodeRevertReason(output) || message || result;
}

function writePlan(plan: TronSponsorPlan): string {
  return JSON.stringify(plan, (_key, value: unknown) =>
    typeof value === 'bigint' ? value.toString() : value,
  );
}

function readPlan(text: string): TronSponsorPlan {
  const p = JSON.parse(text) as Record<string, unknown>;
  const big = (value: unknown) => BigInt(String(value));
  const delegate = p['delegate'] as Record<string, unknown>;
  return {
    activate: p['activate'] === true,
    energy: big(p['energy']),
    bandwidth: big(p['bandwidth']),
    delegate: { ENERGY: big(delegate['ENERGY']), BANDWIDTH: big(delegate['BANDWIDTH']) },
    topUpSun: big(p['topUpSun']),
    expectedSun: big(p['expectedSun']),
    maxSun: big(p['maxSun']),
  };
}

function required(field: string, value: string | undefined): string {
  if (value === undefined || value.trim() === '')
    throw invalidField(field, `The ${field} field is required.`);
  return value.trim();
}

function addressField(field: string, value: string): string {
  if (!isTronAddress(value)) throw invalidField(field, `The ${field} field must be a Tron address.`);
  return toBase58Address(value);
}

/** A token read whose contract or asset the node does not know: a 422 on the field that names it. */
async function tokenRead<T>(field: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof TronContractError) throw invalidField(field, error.message);
    throw error;
  }
}

/** Stake (sun) per sponsor and resource that jobs of this process are lending and the node may not show yet. */
class StakeInFlight {
  readonly #bySponsor = new Map<string, Record<TronResource, bigint>>();

  of(sponsor: string): Readonly<Record<TronResource, bigint>> {
    return this.#bySponsor.get(sponsor) ?? { ENERGY: 0n, BANDWIDTH: 0n };
  }

  add(sponsor: string, sun: Readonly<Record<TronResource, bigint>>): void {
    const now = this.of(sponsor);
    this.#bySponsor.set(sponsor, {
      ENERGY: now.ENERGY + sun.ENERGY,
      BANDWIDTH: now.BANDWIDTH + sun.BANDWIDTH,
    });
  }

  done(sponsor: string, sun: Readonly<Record<TronResource, bigint>>): void {
    this.add(sponsor, { ENERGY: -sun.ENERGY, BANDWIDTH: -sun.BANDWIDTH });
  }
}
