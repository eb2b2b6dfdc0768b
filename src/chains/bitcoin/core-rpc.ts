/**
 * BitcoinBackend over Bitcoin Core's JSON-RPC, on the shared NodeClient (POST to the endpoint URL itself,
 * which may carry `/wallet/<name>` and `user:pass@`).
 *
 * Core answers an RPC error with HTTP 500 (404 for an unknown method) and `{result: null, error: {code,
 * message}}`: those bodies are taken as answers (NodeRequest.answerStatuses), so an unknown block is a
 * null here and not four retries and a 503. Amounts are BTC written as JSON decimals (0.00010000): every
 * number is read from its text, never through a double, and becomes satoshis exactly.
 *
 * Core has no address index, so the address reads are built from what it has, with these limits:
 * - confirmed coins come from `scantxoutset` (a scan of the whole UTXO set, seconds on mainnet; Core
 *   runs one at a time, so this backend queues them);
 * - unconfirmed ones come from a scan of the mempool (getrawmempool, then getrawtransaction verbosity 2
 *   for each transaction not already seen), at most MEMPOOL_SCAN_LIMIT transactions: beyond that a
 *   larger mempool is only partly seen; a scan answers for MEMPOOL_SCAN_MAX_AGE_MS, so the unconfirmed
 *   view may be that much behind;
 * - an address's history is its mempool transactions and those that created its unspent coins; spent
 *   history is not known to Core, and `txCount` counts only those.
 */

import { parseJsonLossless } from '../../json/lossless-parse.ts';
import { parseAmount } from '../amount.ts';
import { type NodeClient, NodeError } from '../node-client.ts';
import {
  AnswerShapeError,
  answerError,
  array,
  bool,
  count,
  decodeAnswer,
  hash,
  hex,
  integer,
  type JsonObject,
  object,
  optionalCount,
  parsed,
  text,
} from './answer-reader.ts';
import {
  type AddressBalance,
  type BitcoinBackend,
  type BitcoinInput,
  type BitcoinOutput,
  type BitcoinTx,
  type BlockHeader,
  BroadcastRefusedError,
  checkedHash,
  type TxStatus,
  type Utxo,
} from './backend.ts';
import { mapBounded } from './bounded-map.ts';

/** Transactions of the mempool read per scan at most (each one RPC call the first time it is seen). */
export const MEMPOOL_SCAN_LIMIT = 5000;
/**
 * How long a finished mempool scan still answers: the watcher asks the mempool of every watched address
 * in turn, and each getrawmempool lists the whole mempool (megabytes on mainnet).
 */
export const MEMPOOL_SCAN_MAX_AGE_MS = 2000;
/** Calls in flight while reading the mempool or an address's transactions. */
const CALL_CONCURRENCY = 8;
/** Confirmed transactions an address's history shows (Esplora's first page holds 25). */
const CONFIRMED_PAGE = 25;
/** The targets asked of estimatesmartfee: next block, half an hour, an hour, a day. */
const FEE_TARGETS = [1, 3, 6, 144] as const;

/** Core's RPC error codes this backend reads. */
const RPC_INVALID_ADDRESS_OR_KEY = -5; // unknown block or transaction
const RPC_INVALID_PARAMETER = -8; // getblockhash: height out of range
const RPC_IN_WARMUP = -28;
const RPC_METHOD_NOT_FOUND = -32601;

const COINBASE_TXID = '0'.repeat(64);
const COINBASE_VOUT = 0xffffffff;

/** Core's script type names, as Esplora names them. */
const SCRIPT_TYPES: Readonly<Record<string, string>> = {
  pubkey: 'p2pk',
  pubkeyhash: 'p2pkh',
  scripthash: 'p2sh',
  witness_v0_keyhash: 'v0_p2wpkh',
  witness_v0_scripthash: 'v0_p2wsh',
  witness_v1_taproot: 'v1_p2tr',
  nulldata: 'op_return',
  multisig: 'multisig',
  anchor: 'anchor',
  witness_unknown: 'unknown',
  nonstandard: 'unknown',
};

/** A JSON number that is not a safe integer, kept as written (BTC amounts, difficulty). */
export class JsonDecimal {
  constructor(readonly literal: string) {}
}

