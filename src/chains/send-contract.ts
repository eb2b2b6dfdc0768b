/**
 * What a family hands the send pipeline: a prepared send, built and then signed and broadcast, a wallet's
 * send, and a transaction signed elsewhere, with what the history records of each.
 */

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

/** One send whose fields the family checked, ready for the send pipeline. */
export interface PreparedSend {
  /** The address whose key signs. */
  readonly from: string;
  /** The history entry; `build` fills in an amount whose units only the node knows (token decimals). */
  readonly record: SendRecord;
  /** Asks the node: reads what the amount needs and builds the transaction, checking it can work. */
  build(): Promise<BuiltSend>;
}

/**
 * Called with a transaction's id once it is signed and before the node gets it, and awaited: the send
 * pipeline records the send's intent in the history there, so a process that dies while the node has the
 * transaction leaves a row the settler (services/send-settler.ts) settles from the chain. A family that
 * signs again (EVM, with a fresh nonce after the node refused the first as taken) calls it again with the
 * new id before that broadcast. When it throws, nothing may be broadcast.
 */
export type SendIntent = (txid: string) => Promise<void>;

/** A built transaction, waiting for its key. */
export interface BuiltSend {
  /** Its id when known before signing (Tron), which a key refusal names. */
  readonly txid: string | null;
  /**
   * Pre-flights, signs with `privateKey`, tells `intent` the txid and broadcasts; answers the txid and the
   * answer's data.
   */
  send(privateKey: string, intent: SendIntent): Promise<SentTransaction>;
  /** The send is given up before `send` (a key refused): gives back what the build held (Bitcoin's coins). */
  abandon?(): Promise<void>;
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
  /** Signs with the keys (hex, by address), tells `intent` the txid and broadcasts. */
  send(keys: ReadonlyMap<string, string>, intent: SendIntent): Promise<SentTransaction>;
  /** The send is given up before `send` (a wrong password): gives back what the build held. */
  abandon?(): Promise<void>;
}

/** A transaction signed outside the gateway, ready for the send pipeline. */
export interface SignedBroadcast {
  /** Its id when readable before broadcasting. */
  readonly txid: string | null;
  /** What the history records of it, read from the transaction before it is broadcast. */
  record(): Promise<SendRecord>;
  /**
   * Tells `intent` its txid and broadcasts it; answers its txid. (A transaction too malformed to have an
   * id, which no node takes, goes to the node without an intent, for the node's own refusal.)
   */
  broadcast(intent: SendIntent): Promise<string>;
}
