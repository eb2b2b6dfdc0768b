/**
 * JSON-over-HTTP client for blockchain node endpoints (java-tron HTTP, EVM and Solana JSON-RPC, Esplora
 * REST). Every call gets a per-attempt timeout, jittered retries on transient failures and failover
 * across the configured endpoints of one chain and network.
 *
 * Error messages name the chain, network and endpoint host only: endpoint headers, URL paths, query
 * strings and credentials can carry API keys, so they never appear in messages and are scrubbed from
 * any node response text an error carries.
 */
import { setMaxListeners } from 'node:events';
import { Pool } from 'undici';

export interface NodeEndpoint {
  /** Base URL; may carry a base path (`https://host/rpc/abc`), a query (`?api-key=`) or `user:pass@`. */
  url: string;
  /** Extra request headers, typically an API key. */
  headers?: Record<string, string>;
}

export interface NodeClientOptions {
  chain: string;
  network: string;
  /** In order of preference: the first healthy endpoint serves each request. */
  endpoints: NodeEndpoint[];
  /** Per attempt, covering connect, headers and body. Default 10000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 3. */
  retries?: number;
  /** Full-jitter exponential backoff: a random delay below min(backoffMaxMs, base * 2^retry). Default 200. */
  backoffBaseMs?: number;
  /** Cap on any delay between attempts, including one asked for by Retry-After. Default 5000. */
  backoffMaxMs?: number;
  /** How long a failed endpoint is passed over while a healthy one exists. Default 30000. */
  cooldownMs?: number;
  /** Connections per endpoint. Default 16. */
  connections?: number;
  /** Told of every failed attempt, by endpoint host (node metrics count them). */
  onAttemptFailed?: (endpoint: string) => void;
}

export interface NodeRequest {
  method: 'GET' | 'POST';
  /**
   * Appended to the endpoint's base path; may carry its own query. '' or '/' mean the endpoint URL
   * itself (JSON-RPC).
   */
  path: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent verbatim as text/plain instead of `body` (Esplora `POST /tx` takes the raw hex). */
  rawBody?: string;
  /** How to read a 2xx response. Default 'json'. */
  parse?: 'json' | 'text';
  /**
   * Error statuses whose body is still the node's answer when it is JSON, read as a 2xx's: Bitcoin Core
   * sends a JSON-RPC error object with HTTP 500 (404 for an unknown method), which is neither a transient
   * failure to retry nor a refused request. A body that is not JSON keeps the status's usual handling.
   */
  answerStatuses?: readonly number[];
  /** Stops the request and any further retries; the request rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Base of the errors a node call can end with. */
export class NodeError extends Error {
  override readonly name: string = 'NodeError';
  readonly chain: string;
  readonly network: string;

  constructor(chain: string, network: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.chain = chain;
    this.network = network;
  }
}

/** The node answered with a 4xx other than 429: the request itself is wrong, so it is not retried. */
export class NodeHttpError extends NodeError {
  override readonly name = 'NodeHttpError';
  readonly status: number;
  /** Response body, truncated and with endpoint secrets scrubbed. */
  readonly body: string;
  /** Host of the endpoint that answered. */
  readonly endpoint: string;

  constructor(
    chain: string,
    network: string,
    endpoint: string,
    status: number,
    body: string,
    message: string,
  ) {
    super(chain, network, message);
    this.status = status;
    this.body = body;
    this.endpoint = endpoint;
  }
}

/** Every attempt failed with a transient error (network, timeout, 429, 5xx, unreadable body). */
export class NodeUnavailableError extends NodeError {
  override readonly name = 'NodeUnavailableError';
  readonly attempts: number;
  /** One line per attempt: endpoint host and what went wrong. */
  readonly reasons: readonly string[];

  constructor(chain: string, network: string, reasons: string[], cause: unknown) {
    super(
      chain,
      network,
      `${chain} ${network} node unavailable after ${reasons.length} attempt${reasons.length === 1 ? '' : 's'}: ${reasons.at(-1)}`,
      { cause },
    );
    this.attempts = reasons.length;
    this.reasons = reasons;
  }
}

/** Longest response body an error keeps. */
const MAX_ERROR_BODY = 2000;
/** Longest response excerpt quoted in a message. */
const MAX_MESSAGE_EXCERPT = 200;
/** Secrets shorter than this are not scrubbed: they would mangle ordinary text and guard nothing. */
const MIN_SECRET_LENGTH = 4;

interface Endpoint {
  /** The host (and port) only: safe to show. */
  readonly label: string;
  readonly pool: Pool;
  readonly basePath: string;
  readonly baseQuery: string;
  readonly headers: Record<string, string>;
  /** performance.now() time until which the endpoint is passed over; 0 when healthy. */
  unhealthyUntil: number;
  /** Never used again: the node proved to serve another chain or network. */
  disabled: boolean;
}

type AttemptOutcome =
  | { ok: true; value: unknown }
  | { ok: false; reason: string; retryAfterMs?: number; cause?: unknown };

export class NodeClient {
  readonly chain: string;
  readonly network: string;
  // Private fields keep endpoint URLs and headers out of console.log and error serializers.
  readonly #endpoints: Endpoint[];
  readonly #secrets: string[];
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #backoffBaseMs: number;
  readonly #backoffMaxMs: number;
  readonly #cooldownMs: number;
  readonly #onAttemptFailed: ((endpoint: string) => void) | undefined;
  /** Aborted by close(): requests in flight and their retries end at once. */
  readonly #closing = new AbortController();