/** Core's answers: safe integers as numbers, every other number as its text. */
export function parseCoreJson(body: string): unknown {
  return parseJsonLossless(body, {
    number: (literal) => {
      if (/^-?[0-9]+$/.test(literal)) {
        const value = Number(literal);
        if (Number.isSafeInteger(value)) return value;
      }
      return new JsonDecimal(literal);
    },
    rejectDuplicateKeys: false,
    rejectPrototypeKeys: false,
    maxDepth: 512,
  });
}

/** Core answered a call with an error object. */
export class CoreRpcError extends NodeError {
  override readonly name = 'CoreRpcError';

  constructor(
    client: NodeClient,
    readonly method: string,
    readonly code: number,
    readonly reason: string,
  ) {
    super(
      client.chain,
      client.network,
      `${client.chain} ${client.network} node refused ${method}: ${reason} (code ${code})`,
    );
  }
}

export interface CoreRpcBackendOptions {
  /** Default MEMPOOL_SCAN_LIMIT. */
  mempoolScanLimit?: number;
  /** Default MEMPOOL_SCAN_MAX_AGE_MS; 0 scans at every read. */
  mempoolMaxAgeMs?: number;
}

export class CoreRpcBackend implements BitcoinBackend {
  readonly #client: NodeClient;
  readonly #mempoolScanLimit: number;
  #nextId = 1;
  /** Mempool transactions already read, by txid; pruned to the node's mempool at every scan. */
  readonly #mempool = new Map<string, BitcoinTx>();
  /** The scan under way: concurrent readers share it rather than each asking for every transaction. */
  #mempoolScan: Promise<BitcoinTx[]> | null = null;
  /** The last scan's transactions and when (performance.now()) it finished. */
  #lastScan: { txs: BitcoinTx[]; at: number } | null = null;
  readonly #mempoolMaxAgeMs: number;
  /** The end of the queue of scantxoutset calls (Core refuses a second scan while one runs). */
  #utxoScanQueue: Promise<unknown> = Promise.resolve();

  constructor(client: NodeClient, options: CoreRpcBackendOptions = {}) {
    this.#client = client;
    this.#mempoolScanLimit = options.mempoolScanLimit ?? MEMPOOL_SCAN_LIMIT;
    this.#mempoolMaxAgeMs = options.mempoolMaxAgeMs ?? MEMPOOL_SCAN_MAX_AGE_MS;
  }

