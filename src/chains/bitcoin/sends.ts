/**
 * The Bitcoin side of the send pipeline (services/send-pipeline.ts): a payment from one address or from
 * the addresses of an HD wallet, its coins chosen to waste the least fee (coin-selection.ts), signed with
 * @scure/btc-signer and broadcast; the unsigned builds (PSBT); the broadcasts of transactions signed
 * elsewhere. Confirmed coins are spent first; when they do not pay, the source's own unconfirmed change
 * too (own-change.ts), its fee raised so the unconfirmed ancestors reach the rate (package-fee.ts), within
 * the mempool's chain limits (unconfirmed-chain.ts). Nobody else's unconfirmed coin is spent: its sender
 * can still replace it. The coins a send chooses are reserved (coin-reservations.ts) until well after its
 * broadcast, or given back when it is refused, so concurrent sends never spend the same coin.
 */
import { ApiError, invalidField } from '../../errors.ts';
import { assetAmount, formatAmount } from '../amount.ts';
import type { ChainRegistry } from '../registry.ts';
import type {
  BuiltSend,
  BuiltWalletSend,
  PreparedSend,
  PreparedWalletSend,
  SendIntent,
  SendRecord,
  SentTransaction,
  SignedBroadcast,
} from '../send-contract.ts';
import type { Network } from '../types.ts';
import { BitcoinAdapter } from './adapter.ts';
import { BroadcastRefusedError } from './backend.ts';
import { BTC_DECIMALS } from './btc-amount.ts';
import type { CoinHold, CoinReservations } from './coin-reservations.ts';
import {
  type Coin,
  InsufficientFundsError,
  type Payment,
  PaymentBelowDustError,
  type Selection,
  selectCoins,
} from './coin-selection.ts';
import { type FeeRate, satPerVbText } from './fee-rate.ts';
import { feeRateField, rateForSpeed, type Speed } from './fee-speed.ts';
import { type OwnChange, ownUnconfirmedChange } from './own-change.ts';
import { addressScriptField, satsOf } from './request-fields.ts';
import { psbtBase64, readRawTransaction, signAndFinalize, unsignedTransaction } from './transaction.ts';

export interface BitcoinPayment {
  to: string;
  amount: unknown;
  speed?: Speed | undefined;
  feerate?: unknown;
  subtractfee?: boolean | undefined;
}

/** Where the coins come from: addresses of the caller's, and where the change goes. */
export interface CoinSource {
  addresses: readonly string[];
  change: string;
}

/** The answer of a send. */
export interface BitcoinSent {
  txid: string;
  fee: string;
  feerate: string;
  vsize: number;
}

/** The answer of a build: the PSBT to sign elsewhere and what it will cost. */
export interface BitcoinBuild {
  psbt: string;
  fee: string;
  feerate: string;
  vsize: number;
  amount: string;
  change: string;
  inputs: { txid: string; vout: number; address: string; value: string }[];
}

/** A payment checked against the coins: the chosen inputs and outputs and the rate they pay. */
interface Plan {
  selection: Selection;
  rate: FeeRate;
}

/** What choosing coins needs: the payment, the fee rate and what the node lists of the source's coins. */
interface CoinRequest {
  payment: Payment;
  rate: FeeRate;
  /**
   * The spendable coins: confirmed ones, and the source's own unconfirmed change with its ancestors;
   * `unconfirmed` is the value of the other unconfirmed coins, never spent (for the refusal's words).
   */
  held: { confirmed: Coin[]; own: OwnChange; unconfirmed: bigint };
  changeScript: Uint8Array;
  subtractFee: boolean;
}

/** A send's plan, its coins held until it is broadcast or given up. */
interface HeldPlan extends Plan {
  hold: CoinHold;
}

/** The most addresses whose coins a wallet send asks the node for at once. */
const UTXO_READS_AT_ONCE = 4;

const btc = (sats: bigint) => formatAmount(sats, BTC_DECIMALS);

