/**
 * The shape of a chain family module: everything a family (Tron, EVM, ...) adds to the gateway, as one
 * object exported by `src/chains/<family>/index.ts` and listed once in `families.ts`. Services and the
 * shared routes ask the module; they never import a family's internals.
 */
import { type Static, type TSchema, type TString, Type } from '@sinclair/typebox';
import type { Migration } from 'kysely';
import type { Env, Setting } from '../config/setting.ts';
import type { HdKeyCodec } from '../custody/hd-wallets.ts';
import type { ApiError, WrongPasswordAnswer } from '../errors.ts';
import type { ChainAdapter } from './chain-adapter.ts';
import type { ChainFamily } from './chain-family.ts';
import type { FeeSponsor } from './fee-sponsor.ts';
import type { KeyCodec } from './key-codec.ts';
import type { ChainOperation, KeyForms } from './operations.ts';
import type { FamilyPorts } from './ports.ts';
import type { DevnetStarters } from './sandbox-devnet.ts';
import type { ChainKeyPair, ChainName, Network } from './types.ts';

/** A family's address: what the schemas state of it and how the gateway checks and stores it. */
export interface AddressForm {
  /** The family's name, which marks its address fields in the schemas (`x-address`). */
  family: string;
  /** JSON-schema pattern of the forms a request may carry. */
  pattern: string;
  description: string;
  example: string;
  isValid(address: string): boolean;
  /**
   * What is wrong with an address field's text on a network: malformed, a mistyped checksum, or an address
   * of another network (Bitcoin), as the field error's message (naming the field, never quoting the value);
   * null when nothing is. Every field marked as the family's address is checked with it before its route
   * runs (`http/address-fields.ts`).
   */
  fieldProblem(field: string, value: string, network: Network, settings: Env): string | null;
  /** The form answers and the store use (base58 for Tron, EIP-55 for EVM). */
  canonical(address: string): string;
}

/**
 * The schema keyword that marks a request field as an address: its value is the family's name, or
 * `ADDRESS_OF_THE_CHAIN` where the field takes an address of the chain the request names (webhook
 * filters). It shows in the OpenAPI document as an extension.
 */
export const ADDRESS_MARK = 'x-address';
export const ADDRESS_OF_THE_CHAIN = 'chain';

/** The request schema of an address field in the family's accepted forms (or a narrower pattern of them). */
export function addressSchema(
  form: AddressForm,
  narrower: { pattern?: string; description?: string; examples?: string[] } = {},
): TString {
  return Type.String({
    pattern: form.pattern,
    description: form.description,
    examples: [form.example],
    ...narrower,
    [ADDRESS_MARK]: form.family,
  });
}

/** What a transfer moves, as the chain names it in the history and in webhooks (BSC: BNB, BEP20, BEP721). */
export interface TransferTypes {
  native: string;
  fungible: string;
  nft: string;
}

/** An address as the custody lists it. */
export interface CustodyRow {
  address: string;
  publicKey: string;
  secured: boolean;
  createdAt: string;
}

/** One answer of a shared route whose shape is the family's: its schema and how it is made. */
export interface FamilyAnswer<Input extends unknown[]> {
  schema: TSchema;
  of(...input: Input): unknown;
}

/** An answer whose value is checked against its schema's static type where the family defines it. */
export function familyAnswer<Schema extends TSchema, Input extends unknown[]>(
  schema: Schema,
  of: (...input: Input) => Static<Schema>,
): FamilyAnswer<Input> {
  return { schema, of };
}

/** The Chaingateway answers of the address routes, which differ per family. */
export interface CustodyAnswers {
  /** A created address (`privateKey` only for an unsecure one, created without a password). */
  created: FamilyAnswer<[pair: ChainKeyPair, unsecure: boolean]>;
  /** One stored address in the list. */
  listed: FamilyAnswer<[row: CustodyRow]>;
}

/** One read of a shared route whose answer is the family's: what it says, its schema, how a node is asked. */
export interface FamilyRead<Input extends unknown[]> {
  /** The operation's summary: what this family's answer holds. */
  summary: string;
  schema: TSchema;
  read(adapter: ChainAdapter, ...input: Input): Promise<unknown>;
}

/** A read whose answer is checked against its schema's static type where the family defines it. */
export function familyRead<Schema extends TSchema, Input extends unknown[]>(
  summary: string,
  schema: Schema,
  read: (adapter: ChainAdapter, ...input: Input) => Promise<Static<Schema>>,
): FamilyRead<Input> {
  return { summary, schema, read };
}

