/**
 * BitcoinBackend over an Esplora REST API (Blockstream's electrs, mempool.space, a local esplora), on the
 * shared NodeClient. Esplora's "not found" is a 404 with a text body: those reads answer null. Every
 * JSON answer is read losslessly and checked field by field (answer-reader.ts).
 */
import { parseJsonWithBigInts } from '../../json/lossless-parse.ts';
import { type NodeClient, NodeHttpError } from '../node-client.ts';
import {
  AnswerShapeError,
  answerError,
  array,
  bool,
  count,
  decodeAnswer,
  finite,
  hash,
  hex,
  integer,
  type JsonObject,
  object,
  optionalCount,
  optionalText,
  parsed,
  sats,
  text,
} from './answer-reader.ts';
import type {
  AddressBalance,
  BitcoinBackend,
  BitcoinInput,
  BitcoinOutput,
  BitcoinTx,
  BlockHeader,
  TxStatus,
  Utxo,
} from './backend.ts';
import { BroadcastRefusedError, checkedHash } from './backend.ts';
import { mapBounded } from './bounded-map.ts';

/** Esplora serves a block's transactions 25 to a page. */
const BLOCK_PAGE = 25;
/** Pages of one block fetched at once: a full block is over a hundred pages. */
const BLOCK_PAGE_CONCURRENCY = 4;

/** `sendrawtransaction RPC error -26: reason` (Blockstream since electrs PR #133). */
const REFUSAL_WITH_CODE = /^sendrawtransaction RPC error (-?\d+): ([\s\S]*)$/;
/** `sendrawtransaction RPC error: {"code":-25,"message":"..."}` (older electrs, mempool.space). */
const REFUSAL_WITH_OBJECT = /^sendrawtransaction RPC error: (\{[\s\S]*\})$/;

export class EsploraBackend implements BitcoinBackend {
  readonly #client: NodeClient;

  constructor(client: NodeClient) {
    this.#client = client;
  }

