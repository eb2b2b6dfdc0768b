/**
 * The Bitcoin side of the send pipeline (services/send-pipeline.ts): a payment from one address or from
 * the addresses of an HD wallet, its coins chosen to waste the least fee (coin-selection.ts), signed with
 * @scure/btc-signer and broadcast; the unsigned builds (PSBT); the broadcasts of transactions signed
 * elsewhere. Only confirmed coins are spent: an unconfirmed one can still be replaced or dropped.
 */
import { ApiError, invalidField } from '../../errors.ts';
import { formatAmount, historyAmount } from '../amount.ts';
import type {
  BuiltSend,
  BuiltWalletSend,
  PreparedSend,
  PreparedWalletSend,
  SendRecord,
  SentTransaction,
  SignedBroadcast,
} from '../family.ts';
import type { ChainRegistry } from '../registry.ts';
import type { Network } from '../types.ts';
import type { BitcoinAdapter } from './adapter.ts';
import { BroadcastRefusedError } from './backend.ts';
import { BTC_DECIMALS } from './btc-amount.ts';
import {
  type Coin,
  InsufficientFundsError,
  PaymentBelowDustError,
  type Selection,
  selectCoins,
} from './coin-selection.ts';
import { type FeeRate, satPerVbText } from './fee-rate.ts';
import { feeRateField, rateForSpeed, type Speed } from './fee-speed.ts';
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

/** The most addresses whose coins a wallet send asks the node for at once. */
const UTXO_READS_AT_ONCE = 4;

const btc = (sats: bigint) => formatAmount(sats, BTC_DECIMALS);

export class BitcoinSends {
  constructor(private readonly registry: ChainRegistry) {}

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
        const plan = await this.plan(adapter, source, body, record);
        return {
          txid: null,
          send: (privateKey) => this.sign(adapter, plan, new Map([[body.from, privateKey]])),
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
        const plan = await this.plan(adapter, walletSource(await addresses()), body, record);
        return {
          signers: [...new Set(plan.selection.inputs.map((coin) => coin.address))],
          send: (keys) => this.sign(adapter, plan, keys),
        };
      },
    };
  }

  /** An unsigned PSBT paying from `source`; nothing is sent or stored. */
  async build(network: Network, source: CoinSource | (() => Promise<CoinSource>), body: BitcoinPayment) {
    const adapter = this.adapter(network);
    const from = typeof source === 'function' ? await source() : source;
    const { selection, rate } = await this.plan(adapter, from, body, null);
    const built: BitcoinBuild = {
      psbt: psbtBase64(unsignedTransaction(selection)),
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
  broadcast(network: Network, rawtx: string): SignedBroadcast {
    const adapter = this.adapter(network);
    const read = readRawTransaction(rawtx, adapter.params);
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
          amount: paid === undefined ? null : historyAmount(paid.value, BTC_DECIMALS),
        };
      },
      broadcast: () => broadcastRaw(adapter, rawtx),
    };
  }

  private adapter(network: Network): BitcoinAdapter {
    return this.registry.get<BitcoinAdapter>('bitcoin', network);
  }

  private record(adapter: BitcoinAdapter, from: string, body: BitcoinPayment): SendRecord {
    addressScriptField('to', body.to, adapter.params);
    const sats = satsOf(body.amount);
    if (sats <= 0n) throw invalidField('amount', 'The amount field must be more than 0.');
    if (body.feerate !== undefined) feeRateField(body.feerate);
    return { type: 'BTC', from, to: body.to, amount: historyAmount(sats, BTC_DECIMALS) };
  }

  /** Chooses the coins and the fee; a 422 saying what is missing when the coins cannot pay. */
  private async plan(
    adapter: BitcoinAdapter,
    source: CoinSource,
    body: BitcoinPayment,
    record: SendRecord | null,
  ): Promise<Plan> {
    const payment = { script: addressScriptField('to', body.to, adapter.params), value: satsOf(body.amount) };
    const [rate, held] = await Promise.all([
      body.feerate === undefined
        ? adapter.backend.feeEstimates().then((estimates) => rateForSpeed(body.speed ?? 'medium', estimates))
        : feeRateField(body.feerate),
      coinsOf(adapter, source.addresses),
    ]);
    const subtractFee = body.subtractfee === true;
    let selection: Selection;
    try {
      selection = selectCoins({
        coins: held.confirmed,
        payment,
        changeScript: addressScriptField('from', source.change, adapter.params),
        feeRate: rate,
        subtractFee,
      });
    } catch (error) {
      throw refusal(error, held.unconfirmed);
    }
    // With the fee subtracted, the receiver gets less than asked: the history says what was paid.
    if (record !== null)
      Object.assign(record, { amount: historyAmount(selection.outputs[0]!.value, BTC_DECIMALS) });
    return { selection, rate };
  }

  private async sign(
    adapter: BitcoinAdapter,
    plan: Plan,
    keys: ReadonlyMap<string, string>,
  ): Promise<SentTransaction> {
    const signed = signAndFinalize(unsignedTransaction(plan.selection), keys);
    const txid = await broadcastRaw(adapter, signed.hex);
    const data: BitcoinSent = {
      txid,
      fee: btc(signed.fee),
      feerate: satPerVbText(plan.rate),
      vsize: signed.vsize,
    };
    return { txid, data: { ...data } };
  }
}

function walletSource(addresses: readonly string[]): CoinSource {
  const change = addresses[0];
  if (change === undefined) throw new ApiError(422, 'The wallet has no addresses yet, so no coins to send');
  return { addresses, change };
}

/** The confirmed coins of the addresses, and what is still unconfirmed there (for the refusal's words). */
async function coinsOf(adapter: BitcoinAdapter, addresses: readonly string[]) {
  const confirmed: Coin[] = [];
  let unconfirmed = 0n;
  for (let i = 0; i < addresses.length; i += UTXO_READS_AT_ONCE) {
    const batch = addresses.slice(i, i + UTXO_READS_AT_ONCE);
    const read = await Promise.all(batch.map((address) => adapter.backend.utxos(address)));
    read.forEach((utxos, j) => {
      const address = batch[j]!;
      const script = addressScriptField('from', address, adapter.params);
      for (const utxo of utxos) {
        if (utxo.confirmed)
          confirmed.push({ txid: utxo.txid, vout: utxo.vout, value: utxo.value, address, script });
        else unconfirmed += utxo.value;
      }
    });
  }
  return { confirmed, unconfirmed };
}

function refusal(error: unknown, unconfirmed: bigint): unknown {
  if (error instanceof InsufficientFundsError) {
    const waiting = unconfirmed > 0n ? `; ${btc(unconfirmed)} BTC more is still unconfirmed` : '';
    return new ApiError(
      422,
      `Insufficient funds: ${btc(error.missing)} BTC missing (confirmed coins ${btc(error.available)} BTC, amount and fee ${btc(error.needed)} BTC)${waiting}`,
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