/** The reads every chain has, as the family's Chaingateway answers them (the routes are shared). */
export interface FamilyReads {
  /** A block's number or hash, as the path names it. */
  blockId: TString;
  /** A transaction id, as the path names it. */
  txid: TString;
  blockNumber: FamilyRead<[]>;
  block: FamilyRead<[id: string]>;
  transaction: FamilyRead<[txid: string]>;
  decodedTransaction: FamilyRead<[txid: string]>;
  receipt: FamilyRead<[txid: string]>;
  decodedReceipt: FamilyRead<[txid: string]>;
  /** The native coin's balance of an address. */
  balance: FamilyRead<[address: string]>;
}

/** A refused send's history row, in the family's words. */
export interface FailedSendRow {
  txid: string | null;
  response: unknown;
  httpStatus: number;
}

/**
 * How a family words a send's refusals. Which refusals the history keeps is the send pipeline's one
 * policy (services/send-pipeline.ts); how they read is the family's.
 */
export interface SendWording {
  /**
   * The answer to a private key given for `from` that is `signer`'s; `txid` is the built transaction's,
   * when known.
   */
  keyRefused(signer: string, from: string, txid: string | null): ApiError;
  /**
   * The answer to a wrong password for `from` (an address, or an HD wallet's name): 401
   * `Wrong password provided`, or the family's documented word for it (Tron: 422 `Validate signature error`).
   */
  wrongPassword(from: string): WrongPasswordAnswer;
  /** The answer the history keeps of a broadcast transaction. */
  sentResponse(txid: string): unknown;
  /** The history row of a refusal; `txid` is the built transaction's, when known. */
  failureRow(error: ApiError, txid: string | null): FailedSendRow;
  /** What the caller is answered for a refusal (Tron: the node's words in their documented short form). */
  answer(error: unknown): unknown;
}

/**
 * How the settler (services/send-settler.ts) learns how a send ended whose process died between its
 * intent and the node's answer: the row becomes the 201 it would have been once the node knows the
 * transaction, or a failure when it still does not after `graceMs`.
 */
export interface SendSettling {
  /**
   * How long after the intent a transaction the node does not know is taken as never sent, or dropped:
   * past the point where it could still land (Tron: its expiration; Solana: its blockhash's lifetime).
   */
  readonly graceMs: number;
  /** Whether the node has the transaction, in its pool or on chain. Throws when the node cannot say. */
  known(adapter: ChainAdapter, txid: string): Promise<boolean>;
  /**
   * How a sent transaction ended, for its history row (services/send-outcomes.ts): SUCCESS, or FAILED
   * with why, once the family calls it final; PENDING while it may still change. `ageMs` is how long ago
   * the history recorded it, for a family that calls a send the node no longer knows failed past its grace.
   * Throws when the node cannot say.
   */
  outcome(adapter: ChainAdapter, txid: string, ageMs: number): Promise<SentOutcome>;
}

/** How a sent transaction ended on chain; `reason` says why a FAILED one failed (null otherwise). */
export interface SentOutcome {
  status: 'PENDING' | 'SUCCESS' | 'FAILED';
  reason: string | null;
}

/** Work that runs on a timer until stopped. */
export interface BackgroundTask {
  start(): void;
  stop(): Promise<void>;
}

/** What a family builds once per context on the ports the shared services give it. */
export interface FamilyParts {
  /**
   * The routes of one of the family's chains, as data (`chains/operations.ts`): its sends, builds and
   * broadcasts, which the HTTP layer answers as every chain's, and the operations only this family has.
   */
  operations(chain: ChainName): readonly ChainOperation[];
  /**
   * The family's work beside the chain watchers, started where the watcher role runs (EVM: sends a node
   * lost are broadcast again).
   */
  readonly watcherTasks: readonly BackgroundTask[];
  /** How the family's sponsor pays a transfer's fee (the paymaster, sweeps); absent where it cannot. */
  readonly sponsor?: FeeSponsor;
}