  /** One call's result. @throws CoreRpcError when Core answered an error. */
  async call(method: string, params: readonly unknown[] = []): Promise<unknown> {
    const id = this.#nextId++;
    const body = await this.#client.request<string>({
      method: 'POST',
      path: '',
      body: { jsonrpc: '1.0', id, method, params },
      parse: 'text',
      answerStatuses: [400, 404, 500],
    });
    const envelope = decodeAnswer(this.#client, method, () =>
      object(parsed(parseCoreJson, body, 'the answer'), 'answer'),
    );
    const error = envelope['error'];
    if (error !== null && error !== undefined) {
      const { code, message } = decodeAnswer(this.#client, method, () => {
        const fields = object(error, 'error');
        return {
          code: integer(fields['code'], 'error.code'),
          message: text(fields['message'], 'error.message'),
        };
      });
      throw new CoreRpcError(this.#client, method, code, message);
    }
    if (!('result' in envelope)) throw answerError(this.#client, method, 'no result in the answer');
    return envelope['result'];
  }

  async tipHeight(): Promise<number> {
    const result = await this.call('getblockcount');
    return decodeAnswer(this.#client, 'getblockcount', () => count(result, 'result'));
  }

  async blockHash(height: number): Promise<string | null> {
    if (!Number.isSafeInteger(height) || height < 0)
      throw new RangeError(`block height ${height} is not a whole number`);
    const result = await this.#orNull(this.call('getblockhash', [height]), RPC_INVALID_PARAMETER);
    return result === null ? null : decodeAnswer(this.#client, 'getblockhash', () => hash(result, 'result'));
  }

  async blockHeader(hashOrHeight: string): Promise<BlockHeader | null> {
    const blockHash = /^[0-9]{1,10}$/.test(hashOrHeight)
      ? await this.blockHash(Number(hashOrHeight))
      : checkedHash(hashOrHeight);
    if (blockHash === null) return null;
    const result = await this.#orNull(this.call('getblock', [blockHash, 1]));
    return result === null
      ? null
      : decodeAnswer(this.#client, 'getblock', () => headerOf(object(result, 'result')));
  }

  async blockTxids(blockHash: string): Promise<string[]> {
    const result = await this.#orNull(this.call('getblock', [checkedHash(blockHash), 1]));
    if (result === null) throw answerError(this.#client, 'getblock', `block ${blockHash} not found`);
    return decodeAnswer(this.#client, 'getblock', () =>
      array(object(result, 'result')['tx'], 'tx').map((txid, i) => hash(txid, `tx[${i}]`)),
    );
  }

  async blockTransactions(blockHash: string): Promise<BitcoinTx[]> {
    const result = await this.#orNull(this.call('getblock', [checkedHash(blockHash), 3]));
    if (result === null) throw answerError(this.#client, 'getblock', `block ${blockHash} not found`);
    return decodeAnswer(this.#client, 'getblock', () => {
      const block = object(result, 'result');
      const header = headerOf(block);
      const status: TxStatus = {
        confirmed: true,
        blockHeight: header.height,
        blockHash: header.hash,
        blockTime: header.time,
      };
      const txs = array(block['tx'], 'tx').map((tx, i) => txOf(tx, `tx[${i}]`, status));
      if (txs.length !== header.txCount) {
        throw new AnswerShapeError(`the block lists ${txs.length} transactions, not nTx ${header.txCount}`);
      }
      return txs;
    });
  }

  async transaction(txid: string): Promise<BitcoinTx | null> {
    const result = await this.#orNull(this.call('getrawtransaction', [checkedHash(txid), 2]));
    if (result === null) return null;
    const tx = decodeAnswer(this.#client, 'getrawtransaction', () => object(result, 'result'));
    const blockHash = decodeAnswer(this.#client, 'getrawtransaction', () =>
      tx['blockhash'] === undefined ? null : hash(tx['blockhash'], 'blockhash'),
    );
    let status: TxStatus = { confirmed: false, blockHeight: null, blockHash: null, blockTime: null };
    if (blockHash !== null) {
      // The answer names the block, not its height.
      const header = await this.#orNull(this.call('getblockheader', [blockHash, true]));
      const height =
        header === null
          ? null
          : decodeAnswer(this.#client, 'getblockheader', () =>
              count(object(header, 'result')['height'], 'height'),
            );
      status = {
        confirmed: true,
        blockHeight: height,
        blockHash,
        blockTime: decodeAnswer(this.#client, 'getrawtransaction', () =>
          optionalCount(tx['blocktime'], 'blocktime'),
        ),
      };
    }
    return decodeAnswer(this.#client, 'getrawtransaction', () => txOf(tx, 'result', status));
  }

  async transactionHex(txid: string): Promise<string | null> {
    const result = await this.#orNull(this.call('getrawtransaction', [checkedHash(txid), 0]));
    return result === null
      ? null
      : decodeAnswer(this.#client, 'getrawtransaction', () => hex(result, 'result'));
  }

  async balance(address: string): Promise<AddressBalance> {
    const [confirmed, mempool] = await this.#coinsAndMempool(address);
    let unconfirmed = 0n;
    for (const tx of mempool) {
      for (const output of tx.outputs) if (output.address === address) unconfirmed += output.value;
      for (const input of tx.inputs)
        if (input.prevout?.address === address) unconfirmed -= input.prevout.value;
    }
    const txids = new Set([...confirmed.map((utxo) => utxo.txid), ...mempool.map((tx) => tx.txid)]);
    return {
      confirmed: confirmed.reduce((sum, utxo) => sum + utxo.value, 0n),
      unconfirmed,
      txCount: txids.size,
    };
  }

  /** Confirmed coins not spent in the mempool, then the mempool's coins to the address still unspent. */
  async utxos(address: string): Promise<Utxo[]> {
    const [confirmed, mempool] = await this.#coinsAndMempool(address);
    const spent = new Set(
      (await this.#mempoolTxs(0)).flatMap((tx) => tx.inputs.map((input) => `${input.txid}:${input.vout}`)),
    );
    const unconfirmed = mempool.flatMap((tx) =>
      tx.outputs
        .filter((output) => output.address === address)
        .map((output) => ({
          txid: tx.txid,
          vout: output.n,
          value: output.value,
          confirmed: false,
          height: null,
        })),
    );
    return [...confirmed, ...unconfirmed].filter((utxo) => !spent.has(`${utxo.txid}:${utxo.vout}`));
  }

  mempoolTransactions(address: string): Promise<BitcoinTx[]> {
    return this.#mempoolOf(address);
  }

  /** The mempool's transactions of the address, then those that created its unspent coins (25, newest first). */
  async addressTransactions(address: string): Promise<BitcoinTx[]> {
    const [confirmed, mempool] = await Promise.all([this.#scanUtxos(address), this.#mempoolOf(address)]);
    const byTxid = new Map<string, number>();
    for (const utxo of confirmed) byTxid.set(utxo.txid, utxo.height ?? 0);
    const newest = [...byTxid.entries()].sort((a, b) => b[1] - a[1]).slice(0, CONFIRMED_PAGE);
    const txs = await mapBounded(newest, CALL_CONCURRENCY, ([txid, height]) =>
      this.#confirmedTx(txid, height),
    );
    return [...mempool, ...txs.filter((tx): tx is BitcoinTx => tx !== null)];
  }

  async broadcast(rawHex: string): Promise<string> {
    let result: unknown;
    try {
      result = await this.call('sendrawtransaction', [rawHex]);
    } catch (error) {
      if (
        error instanceof CoreRpcError &&
        error.code !== RPC_IN_WARMUP &&
        error.code !== RPC_METHOD_NOT_FOUND
      ) {
        throw new BroadcastRefusedError(error.code, error.reason);
      }
      throw error;
    }
    return decodeAnswer(this.#client, 'sendrawtransaction', () => hash(result, 'result'));
  }

  /** estimatesmartfee for 1, 3, 6 and 144 blocks; a target Core cannot estimate yet is left out. */
  async feeEstimates(): Promise<Record<number, number>> {
    const answers = await Promise.all(FEE_TARGETS.map((target) => this.call('estimatesmartfee', [target])));
    const estimates: Record<number, number> = {};
    answers.forEach((answer, i) => {
      const feerate = decodeAnswer(
        this.#client,
        'estimatesmartfee',
        () => object(answer, 'result')['feerate'],
      );
      if (feerate === undefined) return;
      // BTC per 1000 vB -> sat per vB: satoshis per kvB, exactly, then divided by 1000.
      const satsPerKvB = decodeAnswer(this.#client, 'estimatesmartfee', () => btc(feerate, 'feerate'));
      estimates[FEE_TARGETS[i]!] = Number(satsPerKvB) / 1000;
    });
    return estimates;
  }

  async #confirmedTx(txid: string, height: number): Promise<BitcoinTx | null> {
    // Without -txindex Core finds a confirmed transaction only in a block it is told.
    const blockHash = await this.blockHash(height);
    if (blockHash === null) return null;
    const result = await this.#orNull(this.call('getrawtransaction', [txid, 2, blockHash]));
    if (result === null) return null;
    return decodeAnswer(this.#client, 'getrawtransaction', () => {
      const tx = object(result, 'result');
      return txOf(tx, 'result', {
        confirmed: true,
        blockHeight: height,
        blockHash,
        blockTime: optionalCount(tx['blocktime'], 'blocktime'),
      });
    });
  }

  /**
   * The address's confirmed coins and its mempool transactions, read fresh: a balance or a coin
   * selection must not count a transaction twice, once mined and once from a scan made before.
   */
  async #coinsAndMempool(address: string): Promise<[Utxo[], BitcoinTx[]]> {
    const [confirmed, mempool] = await Promise.all([this.#scanUtxos(address), this.#mempoolOf(address, 0)]);
    const mined = new Set(confirmed.map((utxo) => utxo.txid));
    return [confirmed, mempool.filter((tx) => !mined.has(tx.txid))];
  }

  /** scantxoutset of one address, queued behind any scan under way. */
  #scanUtxos(address: string): Promise<Utxo[]> {
    // The address goes into a descriptor: only its own characters may.
    if (!/^[a-zA-Z0-9]{14,90}$/.test(address)) throw new RangeError('not a Bitcoin address');
    const scan = this.#utxoScanQueue.then(() => this.call('scantxoutset', ['start', [`addr(${address})`]]));
    this.#utxoScanQueue = scan.catch(() => undefined);
    return scan.then((result) =>
      decodeAnswer(this.#client, 'scantxoutset', () => {
        const answer = object(result, 'result');
        if (answer['success'] !== undefined && !bool(answer['success'], 'success')) {
          throw new AnswerShapeError('the scan did not complete');
        }
        return array(answer['unspents'], 'unspents').map((item, i) => {
          const unspent = object(item, `unspents[${i}]`);
          return {
            txid: hash(unspent['txid'], `unspents[${i}].txid`),
            vout: count(unspent['vout'], `unspents[${i}].vout`),
            value: btc(unspent['amount'], `unspents[${i}].amount`),
            confirmed: true,
            height: count(unspent['height'], `unspents[${i}].height`),
          };
        });
      }),
    );
  }

  async #mempoolOf(address: string, maxAgeMs = this.#mempoolMaxAgeMs): Promise<BitcoinTx[]> {
    const txs = await this.#mempoolTxs(maxAgeMs);
    return txs.filter(
      (tx) =>
        tx.outputs.some((output) => output.address === address) ||
        tx.inputs.some((input) => input.prevout?.address === address),
    );
  }

  /**
   * The mempool's transactions (at most the scan limit), new ones read, gone ones forgotten: the scan
   * under way, or one finished within the maximum age, or a new one.
   */
  #mempoolTxs(maxAgeMs = this.#mempoolMaxAgeMs): Promise<BitcoinTx[]> {
    if (this.#mempoolScan !== null) return this.#mempoolScan;
    const last = this.#lastScan;
    if (last !== null && performance.now() - last.at < maxAgeMs) return Promise.resolve(last.txs);
    const scan = this.#scanMempool().then((txs) => {
      this.#lastScan = { txs, at: performance.now() };
      return txs;
    });
    this.#mempoolScan = scan.finally(() => {
      this.#mempoolScan = null;
    });
    return this.#mempoolScan;
  }

  async #scanMempool(): Promise<BitcoinTx[]> {
    const listing = await this.call('getrawmempool', [false]);
    const txids = decodeAnswer(this.#client, 'getrawmempool', () =>
      array(listing, 'result').map((txid, i) => hash(txid, `result[${i}]`)),
    ).slice(0, this.#mempoolScanLimit);
    const current = new Set(txids);
    for (const txid of this.#mempool.keys()) if (!current.has(txid)) this.#mempool.delete(txid);
    const unseen = txids.filter((txid) => !this.#mempool.has(txid));
    await mapBounded(unseen, CALL_CONCURRENCY, async (txid) => {
      // Mined or evicted since the listing: gone, which is what the next listing will say too.
      const result = await this.#orNull(this.call('getrawtransaction', [txid, 2]));
      if (result === null) return;
      const unconfirmed: TxStatus = { confirmed: false, blockHeight: null, blockHash: null, blockTime: null };
      this.#mempool.set(
        txid,
        decodeAnswer(this.#client, 'getrawtransaction', () => txOf(result, 'result', unconfirmed)),
      );
    });
    return txids.map((txid) => this.#mempool.get(txid)).filter((tx): tx is BitcoinTx => tx !== undefined);
  }

  /** The call's result, or null when Core says it does not know the thing asked for. */
  async #orNull<T>(call: Promise<T>, code = RPC_INVALID_ADDRESS_OR_KEY): Promise<T | null> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof CoreRpcError && error.code === code) return null;
      throw error;
    }
  }
}

/** A BTC amount as Core writes it (a JSON decimal, at most 8 places) in satoshis, exactly. */
export function btc(value: unknown, path: string): bigint {
  const literal =
    value instanceof JsonDecimal ? value.literal : typeof value === 'number' ? String(value) : null;
  if (literal === null) throw new AnswerShapeError(`${path} is not an amount`);
  try {
    return parseAmount(literal, 8, { allowZero: true });
  } catch {
    throw new AnswerShapeError(`${path} ${literal} is not an amount of BTC`);
  }
}

/** A number Core may write with decimals (difficulty): its double, which only displays use. */
function decimal(value: unknown, path: string): number {
  const number = value instanceof JsonDecimal ? Number(value.literal) : value;
  if (typeof number !== 'number' || !Number.isFinite(number))
    throw new AnswerShapeError(`${path} is not a number`);
  return number;
}

function headerOf(block: JsonObject): BlockHeader {
  const previous = block['previousblockhash'];
  return {
    hash: hash(block['hash'], 'hash'),
    height: count(block['height'], 'height'),
    previousHash: previous === undefined || previous === null ? null : hash(previous, 'previousblockhash'),
    time: count(block['time'], 'time'),
    txCount: count(block['nTx'], 'nTx'),
    size: count(block['size'], 'size'),
    weight: count(block['weight'], 'weight'),
    merkleRoot: hash(block['merkleroot'], 'merkleroot'),
    version: integer(block['version'], 'version'),
    bits: text(block['bits'], 'bits'),
    nonce: count(block['nonce'], 'nonce'),
    difficulty: decimal(block['difficulty'], 'difficulty'),
    mediantime: count(block['mediantime'], 'mediantime'),
  };
}

function scriptOf(value: unknown, n: number, amount: unknown, path: string): BitcoinOutput {
  const script = object(value, `${path}.scriptPubKey`);
  const type = text(script['type'], `${path}.scriptPubKey.type`);
  let address: string | null = null;
  if (script['address'] !== undefined) {
    address = text(script['address'], `${path}.scriptPubKey.address`);
  } else if (Array.isArray(script['addresses']) && script['addresses'].length === 1) {
    // Core before 22 wrote a one-element list.
    address = text(script['addresses'][0], `${path}.scriptPubKey.addresses[0]`);
  }
  return {
    n,
    address,
    script: hex(script['hex'], `${path}.scriptPubKey.hex`),
    type: SCRIPT_TYPES[type] ?? 'unknown',
    value: btc(amount, `${path}.value`),
  };
}

function inputOf(value: unknown, path: string): BitcoinInput {
  const input = object(value, path);
  const sequence = count(input['sequence'], `${path}.sequence`);
  if (input['coinbase'] !== undefined) {
    hex(input['coinbase'], `${path}.coinbase`);
    return { txid: COINBASE_TXID, vout: COINBASE_VOUT, coinbase: true, sequence, prevout: null };
  }
  const vout = count(input['vout'], `${path}.vout`);
  const prevout = input['prevout'];
  let spent: BitcoinOutput | null = null;
  if (prevout !== undefined && prevout !== null) {
    const fields = object(prevout, `${path}.prevout`);
    spent = scriptOf(fields['scriptPubKey'], vout, fields['value'], `${path}.prevout`);
  }
  return { txid: hash(input['txid'], `${path}.txid`), vout, coinbase: false, sequence, prevout: spent };
}

/** A transaction as Core writes it at verbosity 2 (getrawtransaction) or inside getblock verbosity 3. */
function txOf(value: unknown, path: string, status: TxStatus): BitcoinTx {
  const tx = object(value, path);
  const outputs = array(tx['vout'], `${path}.vout`).map((item, i) => {
    const output = object(item, `${path}.vout[${i}]`);
    return scriptOf(
      output['scriptPubKey'],
      count(output['n'], `${path}.vout[${i}].n`),
      output['value'],
      `${path}.vout[${i}]`,
    );
  });
  return {
    txid: hash(tx['txid'], `${path}.txid`),
    version: integer(tx['version'], `${path}.version`),
    locktime: count(tx['locktime'], `${path}.locktime`),
    size: count(tx['size'], `${path}.size`),
    weight: count(tx['weight'], `${path}.weight`),
    vsize: count(tx['vsize'], `${path}.vsize`),
    // Absent where Core lacks the spent outputs' data (pruned undo files) and for a coinbase.
    fee: tx['fee'] === undefined ? null : btc(tx['fee'], `${path}.fee`),
    inputs: array(tx['vin'], `${path}.vin`).map((item, i) => inputOf(item, `${path}.vin[${i}]`)),
    outputs,
    status,
  };
}