  constructor(options: NodeClientOptions) {
    const { chain, network } = options;
    this.chain = chain;
    this.network = network;
    // Every request in flight listens on it (and stops listening when it ends): not a leak at any count.
    setMaxListeners(0, this.#closing.signal);
    this.#timeoutMs = positive(options.timeoutMs ?? 10_000, 'timeoutMs');
    this.#retries = nonNegativeInteger(options.retries ?? 3, 'retries');
    this.#backoffBaseMs = nonNegative(options.backoffBaseMs ?? 200, 'backoffBaseMs');
    this.#backoffMaxMs = nonNegative(options.backoffMaxMs ?? 5000, 'backoffMaxMs');
    this.#cooldownMs = nonNegative(options.cooldownMs ?? 30_000, 'cooldownMs');
    this.#onAttemptFailed = options.onAttemptFailed;
    const connections = nonNegativeInteger(options.connections ?? 16, 'connections');
    if (connections === 0) throw new RangeError('connections must be at least 1');
    if (options.endpoints.length === 0) {
      throw new TypeError(`${chain} ${network}: no node endpoints configured`);
    }

    const secrets = new Set<string>();
    const urls = options.endpoints.map((endpoint, i) => {
      let url: URL;
      try {
        url = new URL(endpoint.url);
      } catch {
        // The URL itself is not echoed: it may hold a key.
        throw new TypeError(`${chain} ${network}: node endpoint ${i + 1} has an invalid URL`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new TypeError(`${chain} ${network}: node endpoint ${i + 1} must use http or https`);
      }
      return url;
    });
    const labels = endpointLabels(urls);
    this.#endpoints = urls.map((url, i) => {
      const headers: Record<string, string> = { ...options.endpoints[i]!.headers };
      for (const value of Object.values(headers)) secrets.add(value);
      if (url.username || url.password) {
        let user: string;
        let password: string;
        try {
          user = decodeURIComponent(url.username);
          password = decodeURIComponent(url.password);
        } catch {
          throw new TypeError(`${chain} ${network}: node endpoint ${i + 1} has badly encoded credentials`);
        }
        headers['authorization'] = 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
        for (const value of [url.username, url.password, user, password, headers['authorization']]) {
          secrets.add(value);
        }
      }
      if (url.pathname !== '/') secrets.add(url.pathname);
      for (const [, value] of url.searchParams) secrets.add(value);
      if (url.search) secrets.add(url.search.slice(1));
      return {
        label: labels[i]!,
        pool: new Pool(url.origin, {
          connections,
          connect: { timeout: this.#timeoutMs },
          headersTimeout: this.#timeoutMs,
          bodyTimeout: this.#timeoutMs,
        }),
        basePath: url.pathname,
        baseQuery: url.search.slice(1),
        headers,
        unhealthyUntil: 0,
        disabled: false,
      };
    });
    // Longest first, so a secret containing another is scrubbed whole.
    this.#secrets = [...secrets]
      .filter((s) => s.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
  }

  getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
    return this.request<T>({ method: 'GET', path, parse: 'json', signal });
  }

  postJson<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    return this.request<T>({ method: 'POST', path, body, parse: 'json', signal });
  }

  getText(path: string, signal?: AbortSignal): Promise<string> {
    return this.request<string>({ method: 'GET', path, parse: 'text', signal });
  }