/** What a webhook filter on one chain may name, and how its addresses are compared. */
export interface ChainWebhookRules {
  /** Transfer types the chain's webhooks filter on (Chaingateway's enums, plus Arbitrum, Solana). */
  types: readonly string[];
  /** Other names accepted for a type (Polygon's native coin was MATIC in the spec). */
  aliases?: Record<string, string>;
  isAddress(address: string): boolean;
  /** The one form matching compares, so an address in any accepted spelling matches. */
  normalize(address: string): string;
  /**
   * The form users are shown (stored webhooks, notifications), from the normalized form, on `network`
   * (TON marks a testnet address in its shown form).
   */
  display(address: string, network: Network): string;
  /** Bitcoin has no token contracts. */
  hasContracts: boolean;
  /** Unconfirmed transfers can be seen (and notified as `pending`) before a block holds them. */
  hasMempool: boolean;
  /** Transfers carry their sender's text (`TransferEvent.comment`), which webhooks may filter on (TON). */
  hasComments?: true;
}

/** A coin the price API quotes, and how each price source names it. */
export interface PricedCoin {
  /** The ticker the API answers with, upper case (`BTC`). */
  readonly symbol: string;
  /** Other tickers it is asked by, upper case (Polygon's POL was MATIC until September 2024). */
  readonly aliases?: readonly string[];
  /** Where the coin stands in the price API's lists, ascending: the order the API has always answered in. */
  readonly order: number;
  /** CoinGecko's coin id (https://api.coingecko.com/api/v3/coins/list). */
  readonly coingeckoId: string;
  /** Its Binance spot pair against USDT; absent where Binance lists none. */
  readonly binancePair?: string;
  /**
   * The offline price source's (sandbox, tests) fixed USD price, its largest drift in basis points and
   * the drift's period in minutes (one that divides no day, so the 24h change varies).
   */
  readonly local: { readonly usd: string; readonly driftBp: number; readonly periodMinutes: number };
}

/** A read of a contract's view function at the latest block (`eth_call`): the call's data in, its answer out. */
export type ContractCall = (
  adapter: ChainAdapter,
  call: { to: string; data: `0x${string}` },
) => Promise<`0x${string}`>;

export interface FamilyModule {
  /** The family's name (`tron`, `evm`). */
  readonly name: string;
  /** Every chain this family serves, with its adapter factory, public endpoints and head probe. */
  readonly chains: Partial<Record<ChainName, ChainFamily>>;
  /**
   * The family's own settings, documented and checked with the gateway's; the family reads their text
   * from `config.familySettings`.
   */
  readonly settings: Readonly<Record<string, Setting<unknown>>>;
  /**
   * How the family makes and reads keys on a network, as the families' settings configure it (Bitcoin's
   * addresses and key forms differ per network).
   */
  keys(network: Network, settings: Env): KeyCodec;
  readonly address: AddressForm;
  readonly custody: CustodyAnswers;
  readonly reads: FamilyReads;
  transferTypes(chain: ChainName): TransferTypes;
  /** The names the history's `type` takes on a chain (what a send moved or did), for its documentation. */
  historyTypes(chain: ChainName): readonly string[];
  /**
   * The decimals of what a history row of `type` moved, where the type alone tells (the coin, NFTs); null
   * for tokens, whose contract says. Rows stored before the amount rule read by it through this.
   */
  historyDecimals(chain: ChainName, type: string): number | null;
  /** How this family's sends word their refusals. */
  readonly sends: SendWording;
  /** How a send whose outcome a restart cut off is looked up on the chain. */
  readonly settling: SendSettling;
  /**
   * How keys are imported and exported, in the family's forms, for the shared `addresses/import` and
   * `addresses/export` routes; absent where the family answers them as its own operations (EVM, whose
   * import takes a keystore too and whose export answers in its own shapes).
   */
  readonly keyForms?: KeyForms;
  /** Builds the family's own parts (its sends, its reads, its operations) on the shared services' ports. */
  createParts(ports: FamilyPorts): FamilyParts;
  /** How the family derives HD wallet addresses on a network; absent where it has no wallets. */
  hdKeys?(network: Network, settings: Env): HdKeyCodec;
  /** The devnets the sandbox runs for this family's chains; loaded only when the sandbox asks. */
  sandboxDevnets(): Promise<DevnetStarters>;
  /** What webhooks on `chain` filter on, and how their addresses are compared and shown. */
  webhookRules(chain: ChainName): ChainWebhookRules;
  /** The family's coins the price API quotes. */
  readonly priceCoins: readonly PricedCoin[];
  /** Reads contracts on the family's chains (Chainlink price feeds); absent where it has none. */
  readonly callContract?: ContractCall;
  /**
   * The migrations of the family's own tables, by name, run in name order among the shared ones
   * (`src/gateway-migrations.ts`): a name is numbered in the one sequence and never changes once released.
   * Absent where the family keeps nothing of its own.
   */
  readonly migrations?: Readonly<Record<string, Migration>>;
}
