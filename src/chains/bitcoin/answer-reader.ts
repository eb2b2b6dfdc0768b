/**
 * Checked reads of a Bitcoin node's JSON answers. A node (or a proxy before it) can send anything: a
 * field of the wrong type must end as the gateway's NodeError saying what was wrong, never as a
 * TypeError deep in a route. Readers throw AnswerShapeError with the path of the bad field; the backend
 * turns it into a BitcoinAnswerError naming the chain, network and call.
 */
import { type NodeClient, NodeError } from '../node-client.ts';

/** A node answer of the wrong shape; a NodeError, so the caller sees a node failure (502). */
export class BitcoinAnswerError extends NodeError {
  override readonly name = 'BitcoinAnswerError';
}

/** What a reader found wrong, before the backend names the call. */
export class AnswerShapeError extends Error {
  override readonly name = 'AnswerShapeError';
}

export type JsonObject = Record<string, unknown>;

const HEX = /^(?:[0-9a-f]{2})*$/i;
const HASH = /^[0-9a-f]{64}$/i;

export function object(value: unknown, path: string): JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AnswerShapeError(`${path} is not an object`);
  }
  return value as JsonObject;
}

export function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw new AnswerShapeError(`${path} is not an array`);
  return value;
}

export function text(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new AnswerShapeError(`${path} is not a string`);
  return value;
}

export function optionalText(value: unknown, path: string): string | null {
  return value === undefined || value === null ? null : text(value, path);
}

export function hex(value: unknown, path: string): string {
  const s = text(value, path);
  if (!HEX.test(s)) throw new AnswerShapeError(`${path} is not hex`);
  return s.toLowerCase();
}

/** A block hash or txid: 64 hex characters, returned lower case. */
export function hash(value: unknown, path: string): string {
  const s = text(value, path);
  if (!HASH.test(s)) throw new AnswerShapeError(`${path} is not a 64-character hex hash`);
  return s.toLowerCase();
}

export function bool(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') throw new AnswerShapeError(`${path} is not a boolean`);
  return value;
}

/** A whole number from 0 up to 2^53 - 1 (heights, sizes, times, indexes, sequence numbers). */
export function count(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new AnswerShapeError(`${path} is not a whole number`);
  }
  return value;
}

/** Any whole number within 2^53, sign included (a transaction's version is a signed 32-bit field). */
export function integer(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new AnswerShapeError(`${path} is not a whole number`);
  }
  return value;
}

export function optionalCount(value: unknown, path: string): number | null {
  return value === undefined || value === null ? null : count(value, path);
}

/** Any finite number (difficulty, a fee rate). */
export function finite(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new AnswerShapeError(`${path} is not a finite number`);
  }
  return value;
}

/** Satoshis written as a JSON integer (Esplora): a safe integer, or a bigint from the lossless parser. */
export function sats(value: unknown, path: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw new AnswerShapeError(`${path} is not a whole number of satoshis`);
}

/** The answer text as JSON, or the reason it is not. */
export function parsed<T>(parse: (text: string) => T, body: string, what: string): T {
  try {
    return parse(body);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new AnswerShapeError(`${what} is not JSON (${detail.slice(0, 120)})`);
  }
}

/** Reads an answer with `read`; a shape it does not expect is the node answering `what` wrongly. */
export function decodeAnswer<T>(client: NodeClient, what: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof AnswerShapeError) throw answerError(client, what, error.message);
    throw error;
  }
}

export function answerError(client: NodeClient, what: string, detail: string): BitcoinAnswerError {
  const { chain, network } = client;
  return new BitcoinAnswerError(
    chain,
    network,
    `${chain} ${network} node answered ${what} wrongly: ${detail}`,
  );
}