  /**
   * Sends one request, retrying transient failures on the next endpoint. `T` is not checked at run
   * time: callers validate what the node sent. Note that JSON.parse turns integers beyond 2^53 into
   * rounded floats; read such responses with `parse: 'text'` and json/lossless-parse.ts.
   *
   * @throws NodeHttpError on a 4xx other than 429 (not retried).
   * @throws NodeUnavailableError when every attempt failed.
   */
  async request<T>(request: NodeRequest): Promise<T> {
    // One signal for the caller's and close()'s, its listeners removed when the request ends.
    const stop = new AbortController();
    const abort = () => stop.abort(request.signal?.reason ?? this.#closing.signal.reason);
    if (request.signal?.aborted || this.#closing.signal.aborted) abort();
    request.signal?.addEventListener('abort', abort, { once: true });
    this.#closing.signal.addEventListener('abort', abort, { once: true });
    try {
      return await this.#request<T>({ ...request, signal: stop.signal });
    } finally {
      request.signal?.removeEventListener('abort', abort);
      this.#closing.signal.removeEventListener('abort', abort);
    }
  }

  async #request<T>(request: NodeRequest): Promise<T> {
    request.signal?.throwIfAborted();
    if (this.#endpoints.every((endpoint) => endpoint.disabled)) {
      throw new NodeUnavailableError(this.chain, this.network, ['every endpoint is disabled'], undefined);
    }
    const attempts = this.#retries + 1;
    const reasons: string[] = [];
    let lastCause: unknown;
    let index = this.#firstEndpoint();
    for (let attempt = 0; ; attempt++) {
      const endpoint = this.#endpoints[index]!;
      const outcome = await this.#attempt(endpoint, request);
      if (outcome.ok) {
        endpoint.unhealthyUntil = 0;
        return outcome.value as T;
      }
      endpoint.unhealthyUntil = performance.now() + this.#cooldownMs;
      this.#onAttemptFailed?.(endpoint.label);
      reasons.push(`${endpoint.label} ${outcome.reason}`);
      lastCause = outcome.cause;
      if (attempt + 1 >= attempts) break;
      await sleep(this.#delayBeforeRetry(attempt, outcome.retryAfterMs), request.signal);
      index = this.#nextEndpoint(index);
    }
    throw new NodeUnavailableError(this.chain, this.network, reasons, lastCause);
  }

  /**
   * Stops sending requests to the endpoint with this label (as `endpointLabels` names it), for good: it
   * serves another chain or network. Returns how many endpoints are still in use.
   */
  disableEndpoint(label: string): number {
    for (const endpoint of this.#endpoints) if (endpoint.label === label) endpoint.disabled = true;
    return this.#endpoints.filter((endpoint) => !endpoint.disabled).length;
  }

  /**
   * Ends requests in flight and their retries (they reject as unavailable), then closes the connection
   * pools: at shutdown a background call to a node that does not answer must not hold up the exit.
   */
  async close(): Promise<void> {
    this.#closing.abort(
      new NodeUnavailableError(this.chain, this.network, ['the client was closed'], undefined),
    );
    await Promise.all(this.#endpoints.map((endpoint) => endpoint.pool.close()));
  }

  /**
   * The first healthy endpoint in configured order; if none is, the one whose cool-down ends first.
   * Disabled endpoints are never chosen (request() refuses when every endpoint is).
   */
  #firstEndpoint(): number {
    const now = performance.now();
    let soonest = -1;
    for (const [i, endpoint] of this.#endpoints.entries()) {
      if (endpoint.disabled) continue;
      if (endpoint.unhealthyUntil <= now) return i;
      if (soonest === -1 || endpoint.unhealthyUntil < this.#endpoints[soonest]!.unhealthyUntil) soonest = i;
    }
    return soonest;
  }

  /** Round robin from `current`, skipping endpoints in cool-down unless all of them are, and disabled ones. */
  #nextEndpoint(current: number): number {
    const now = performance.now();
    const count = this.#endpoints.length;
    let fallback = -1;
    for (let step = 1; step <= count; step++) {
      const i = (current + step) % count;
      const endpoint = this.#endpoints[i]!;
      if (endpoint.disabled) continue;
      if (endpoint.unhealthyUntil <= now) return i;
      if (fallback === -1) fallback = i;
    }
    return fallback === -1 ? current : fallback;
  }

  #delayBeforeRetry(retry: number, retryAfterMs: number | undefined): number {
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, this.#backoffMaxMs);
    return Math.random() * Math.min(this.#backoffMaxMs, this.#backoffBaseMs * 2 ** retry);
  }

  async #attempt(endpoint: Endpoint, request: NodeRequest): Promise<AttemptOutcome> {
    const parse = request.parse ?? 'json';
    const headers: Record<string, string> = { accept: parse === 'json' ? 'application/json' : '*/*' };
    let body: string | undefined;
    if (request.rawBody !== undefined) {
      body = request.rawBody;
      headers['content-type'] = 'text/plain';
    } else if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    Object.assign(headers, endpoint.headers);

    // One deadline for connect, headers and body together; undici's own timeouts back it up. The
    // caller's signal is forwarded by hand and detached afterwards, so a long-lived signal (a watcher's
    // shutdown signal) collects no listeners.
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, this.#timeoutMs);
    const forwardAbort = () => abort.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', forwardAbort, { once: true });
    try {
      const response = await endpoint.pool.request({
        method: request.method,
        path: joinPath(endpoint.basePath, endpoint.baseQuery, request.path),
        headers,
        body,
        signal: abort.signal,
      });
      const text = await response.body.text();
      const status = response.statusCode;
      if (request.answerStatuses?.includes(status) && isJson(text)) {
        return { ok: true, value: parse === 'text' ? text : JSON.parse(text) };
      }
      if (status >= 200 && status < 300) {
        if (parse === 'text') return { ok: true, value: text };
        try {
          return { ok: true, value: JSON.parse(text) };
        } catch {
          // The SyntaxError quotes the raw body unscrubbed, so it is not kept as a cause.
          return { ok: false, reason: `sent a body that is not JSON: ${this.#excerpt(text)}` };
        }
      }
      if (status === 429 || status >= 500) {
        const excerpt = this.#excerpt(text);
        return {
          ok: false,
          reason: `answered HTTP ${status}${excerpt ? `: ${excerpt}` : ''}`,
          retryAfterMs: retryAfterMs(response.headers['retry-after']),
        };
      }
      const scrubbed = this.#scrub(text.slice(0, MAX_ERROR_BODY));
      const excerpt = this.#excerpt(text);
      throw new NodeHttpError(
        this.chain,
        this.network,
        endpoint.label,
        status,
        scrubbed,
        `${this.chain} ${this.network} node ${endpoint.label} answered HTTP ${status} to ${request.method} ${pathOnly(request.path)}${excerpt ? `: ${excerpt}` : ''}`,
      );
    } catch (error) {
      if (error instanceof NodeHttpError) throw error;
      if (request.signal?.aborted) throw request.signal.reason;
      if (timedOut || isUndiciTimeout(error)) {
        return { ok: false, reason: `timed out after ${this.#timeoutMs} ms`, cause: error };
      }
      return { ok: false, reason: `failed: ${this.#scrub(describeError(error))}`, cause: error };
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', forwardAbort);
    }
  }

  #scrub(text: string): string {
    let scrubbed = text;
    for (const secret of this.#secrets) scrubbed = scrubbed.split(secret).join('***');
    return scrubbed;
  }

  #excerpt(text: string): string {
    const flat = text.replace(/\s+/g, ' ').trim();
    const excerpt = this.#scrub(flat.slice(0, MAX_MESSAGE_EXCERPT));
    return flat.length > MAX_MESSAGE_EXCERPT ? `${excerpt}...` : excerpt;
  }
}

/**
 * What messages, logs and metrics call each endpoint: its host (and port) only, since paths, queries and
 * credentials can hold API keys; numbered when two endpoints share a host.
 */
export function endpointLabels(urls: readonly URL[]): string[] {
  const hostCounts = new Map<string, number>();
  for (const url of urls) hostCounts.set(url.host, (hostCounts.get(url.host) ?? 0) + 1);
  return urls.map((url, i) =>
    (hostCounts.get(url.host) ?? 0) > 1 ? `${url.host} (endpoint ${i + 1})` : url.host,
  );
}

/** Endpoint base path + request path, with the endpoint's query (e.g. an API key) merged in. */
function joinPath(basePath: string, baseQuery: string, path: string): string {
  const queryAt = path.indexOf('?');
  const requestPath = queryAt === -1 ? path : path.slice(0, queryAt);
  const requestQuery = queryAt === -1 ? '' : path.slice(queryAt + 1);
  const fullPath =
    requestPath === '' || requestPath === '/'
      ? basePath
      : basePath.replace(/\/+$/, '') + (requestPath.startsWith('/') ? requestPath : `/${requestPath}`);
  const query = [baseQuery, requestQuery].filter((part) => part !== '').join('&');
  return query === '' ? fullPath : `${fullPath}?${query}`;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function pathOnly(path: string): string {
  const queryAt = path.indexOf('?');
  return queryAt === -1 ? path : path.slice(0, queryAt);
}

/** Retry-After as a delay: delta-seconds or an HTTP date (RFC 9110 10.2.3); undefined when absent or bad. */
function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^[0-9]+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

const UNDICI_TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

function isUndiciTimeout(error: unknown): boolean {
  return error instanceof Error && UNDICI_TIMEOUT_CODES.has((error as { code?: string }).code ?? '');
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: string }).code;
  const message = error.message || error.name;
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function positive(value: number, name: string): number {
  if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`${name} must be a positive number`);
  return value;
}

function nonNegative(value: number, name: string): number {
  if (!(Number.isFinite(value) && value >= 0)) throw new RangeError(`${name} must be zero or more`);
  return value;
}

function nonNegativeInteger(value: number, name: string): number {
  if (!(Number.isInteger(value) && value >= 0)) throw new RangeError(`${name} must be a whole number`);
  return value;
}
