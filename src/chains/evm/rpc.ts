/**
 * Ethereum JSON-RPC over the shared NodeClient, so every call gets its timeout, jittered retries and
 * failover. JSON-RPC errors come back as JsonRpcError (the node answered: never retried); transport
 * failures stay NodeClient's errors.
 */
import type { CustomTransport } from 'viem';
import { type NodeClient, NodeHttpError } from '../node-client.ts';
import { EvmInvalidResponseError } from './errors.ts';
import { viem } from './viem.ts';

/** The node answered a JSON-RPC request with an error object. */
export class JsonRpcError extends Error {
  override readonly name = 'JsonRpcError';
  readonly method: string;
  /** JSON-RPC error code (-32000 family for execution, 3 for reverts). viem reads `code` and `data`. */
  readonly code: number;
  readonly data: unknown;

  constructor(method: string, code: number, message: string, data: unknown, options?: ErrorOptions) {
    super(message, options);
    this.method = method;
    this.code = code;
    this.data = data;
  }
}

interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export class EvmRpc {
  readonly #client: NodeClient;
  #nextId = 1;

  constructor(client: NodeClient) {
    this.#client = client;
  }

  get chain(): string {
    return this.#client.chain;
  }

  get network(): string {
    return this.#client.network;
  }

  /**
   * One JSON-RPC call. `T` is not checked at run time beyond "there is a result": callers validate it.
   *
   * @throws JsonRpcError when the node answered with an error (also from a 4xx whose body is one).
   * @throws NodeHttpError, NodeUnavailableError from the transport.
   */
  async request<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    const id = this.#nextId++;
    let body: unknown;
    try {
      body = await this.#client.postJson('', { jsonrpc: '2.0', id, method, params });
    } catch (error) {
      // Some providers answer JSON-RPC errors with HTTP 400: the error object is still the answer.
      const rpcError = error instanceof NodeHttpError ? errorObjectOf(safeParse(error.body)) : null;
      if (rpcError) throw toJsonRpcError(method, rpcError, error);
      throw error;
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new EvmInvalidResponseError(
        `${this.chain} ${this.network} node sent no JSON-RPC object for ${method}`,
      );
    }
    const rpcError = errorObjectOf(body);
    if (rpcError) throw toJsonRpcError(method, rpcError);
    if (!('result' in body)) {
      throw new EvmInvalidResponseError(`${this.chain} ${this.network} node sent no result for ${method}`);
    }
    return (body as { result: T }).result;
  }

  /**
   * A viem transport over this client, for code that wants a viem client. viem's own retries are off:
   * NodeClient already retries transient failures.
   */
  async transport(): Promise<CustomTransport> {
    const { custom } = await viem();
    return custom(
      { request: ({ method, params }) => this.request(method, Array.isArray(params) ? params : []) },
      { key: 'switchyard', name: 'Switchyard NodeClient', retryCount: 0 },
    );
  }
}

function toJsonRpcError(method: string, error: RpcErrorObject, cause?: unknown): JsonRpcError {
  return new JsonRpcError(method, error.code, error.message, error.data, cause ? { cause } : undefined);
}

function errorObjectOf(body: unknown): RpcErrorObject | null {
  if (body === null || typeof body !== 'object') return null;
  const error = (body as { error?: unknown }).error;
  if (error === null || typeof error !== 'object') return null;
  const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
  return {
    code: typeof code === 'number' ? code : -32603,
    message: typeof message === 'string' ? message : 'node error',
    data,
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
