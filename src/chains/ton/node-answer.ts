/**
 * Reading a toncenter answer field by field. The node's JSON is checked as it is read: a field that is
 * missing or of another type is the node's fault, a `TonNodeAnswerError` (a 502 to the caller, a retried
 * step to the watcher), never a crash or an `undefined` travelling on.
 */
import { NodeError } from '../node-client.ts';

/** The node answered JSON of a shape toncenter's v3 API does not have. */
export class TonNodeAnswerError extends NodeError {
  override readonly name = 'TonNodeAnswerError';
}

export type JsonObject = Record<string, unknown>;

/** One JSON object of an answer, read with the answer's name in every complaint. */
export class NodeAnswer {
  constructor(
    private readonly chain: string,
    private readonly network: string,
    /** What the object is, for messages: `masterchainInfo.last`, `transaction.in_msg`. */
    readonly path: string,
    readonly value: JsonObject,
  ) {}

  /** The answer to `what` as an object, or the node's error. */
  static of(chain: string, network: string, what: string, value: unknown): NodeAnswer {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new TonNodeAnswerError(
        chain,
        network,
        `${chain} ${network} node answered ${what} with no object`,
      );
    }
    return new NodeAnswer(chain, network, what, value as JsonObject);
  }

  fail(detail: string): never {
    throw new TonNodeAnswerError(
      this.chain,
      this.network,
      `${this.chain} ${this.network} node answered ${this.path} ${detail}`,
    );
  }

  has(key: string): boolean {
    return this.value[key] !== undefined && this.value[key] !== null;
  }

  object(key: string): NodeAnswer {
    return NodeAnswer.of(this.chain, this.network, `${this.path}.${key}`, this.value[key]);
  }

  optionalObject(key: string): NodeAnswer | null {
    return this.has(key) ? this.object(key) : null;
  }

  array(key: string): unknown[] {
    const value = this.value[key];
    if (!Array.isArray(value)) this.fail(`without the list ${key}`);
    return value;
  }

  objects(key: string): NodeAnswer[] {
    return this.array(key).map((item, i) =>
      NodeAnswer.of(this.chain, this.network, `${this.path}.${key}[${i}]`, item),
    );
  }

  string(key: string): string {
    const value = this.value[key];
    if (typeof value !== 'string') this.fail(`without the text ${key}`);
    return value;
  }

  optionalString(key: string): string | null {
    return this.has(key) ? this.string(key) : null;
  }

  boolean(key: string): boolean {
    const value = this.value[key];
    if (typeof value !== 'boolean') this.fail(`without the flag ${key}`);
    return value;
  }

  optionalBoolean(key: string): boolean | null {
    return this.has(key) ? this.boolean(key) : null;
  }

  /** A whole number the node writes as a JSON number. */
  integer(key: string): number {
    const value = this.value[key];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) this.fail(`without the number ${key}`);
    return value;
  }

  optionalInteger(key: string): number | null {
    return this.has(key) ? this.integer(key) : null;
  }

  /**
   * A whole number the node may write as a decimal string (lt, balances, fees: toncenter writes 64-bit
   * values as strings) or as a number.
   */
  units(key: string): bigint {
    const value = this.value[key];
    if (typeof value === 'string' && /^-?[0-9]{1,40}$/.test(value)) return BigInt(value);
    if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
    return this.fail(`without the whole number ${key}`);
  }

  optionalUnits(key: string): bigint | null {
    return this.has(key) ? this.units(key) : null;
  }
}