  async tipHeight(): Promise<number> {
    const body = await this.#client.getText('/blocks/tip/height');
    return decodeAnswer(this.#client, 'GET /blocks/tip/height', () => heightText(body));
  }

  async blockHash(height: number): Promise<string | null> {
    const body = await this.#orNull(() => this.#client.getText(`/block-height/${checkedHeight(height)}`));
    return body === null
      ? null
      : decodeAnswer(this.#client, 'GET /block-height', () => hash(body.trim(), 'block hash'));
  }

  async blockHeader(hashOrHeight: string): Promise<BlockHeader | null> {
    const blockHash = await this.#hashOf(hashOrHeight);
    if (blockHash === null) return null;
    const answer = await this.#json(`/block/${blockHash}`);
    return answer === null ? null : decodeAnswer(this.#client, 'GET /block', () => headerOf(answer));
  }

  async blockTxids(blockHash: string): Promise<string[]> {
    const answer = await this.#json(`/block/${checkedHash(blockHash)}/txids`);
    if (answer === null) throw answerError(this.#client, 'GET /block/txids', `block ${blockHash} not found`);
    return decodeAnswer(this.#client, 'GET /block/txids', () =>
      array(answer, 'txids').map((txid, i) => hash(txid, `[${i}]`)),
    );
  }

  async blockTransactions(blockHash: string): Promise<BitcoinTx[]> {
    const header = await this.blockHeader(blockHash);
    if (header === null) throw answerError(this.#client, 'GET /block', `block ${blockHash} not found`);
    const starts = Array.from({ length: Math.ceil(header.txCount / BLOCK_PAGE) }, (_, i) => i * BLOCK_PAGE);
    const pages = await mapBounded(starts, BLOCK_PAGE_CONCURRENCY, async (start) => {
      const answer = await this.#json(`/block/${header.hash}/txs/${start}`);
      if (answer === null)
        throw answerError(this.#client, 'GET /block/txs', `block ${header.hash} vanished while read`);
      const txs = decodeAnswer(this.#client, 'GET /block/txs', () =>
        array(answer, 'page').map((tx, i) => txOf(tx, `[${i}]`)),
      );
      const expected = Math.min(BLOCK_PAGE, header.txCount - start);
      if (txs.length !== expected) {
        throw answerError(
          this.#client,
          'GET /block/txs',
          `page at ${start} has ${txs.length} transactions, not ${expected}`,
        );
      }
      return txs;
    });
    return pages.flat();
  }

  async transaction(txid: string): Promise<BitcoinTx | null> {
    const answer = await this.#json(`/tx/${checkedHash(txid)}`);
    return answer === null ? null : decodeAnswer(this.#client, 'GET /tx', () => txOf(answer, 'tx'));
  }

  async transactionHex(txid: string): Promise<string | null> {
    const body = await this.#orNull(() => this.#client.getText(`/tx/${checkedHash(txid)}/hex`));
    return body === null ? null : decodeAnswer(this.#client, 'GET /tx/hex', () => hex(body.trim(), 'hex'));
  }

  async balance(address: string): Promise<AddressBalance> {
    const answer = await this.#json(`/address/${encodeURIComponent(address)}`);
    if (answer === null) throw answerError(this.#client, 'GET /address', 'address not found');
    return decodeAnswer(this.#client, 'GET /address', () => {
      const root = object(answer, 'address');
      const chain = object(root['chain_stats'], 'chain_stats');
      const mempool = object(root['mempool_stats'], 'mempool_stats');
      const net = (stats: JsonObject, name: string) =>
        sats(stats['funded_txo_sum'], `${name}.funded_txo_sum`) -
        sats(stats['spent_txo_sum'], `${name}.spent_txo_sum`);
      return {
        confirmed: net(chain, 'chain_stats'),
        unconfirmed: net(mempool, 'mempool_stats'),
        txCount:
          count(chain['tx_count'], 'chain_stats.tx_count') +
          count(mempool['tx_count'], 'mempool_stats.tx_count'),
      };
    });
  }

  async utxos(address: string): Promise<Utxo[]> {
    const answer = await this.#json(`/address/${encodeURIComponent(address)}/utxo`);
    if (answer === null) return [];
    return decodeAnswer(this.#client, 'GET /address/utxo', () =>
      array(answer, 'utxo').map((item, i) => {
        const utxo = object(item, `[${i}]`);
        const status = statusOf(utxo['status'], `[${i}].status`);
        return {
          txid: hash(utxo['txid'], `[${i}].txid`),
          vout: count(utxo['vout'], `[${i}].vout`),
          value: sats(utxo['value'], `[${i}].value`),
          confirmed: status.confirmed,
          height: status.blockHeight,
        };
      }),
    );
  }

  mempoolTransactions(address: string): Promise<BitcoinTx[]> {
    return this.#txList(`/address/${encodeURIComponent(address)}/txs/mempool`, 'GET /address/txs/mempool');
  }

  /** One page: up to 50 mempool transactions, then the 25 newest confirmed ones. */
  addressTransactions(address: string): Promise<BitcoinTx[]> {
    return this.#txList(`/address/${encodeURIComponent(address)}/txs`, 'GET /address/txs');
  }

  async broadcast(rawHex: string): Promise<string> {
    let body: string;
    try {
      body = await this.#client.request<string>({
        method: 'POST',
        path: '/tx',
        rawBody: rawHex,
        parse: 'text',
      });
    } catch (error) {
      if (error instanceof NodeHttpError && error.status === 400) throw esploraRefusal(error.body);
      throw error;
    }
    return decodeAnswer(this.#client, 'POST /tx', () => hash(body.trim(), 'txid'));
  }

  async feeEstimates(): Promise<Record<number, number>> {
    const answer = await this.#json('/fee-estimates');
    if (answer === null) throw answerError(this.#client, 'GET /fee-estimates', 'not served');
    return decodeAnswer(this.#client, 'GET /fee-estimates', () => {
      const estimates: Record<number, number> = {};
      for (const [target, rate] of Object.entries(object(answer, 'fee-estimates'))) {
        const blocks = Number(target);
        if (!Number.isSafeInteger(blocks) || blocks < 1)
          throw new AnswerShapeError(`target ${target} is not a block count`);
        const value = typeof rate === 'bigint' ? Number(rate) : finite(rate, `[${target}]`);
        if (value < 0) throw new AnswerShapeError(`[${target}] is negative`);
        estimates[blocks] = value;
      }
      return estimates;
    });
  }

  async #txList(path: string, what: string): Promise<BitcoinTx[]> {
    const answer = await this.#json(path);
    if (answer === null) return [];
    return decodeAnswer(this.#client, what, () => array(answer, 'txs').map((tx, i) => txOf(tx, `[${i}]`)));
  }

  async #hashOf(hashOrHeight: string): Promise<string | null> {
    if (/^[0-9]{1,10}$/.test(hashOrHeight)) return this.blockHash(Number(hashOrHeight));
    return checkedHash(hashOrHeight);
  }

  /** A JSON answer read losslessly; null on a 404. */
  async #json(path: string): Promise<unknown> {
    const body = await this.#orNull(() => this.#client.getText(path));
    if (body === null) return null;
    return decodeAnswer(this.#client, `GET ${path.split('/').slice(0, 2).join('/')}`, () =>
      parsed(parseJsonWithBigInts, body, 'the answer'),
    );
  }

  async #orNull<T>(call: () => Promise<T>): Promise<T | null> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof NodeHttpError && error.status === 404) return null;
      throw error;
    }
  }
}

/** A refusal of POST /tx in either of electrs' forms; any other 400 text is the reason as it stands. */
export function esploraRefusal(body: string): BroadcastRefusedError {
  const trimmed = body.trim();
  const withCode = REFUSAL_WITH_CODE.exec(trimmed);
  if (withCode) return new BroadcastRefusedError(Number(withCode[1]), withCode[2]!.trim());
  const withObject = REFUSAL_WITH_OBJECT.exec(trimmed);
  if (withObject) {
    try {
      const error = object(JSON.parse(withObject[1]!), 'error');
      const code = error['code'];
      const message = error['message'];
      if (typeof code === 'number' && typeof message === 'string')
        return new BroadcastRefusedError(code, message);
    } catch {
      // Not the object form after all: the text is the reason.
    }
  }
  return new BroadcastRefusedError(null, trimmed);
}

function heightText(body: string): number {
  const trimmed = body.trim();
  if (!/^[0-9]{1,10}$/.test(trimmed))
    throw new AnswerShapeError(`tip height ${JSON.stringify(trimmed.slice(0, 40))} is not a number`);
  return Number(trimmed);
}

function checkedHeight(height: number): number {
  if (!Number.isSafeInteger(height) || height < 0)
    throw new RangeError(`block height ${height} is not a whole number`);
  return height;
}

function headerOf(answer: unknown): BlockHeader {
  const block = object(answer, 'block');
  const bits = block['bits'];
  return {
    hash: hash(block['id'], 'id'),
    height: count(block['height'], 'height'),
    previousHash:
      block['previousblockhash'] === undefined || block['previousblockhash'] === null
        ? null
        : hash(block['previousblockhash'], 'previousblockhash'),
    time: count(block['timestamp'], 'timestamp'),
    txCount: count(block['tx_count'], 'tx_count'),
    size: count(block['size'], 'size'),
    weight: count(block['weight'], 'weight'),
    merkleRoot: hash(block['merkle_root'], 'merkle_root'),
    version: integer(block['version'], 'version'),
    bits: typeof bits === 'string' ? text(bits, 'bits') : count(bits, 'bits'),
    nonce: count(block['nonce'], 'nonce'),
    difficulty: finite(block['difficulty'], 'difficulty'),
    mediantime: count(block['mediantime'], 'mediantime'),
  };
}

function statusOf(value: unknown, path: string): TxStatus {
  const status = object(value, path);
  const confirmed = bool(status['confirmed'], `${path}.confirmed`);
  if (!confirmed) return { confirmed, blockHeight: null, blockHash: null, blockTime: null };
  return {
    confirmed,
    blockHeight: count(status['block_height'], `${path}.block_height`),
    blockHash: hash(status['block_hash'], `${path}.block_hash`),
    blockTime: optionalCount(status['block_time'], `${path}.block_time`),
  };
}

function outputOf(value: unknown, n: number, path: string): BitcoinOutput {
  const output = object(value, path);
  return {
    n,
    address: optionalText(output['scriptpubkey_address'], `${path}.scriptpubkey_address`),
    script: hex(output['scriptpubkey'], `${path}.scriptpubkey`),
    type: text(output['scriptpubkey_type'], `${path}.scriptpubkey_type`),
    value: sats(output['value'], `${path}.value`),
  };
}

function inputOf(value: unknown, path: string): BitcoinInput {
  const input = object(value, path);
  const coinbase = bool(input['is_coinbase'], `${path}.is_coinbase`);
  const vout = count(input['vout'], `${path}.vout`);
  const prevout = input['prevout'];
  return {
    txid: hash(input['txid'], `${path}.txid`),
    vout,
    coinbase,
    sequence: count(input['sequence'], `${path}.sequence`),
    prevout: prevout === null || prevout === undefined ? null : outputOf(prevout, vout, `${path}.prevout`),
  };
}

/** A transaction as Esplora writes it (GET /tx/:txid, block pages, address lists). */
export function txOf(value: unknown, path: string): BitcoinTx {
  const tx = object(value, path);
  const weight = count(tx['weight'], `${path}.weight`);
  const inputs = array(tx['vin'], `${path}.vin`).map((input, i) => inputOf(input, `${path}.vin[${i}]`));
  const fee = sats(tx['fee'], `${path}.fee`);
  return {
    txid: hash(tx['txid'], `${path}.txid`),
    version: integer(tx['version'], `${path}.version`),
    locktime: count(tx['locktime'], `${path}.locktime`),
    size: count(tx['size'], `${path}.size`),
    weight,
    vsize: Math.ceil(weight / 4),
    // Esplora writes 0 for a coinbase, which pays no fee of its own.
    fee: inputs.some((input) => input.coinbase) ? null : fee,
    inputs,
    outputs: array(tx['vout'], `${path}.vout`).map((output, n) => outputOf(output, n, `${path}.vout[${n}]`)),
    status: statusOf(tx['status'], `${path}.status`),
  };
}