export class BitcoinSends {
  constructor(
    private readonly registry: ChainRegistry,
    private readonly reservations: CoinReservations,
  ) {}

  /** A payment from one address of the caller's (its key: a password or the caller's private key). */
  fromAddress(network: Network, body: BitcoinPayment & { from: string }): PreparedSend {
    const adapter = this.adapter(network);
    addressScriptField('from', body.from, adapter.params);
    const record = this.record(adapter, body.from, body);
    const source = { addresses: [body.from], change: body.from };
    return {
      from: body.from,
      record,
      build: async (): Promise<BuiltSend> => {
        const plan = await this.reserve(adapter, network, source, body, record);
        return {
          txid: null,
          send: (privateKey, intent) => this.sign(adapter, plan, new Map([[body.from, privateKey]]), intent),
          abandon: () => giveBack(plan.hold),
        };
      },
    };
  }

  /**
   * A payment from an HD wallet's addresses; `addresses` lists them when the build runs (newest last),
   * and the change goes back to the wallet's first address.
   */
  fromWallet(
    network: Network,
    wallet: string,
    addresses: () => Promise<readonly string[]>,
    body: BitcoinPayment,
  ): PreparedWalletSend {
    const adapter = this.adapter(network);
    const record = this.record(adapter, wallet, body);
    return {
      wallet,
      record,
      build: async (): Promise<BuiltWalletSend> => {
        const plan = await this.reserve(adapter, network, walletSource(await addresses()), body, record);
        return {
          signers: [...new Set(plan.selection.inputs.map((coin) => coin.address))],
          send: (keys, intent) => this.sign(adapter, plan, keys, intent),
          abandon: () => giveBack(plan.hold),
        };
      },
    };
  }

  /** An unsigned PSBT paying from `source`, of coins no send holds; nothing is sent, stored or reserved. */
  async build(network: Network, source: CoinSource | (() => Promise<CoinSource>), body: BitcoinPayment) {
    const adapter = this.adapter(network);
    const from = typeof source === 'function' ? await source() : source;
    const request = await this.request(adapter, from, body);
    const free = await this.reservations.free(network, listed(request));
    const selection = choose(request, free);
    const { rate } = request;
    const built: BitcoinBuild = {
      psbt: psbtBase64(await unsignedTransaction(selection)),
      fee: btc(selection.fee),
      feerate: satPerVbText(rate),
      vsize: selection.vsize,
      amount: btc(selection.outputs[0]?.value ?? 0n),
      change: btc(selection.change),
      inputs: selection.inputs.map((coin) => ({
        txid: coin.txid,
        vout: coin.vout,
        address: coin.address,
        value: btc(coin.value),
      })),
    };
    return built;
  }

  /** A transaction signed elsewhere (hex), read before it is sent so the history says what it moves. */
  async broadcast(network: Network, rawtx: string): Promise<SignedBroadcast> {
    const adapter = this.adapter(network);
    const read = await readRawTransaction(rawtx, adapter.params);
    if (read === null) throw invalidField('rawtx', 'The rawtx field must be a transaction in hex.');
    if (!read.signed) throw invalidField('rawtx', 'The transaction in rawtx is not signed.');
    return {
      txid: read.txid,
      record: async () => {
        const first = read.inputs[0];
        // The payer, as the first input's coin names it; unknown when the node cannot say.
        const spent =
          first === undefined ? null : await adapter.backend.transaction(first.txid).catch(() => null);
        const from = (first === undefined ? undefined : spent?.outputs[first.vout]?.address) ?? null;
        const paid = read.outputs.find((output) => output.address !== null && output.address !== from);
        return {
          type: 'BTC',
          from,
          to: paid?.address ?? null,
          amount: paid === undefined ? null : assetAmount(paid.value, BTC_DECIMALS),
        };
      },
      broadcast: async (intent) => {
        await intent(read.txid);
        return broadcastRaw(adapter, rawtx);
      },
    };
  }

  private adapter(network: Network): BitcoinAdapter {
    return this.registry.adapterOf('bitcoin', network, BitcoinAdapter);
  }

