/**
 * Solana JSON-RPC over the shared NodeClient, so every call gets its timeout, jittered retries and
 * failover: `kit()` is @solana/kit's typed RPC on that transport, made when first asked for (kit.ts);
 * `raw` answers a method's result as the
 * node wrote it (integers beyond 2^53 as bigint), for the block reads the watcher decodes itself.
 */
import type { Rpc, RpcTransport, SolanaRpcApi } from '@solana/kit';
import { parseJsonWithBigInts } from '../../json/lossless-parse.ts';
import { type NodeClient, NodeError, NodeHttpError } from '../node-client.ts';
import { solanaKit } from './kit.ts';

/** The node answered with a JSON-RPC error object (a 502 to the caller unless a family route words it). */
export class SolanaRpcError extends NodeError {
  override readonly name = 'SolanaRpcError';

  constructor(
    client: NodeClient,
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(client.chain, client.network, message);
  }
}

export class SolanaRpc {
  #kit: Promise<Rpc<SolanaRpcApi>> | undefined;
  #nextId = 1;

  constructor(private readonly client: NodeClient) {}

  /** @solana/kit's typed RPC on this node's transport. */
  kit(): Promise<Rpc<SolanaRpcApi>> {
    this.#kit ??= solanaKit().then(({ createSolanaRpcFromTransport }) => {
      // An error answer is thrown here as the gateway's node error, so kit's own error type never reaches
      // the routes. The result's type is the method's, as kit declares it.
      const transport: RpcTransport = async <T>(config: { payload: unknown; signal?: AbortSignal }) =>
        this.#checked(methodOf(config.payload), await this.#answer(config.payload, config.signal)) as T;
      return createSolanaRpcFromTransport(transport);
    });
    return this.#kit;
  }

  /** One call's result, exact; throws SolanaRpcError when the node answered an error. */
  async raw(method: string, params: readonly unknown[] = []): Promise<unknown> {
    const request = { jsonrpc: '2.0', id: this.#nextId++, method, params };
    return this.#checked(method, await this.#answer(request)).result;
  }

  /** The answer when it holds a result; the node's error, thrown, when it does not. */
  #checked(method: string, answer: unknown): { result: unknown } {
    if (answer === null || typeof answer !== 'object')
      throw this.#error(method, -32603, 'no JSON-RPC answer');
    if ('error' in answer) {
      const { code, message, data } = errorObject(answer.error);
      throw this.#error(method, code, message, data);
    }
    if (!('result' in answer)) throw this.#error(method, -32603, 'no result in the answer');
    return answer;
  }

  #error(method: string, code: number, message: string, data: unknown = null): SolanaRpcError {
    return new SolanaRpcError(this.client, method, code, message, data);
  }

  /** The JSON-RPC envelope the node sent; one whose HTTP status was 4xx is still the answer. */
  async #answer(payload: unknown, signal?: AbortSignal): Promise<unknown> {
    try {
      const text = await this.client.request<string>({
        method: 'POST',
        path: '',
        body: withNumbers(payload),
        parse: 'text',
        signal,
      });
      return parseJsonWithBigInts(text);
    } catch (error) {
      if (error instanceof NodeHttpError) {
        const body = safeParse(error.body);
        if (body !== null && typeof body === 'object' && 'error' in body) return body;
      }
      throw error;
    }
  }
}

/**
 * The request as JSON can carry it: kit passes u64 parameters (slots, sizes) as bigint, which JSON.stringify
 * refuses. Every one the gateway sends is far below 2^53, so it travels as a plain number; a larger one
 * is a programming error, refused rather than rounded.
 */
function withNumbers(value: unknown): unknown {
  if (typeof value === 'bigint') {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new RangeError(`${value} cannot be sent exactly as a JSON-RPC number`);
    }
    return Number(value);
  }
  if (Array.isArray(value)) return value.map(withNumbers);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withNumbers(item)]));
  }
  return value;
}

function methodOf(payload: unknown): string {
  const method =
    payload !== null && typeof payload === 'object' && 'method' in payload ? payload.method : null;
  return typeof method === 'string' ? method : 'request';
}

function errorObject(error: unknown): { code: number; message: string; data: unknown } {
  if (error === null || typeof error !== 'object') return { code: -32603, message: 'node error', data: null };
  const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
  return {
    code: typeof code === 'number' ? code : -32603,
    message: typeof message === 'string' ? message : 'node error',
    data: data ?? null,
  };
}

function safeParse(text: string): unknown {
  try {
    return parseJsonWithBigInts(text);
  } catch {
    return null;
  }
}
