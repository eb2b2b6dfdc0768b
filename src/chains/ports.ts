/**
 * The few services a family uses, as it sees them: the shared services implement these (the send
 * pipeline, custody, the history), so a family imports nothing from `src/services/` and the composition
 * root (`src/context.ts`) hands them over when it builds the family's parts.
 */

import type { Env } from '../config/setting.ts';
import type { SigningProof } from '../custody/address-keys.ts';
import type { HdWallets } from '../custody/hd-wallets.ts';
import type { TroubleLog } from '../health/trouble-log.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/store.ts';
import type { ChainRegistry } from './registry.ts';
import type { PreparedSend, PreparedWalletSend, SignedBroadcast } from './send-contract.ts';
import type { ChainKeyPair, ChainName, Network, TransferEvent } from './types.ts';

/**
 * The Idempotency-Key a send runs under. `starting` is called once, just before the transaction goes to
 * the node, and throws when the key is no longer this request's (then nothing is sent); the history entry
 * names `id`, so a request cut short by a restart is answered from the history, never sent again.
 */
export interface SendAttempt {
  readonly id: string;
  starting(): Promise<void>;
}

/** Who calls, on which chain and network, and under which Idempotency-Key, if any. */
export interface Caller {
  userId: string;
  chain: ChainName;
  network: Network;
  attempt?: SendAttempt | null;
}

/** What a send answers: its txid and whatever the family adds. */
export type SentData = { txid: string } & Record<string, unknown>;

/** Every send of every family, once (services/send-pipeline.ts). */
export interface SendPort {
  send(caller: Caller, proof: SigningProof, prepared: PreparedSend): Promise<SentData>;
  sendFromWallet(caller: Caller, password: string, prepared: PreparedWalletSend): Promise<SentData>;
  broadcast(caller: Caller, signed: SignedBroadcast): Promise<{ txid: string }>;
}

/** The caller's custodial addresses (services/address-custody.ts). */
export interface CustodyPort {
  import(caller: Caller, privateKey: string, password?: string): Promise<ChainKeyPair>;
  /** The stored key as hex; a wrong password answers 401. */
  exportKey(caller: Caller, address: string, password: string): Promise<string>;
}

/** What the history tells a family of the sends it recorded (services/transaction-log.ts). */
export interface SendHistory {
  /** Whether a send's intent or answer is recorded for `txid`. */
  has(txid: string): Promise<boolean>;
  /** Fails the sends answered 201 as `txid`; answers whose they were. */
  markFailed(chain: string, network: string, txid: string, reason: string): Promise<{ userId: string }[]>;
}

/** How the sender's subscriptions hear of a dropped send (webhooks/send-failures.ts has it). */
export interface DroppedSendNotices {
  /** Queues a `dropped` notification of `transfer` for each of the user's subscriptions that watch its sender. */
  notify(userId: string, transfer: TransferEvent, reason: string, now: Date): Promise<unknown>;
}

/** The services a family's parts are built on. */
export interface FamilyPorts {
  registry: ChainRegistry;
  store: Store;
  logger: Logger;
  /** The families' own settings, as text. */
  settings: Env;
  sends: SendPort;
  custody: CustodyPort;
  hdWallets: HdWallets;
  history: SendHistory;
  /** Node trouble, told once for all its callers (the EVM nonce reconciler's node calls). */
  troubleLog: TroubleLog;
  /** Tells the sender's subscriptions of a send the node dropped (EVM). */
  droppedSends: DroppedSendNotices;
}