  private record(adapter: BitcoinAdapter, from: string, body: BitcoinPayment): SendRecord {
    addressScriptField('to', body.to, adapter.params);
    const sats = satsOf(body.amount);
    if (sats <= 0n) throw invalidField('amount', 'The amount field must be more than 0.');
    if (body.feerate !== undefined) feeRateField(body.feerate);
    return { type: 'BTC', from, to: body.to, amount: assetAmount(sats, BTC_DECIMALS) };
  }

  private async request(
    adapter: BitcoinAdapter,
    source: CoinSource,
    body: BitcoinPayment,
  ): Promise<CoinRequest> {
    const payment = { script: addressScriptField('to', body.to, adapter.params), value: satsOf(body.amount) };
    const [rate, listing] = await Promise.all([
      body.feerate === undefined
        ? adapter.backend.feeEstimates().then((estimates) => rateForSpeed(body.speed ?? 'medium', estimates))
        : feeRateField(body.feerate),
      coinsOf(adapter, source.addresses),
    ]);
    const own = await ownUnconfirmedChange({
      backend: adapter.backend,
      broadcastBy: (txids) => this.reservations.spentBy(adapter.network, txids),
      source: source.addresses,
      unconfirmed: listing.unconfirmed,
      rate,
    });
    const others = sum(listing.unconfirmed) - sum(own.coins);
    const held = { confirmed: listing.confirmed, own, unconfirmed: others };
    const changeScript = addressScriptField('from', source.change, adapter.params);
    return { payment, rate, held, changeScript, subtractFee: body.subtractfee === true };
  }

  /**
   * Chooses the coins and the fee among the coins no other send holds, and reserves them; a 422 saying
   * what is missing when those cannot pay.
   */
  private async reserve(
    adapter: BitcoinAdapter,
    network: Network,
    source: CoinSource,
    body: BitcoinPayment,
    record: SendRecord,
  ): Promise<HeldPlan> {
    const request = await this.request(adapter, source, body);
    const { chosen, hold } = await this.reservations.reserve(network, listed(request), (free) =>
      choose(request, free),
    );
    // With the fee subtracted, the receiver gets less than asked: the history says what was paid.
    Object.assign(record, { amount: assetAmount(chosen.outputs[0]!.value, BTC_DECIMALS) });
    return { selection: chosen, rate: request.rate, hold };
  }

  /**
   * Signs and broadcasts. The coins are given back when nothing reached the node or the node refused the
   * transaction; when the node's answer is lost they stay held until the lease ends.
   */
  private async sign(
    adapter: BitcoinAdapter,
    plan: HeldPlan,
    keys: ReadonlyMap<string, string>,
    intent: SendIntent,
  ): Promise<SentTransaction> {
    let signed: ReturnType<typeof signAndFinalize>;
    try {
      signed = signAndFinalize(await unsignedTransaction(plan.selection), keys);
      if (!(await plan.hold.forBroadcast())) throw coinsTaken();
      await intent(signed.txid);
    } catch (error) {
      await giveBack(plan.hold);
      throw error;
    }
    let txid: string;
    try {
      txid = await broadcastRaw(adapter, signed.hex);
    } catch (error) {
      // The node refused it (broadcastRaw's 422): nothing spends the coins. Any other failure may have
      // reached the node, and the lease keeps the coins.
      if (error instanceof ApiError) await giveBack(plan.hold);
      throw error;
    }
    await plan.hold.broadcast(txid).catch(() => {
      // Sent: the answer stands; the coins stay held for the pending lease, the node's view shows them spent.
    });
    const data: BitcoinSent = {
      txid,
      fee: btc(signed.fee),
      feerate: satPerVbText(plan.rate),
      vsize: signed.vsize,
    };
    return { txid, data: { ...data } };
  }
}

/** Gives a send's coins back; when the database cannot, its lease ends the hold. */
async function giveBack(hold: CoinHold): Promise<void> {
  await hold.release().catch(() => {});
}

