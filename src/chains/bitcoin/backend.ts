/**
 * The one view of a Bitcoin node the gateway reads through, whichever backend serves it (Esplora REST in
 * esplora.ts, Bitcoin Core JSON-RPC in core-rpc.ts). Satoshis are bigint; heights, sizes and times are
 * numbers; a fee rate (sat/vB) is the one fractional number, being a rate and not an amount.
 */

/** One output, with Esplora's names for script types (Core's are translated). */
export interface BitcoinOutput {
  n: number;
  /** Null for scripts without an address (OP_RETURN, bare multisig, non-standard). */
  address: string | null;
  /** The scriptPubKey, hex. */
  script: string;
  /** v0_p2wpkh, p2pkh, p2sh, v0_p2wsh, v1_p2tr, op_return, p2pk, multisig, unknown ... */
  type: string;
  value: bigint;
}

export interface BitcoinInput {
  txid: string;
  vout: number;
  coinbase: boolean;
  sequence: number;
  /** The output spent; null for a coinbase, or when the node could not tell. */
  prevout: BitcoinOutput | null;
}

export interface TxStatus {
  confirmed: boolean;
  blockHeight: number | null;
  blockHash: string | null;
  blockTime: number | null;
}

export interface BitcoinTx {
  txid: string;
  version: number;
  locktime: number;
  size: number;
  weight: number;
  vsize: number;
  /** Null where the node does not know the spent outputs (Core without undo data), or a coinbase's. */
  fee: bigint | null;
  inputs: BitcoinInput[];
  outputs: BitcoinOutput[];
  status: TxStatus;
}

export interface BlockHeader {
  hash: string;
  height: number;
  /** Null for the genesis block. */
  previousHash: string | null;
  /** Unix seconds. */
  time: number;
  txCount: number;
  size: number;
  weight: number;
  merkleRoot: string;
  version: number;
  /** Esplora writes the compact target as a number, Core as hex text. */
  bits: string | number;
  nonce: number;
  difficulty: number;
  mediantime: number;
}

export interface Utxo {
  txid: string;
  vout: number;
  value: bigint;
  confirmed: boolean;
  height: number | null;
}

export interface AddressBalance {
  confirmed: bigint;
  /** What the mempool adds and spends: may be negative. */
  unconfirmed: bigint;
  txCount: number;
}

/** The node refused a broadcast transaction (decode, policy, missing inputs): the caller's 422. */
/**
 * A block hash or txid a caller hands a backend, checked and lowercased before it is put into a node's
 * URL or RPC call, so nothing else reaches the node.
 */
export function checkedHash(value: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(value)) throw new RangeError('a block hash or txid is 64 hex characters');
  return value.toLowerCase();
}

export class BroadcastRefusedError extends Error {
  override readonly name = 'BroadcastRefusedError';
  /** Bitcoin Core's RPC error code (-22 decode, -25 inputs, -26 policy, -27 already known); null if not said. */
  readonly code: number | null;
  /** The node's own words. */
  readonly reason: string;

  constructor(code: number | null, reason: string) {
    super(code === null ? reason : `${reason} (code ${code})`);
    this.code = code;
    this.reason = reason;
  }
}

export interface BitcoinBackend {
  tipHeight(): Promise<number>;
  /** Null above the tip. */
  blockHash(height: number): Promise<string | null>;
  /** By hash, or by height written in decimal; null for an unknown block. */
  blockHeader(hashOrHeight: string): Promise<BlockHeader | null>;
  /** The ids of the block's transactions, in block order. */
  blockTxids(hash: string): Promise<string[]>;
  /** Every transaction of the block, in block order, with the outputs they spend. */
  blockTransactions(hash: string): Promise<BitcoinTx[]>;
  transaction(txid: string): Promise<BitcoinTx | null>;
  transactionHex(txid: string): Promise<string | null>;
  balance(address: string): Promise<AddressBalance>;
  utxos(address: string): Promise<Utxo[]>;
  mempoolTransactions(address: string): Promise<BitcoinTx[]>;
  /** Latest first: the mempool's, then the first page of confirmed ones. */
  addressTransactions(address: string): Promise<BitcoinTx[]>;
  /** Answers the txid. @throws BroadcastRefusedError when the node refuses it. */
  broadcast(hex: string): Promise<string>;
  /** Confirmation target (blocks) -> sat/vB. */
  feeEstimates(): Promise<Record<number, number>>;
}
