/**
 * The shape of a chain family module: everything a family (Tron, EVM, ...) adds to the gateway, as one
 * object exported by `src/chains/<family>/index.ts` and listed once in `families.ts`. Services and the
 * shared routes ask the module; they never import a family's internals.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, type TSchema, type TString, Type } from '@sinclair/typebox';
import type { AppContext } from '../app-context.ts';
import type { Env, Setting } from '../config/setting.ts';
import type { NodeEndpointConfig } from '../config.ts';
import type { HdKeyCodec } from '../custody/hd-wallets.ts';
import type { ApiError } from '../errors.ts';
import type { NetworkProbe } from './network-check.ts';
import type { NodeClient } from './node-client.ts';
import type { AdapterFactory } from './registry.ts';
import type { DevnetStarters } from './sandbox-devnet.ts';
import type { ChainAdapter, ChainKeyPair, ChainName, HeadProbe, Network } from './types.ts';

/** What the registry and the node monitor need of one served chain. */
export interface ChainFamily {
  factory: AdapterFactory;
  defaults: Partial<Record<Network, NodeEndpointConfig[]>>;
  /** The head probe of one endpoint, over a client of that endpoint alone; `settings` are the families' own. */
  probe: (client: NodeClient, network: Network, settings: Env) => HeadProbe;
  /** Which chain and network one endpoint serves (checked at start; one on another is disabled). */
  identify: NetworkProbe;
  /** Headers sent to every endpoint of the chain, from the family's settings (Tron: TronGrid's API key). */
  endpointHeaders?: (settings: Env) => Record<string, string>;
  /**
   * The chain's nodes announce new blocks over a WebSocket, which the adapter's follower subscribes to when
   * `<CHAIN>_<NETWORK>_WS_URL` is set (`BlockFollower.heads`); a chain without it only polls, and refuses
   * the setting.
   */
  headSubscription?: true;
}

/** How a family makes, reads and names its keys. */
export interface KeyCodec {
  generate(): ChainKeyPair;
  /** Throws for a malformed or out-of-range key. */
  fromPrivateKey(privateKey: string): ChainKeyPair;
  /** The forms `fromPrivateKey` takes, as a refusal names them (`64 hex characters`). */
  readonly privateKeyForm: string;
  /** The canonical form an address is stored and compared in. */
  normalizeAddress(address: string): string;
}

/** A family's address: what the schemas state of it and how the gateway checks and stores it. */
export interface AddressForm {
  /** JSON-schema pattern of the forms a request may carry. */
  pattern: string;
  description: string;
  example: string;
  isValid(address: string): boolean;
  /**
   * What is wrong with an address field that its pattern cannot see (EVM: a mistyped EIP-55 checksum),
   * as the field error's message; null when nothing is.
   */
  fieldProblem(field: string, value: unknown): string | null;
  /** The form answers and the store use (base58 for Tron, EIP-55 for EVM). */
  canonical(address: string): string;
}

/** The request schema of an address field in the family's accepted forms. */
export function addressSchema(form: AddressForm): TString {
  return Type.String({ pattern: form.pattern, description: form.description, examples: [form.example] });
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

/** What the history records of one send besides who made it, where, its txid and its answer. */
export interface SendRecord {
  type: string;
  from: string | null;
  to: string | null;
  /** Decimal text in the asset's units; null while (or when) unknown. */
  amount: string | null;
  contractaddress?: string | null;
  tokenid?: string | null;
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
   * when known. (A wrong password is the pipeline's 401 for every family.)
   */
  keyRefused(signer: string, from: string, txid: string | null): ApiError;
  /** The answer the history keeps of a broadcast transaction. */
  sentResponse(txid: string): unknown;
  /** The history row of a refusal; `txid` is the built transaction's, when known. */
  failureRow(error: ApiError, txid: string | null): FailedSendRow;
  /** What the caller is answered for a refusal (Tron: the node's words in their documented short form). */
  answer(error: unknown): unknown;
}

/** One send whose fields the family checked, ready for the send pipeline. */
export interface PreparedSend {
  /** The address whose key signs. */
  readonly from: string;
  /** The history entry; `build` fills in an amount whose units only the node knows (token decimals). */
  readonly record: SendRecord;
  /** Asks the node: reads what the amount needs and builds the transaction, checking it can work. */
  build(): Promise<BuiltSend>;
}

/** A built transaction, waiting for its key. */
export interface BuiltSend {
  /** Its id when known before signing (Tron), which a key refusal names. */
  readonly txid: string | null;
  /** Pre-flights, signs with `privateKey` and broadcasts; answers the txid and the answer's data. */
  send(privateKey: string): Promise<SentTransaction>;
}

export interface SentTransaction {
  txid: string;
  /** The answer's data: `{ txid }`, and whatever else the family adds (Tron: the resource estimate). */
  data: { txid: string } & Record<string, unknown>;
}

/** A send that spends from several addresses of one of the caller's HD wallets (Bitcoin's `walletname`). */
export interface PreparedWalletSend {
  /** The wallet's name. */
  readonly wallet: string;
  readonly record: SendRecord;
  /** Asks the node and builds the transaction (coin selection across the wallet's addresses). */
  build(): Promise<BuiltWalletSend>;
}

export interface BuiltWalletSend {
  /** The wallet's addresses whose keys sign it. */
  readonly signers: readonly string[];
  /** Signs with the keys (hex, by address) and broadcasts. */
  send(keys: ReadonlyMap<string, string>): Promise<SentTransaction>;
}

/** A transaction signed outside the gateway, ready for the send pipeline. */
export interface SignedBroadcast {
  /** Its id when readable before broadcasting. */
  readonly txid: string | null;
  /** What the history records of it, read from the transaction before it is broadcast. */
  record(): Promise<SendRecord>;
  /** Broadcasts it; answers its txid. */
  broadcast(): Promise<string>;
}

/** The services every family builds on: the whole context but the families' own parts. */
export type SharedServices = Omit<AppContext, 'familyParts'>;

/** Work that runs on a timer until stopped. */
export interface BackgroundTask {
  start(): void;
  stop(): Promise<void>;
}

/** What a family builds once per context on the shared services: its own routes, over the parts they use. */
export interface FamilyParts {
  /** The routes only this family has, registered once for all its chains. */
  readonly routes: FastifyPluginAsyncTypebox;
  /**
   * The family's work beside the chain watchers, started where the watcher role runs (EVM: sends a node
   * lost are broadcast again, and how mined sends ended is written into the history).
   */
  readonly watcherTasks: readonly BackgroundTask[];
}

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
  /** How this family's sends word their refusals. */
  readonly sends: SendWording;
  /** Builds the family's own parts (its sends, its reads, its routes) on the shared services. */
  createParts(shared: SharedServices): FamilyParts;
  /** How the family derives HD wallet addresses on a network; absent where it has no wallets. */
  hdKeys?(network: Network, settings: Env): HdKeyCodec;
  /** The devnets the sandbox runs for this family's chains; loaded only when the sandbox asks. */
  sandboxDevnets(): Promise<DevnetStarters>;
}