/** The send's reservation lapsed (it took longer than the lease) and another send took a coin. */
function coinsTaken(): ApiError {
  return new ApiError(
    503,
    'The coins chosen for this payment were taken by another send while it waited; nothing was sent, try again',
  );
}

/** Every coin the request may spend: the confirmed ones first, then the own unconfirmed change. */
const listed = (request: CoinRequest) => [...request.held.confirmed, ...request.held.own.coins];

/**
 * The coins and fee of the payment among `free`: confirmed coins alone when they pay, else with the fewest
 * of the own unconfirmed coins (largest first). A 422 saying what is missing when all cannot pay, or why
 * the mempool would refuse the chain of unconfirmed transactions the payment extends.
 */
function choose(request: CoinRequest, free: Coin[]): Selection {
  const { own } = request.held;
  const confirmed = free.filter((coin) => !own.isOwn(coin));
  const unconfirmed = free.filter((coin) => own.isOwn(coin));
  for (let added = 0; ; added++) {
    try {
      const selection = selectCoins({
        coins: [...confirmed, ...unconfirmed.slice(0, added)],
        payment: request.payment,
        changeScript: request.changeScript,
        feeRate: request.rate,
        subtractFee: request.subtractFee,
      });
      const tooLong = own.chainProblem(selection.inputs, selection.vsize);
      if (tooLong !== null) throw tooLong;
      return selection;
    } catch (error) {
      if (error instanceof InsufficientFundsError && added < unconfirmed.length) continue;
      const held = sum(listed(request)) - sum(free);
      throw refusal(error, held, request.held.unconfirmed);
    }
  }
}

const sum = (coins: readonly { value: bigint }[]) => coins.reduce((total, coin) => total + coin.value, 0n);

function walletSource(addresses: readonly string[]): CoinSource {
  const change = addresses[0];
  if (change === undefined) throw new ApiError(422, 'The wallet has no addresses yet, so no coins to send');
  return { addresses, change };
}

/** The coins of the addresses, confirmed and unconfirmed. */
async function coinsOf(adapter: BitcoinAdapter, addresses: readonly string[]) {
  const confirmed: Coin[] = [];
  const unconfirmed: Coin[] = [];
  for (let i = 0; i < addresses.length; i += UTXO_READS_AT_ONCE) {
    const batch = addresses.slice(i, i + UTXO_READS_AT_ONCE);
    const read = await Promise.all(batch.map((address) => adapter.backend.utxos(address)));
    read.forEach((utxos, j) => {
      const address = batch[j]!;
      const script = addressScriptField('from', address, adapter.params);
      for (const utxo of utxos) {
        const coin = { txid: utxo.txid, vout: utxo.vout, value: utxo.value, address, script };
        (utxo.confirmed ? confirmed : unconfirmed).push(coin);
      }
    });
  }
  return { confirmed, unconfirmed };
}

function refusal(error: unknown, held: bigint, unconfirmed: bigint): unknown {
  if (error instanceof InsufficientFundsError) {
    const sending = held > 0n ? `; ${btc(held)} BTC more is held by sends in progress` : '';
    const waiting = unconfirmed > 0n ? `; ${btc(unconfirmed)} BTC more is still unconfirmed` : '';
    return new ApiError(
      422,
      `Insufficient funds: ${btc(error.missing)} BTC missing (spendable coins ${btc(error.available)} BTC, amount and fee ${btc(error.needed)} BTC)${sending}${waiting}`,
    );
  }
  if (error instanceof PaymentBelowDustError) {
    return invalidField(
      'amount',
      `The amount field is below the dust limit: the receiver's output must hold at least ${btc(error.threshold)} BTC.`,
    );
  }
  return error;
}

async function broadcastRaw(adapter: BitcoinAdapter, hex: string): Promise<string> {
  try {
    return await adapter.backend.broadcast(hex);
  } catch (error) {
    if (error instanceof BroadcastRefusedError) {
      throw new ApiError(422, `The node refused the transaction: ${error.reason}`);
    }
    throw error;
  }
}
