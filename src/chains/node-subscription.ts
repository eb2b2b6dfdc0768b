/**
 * One JSON-RPC subscription over a node's WebSocket (EVM `eth_subscribe`, Solana `slotSubscribe`), kept
 * alive: any failure (refused connection, closed socket, an answer that never comes, a silent socket)
 * drops the connection and a new one is made after a jittered, growing delay. It never throws to its
 * user; whoever relies on it polls as well.
 *
 * Messages name the endpoint by host only: a WebSocket URL often carries the provider's API key.
 */
import { WebSocket } from 'undici';
import { describeError } from '../describe-error.ts';
import type { Logger } from '../logger.ts';

export interface JsonRpcCall {
  method: string;
  params: unknown[];
}

export interface NodeSubscriptionOptions {
  /** `ws://` or `wss://`. */
  url: string;
  /** Asked on every connection before subscribing; a problem (another chain) refuses the endpoint. */
  check?: JsonRpcCall & { problem(result: unknown): string | null };
  subscribe: JsonRpcCall;
  /** The method name the node's notifications carry (`eth_subscription`, `slotNotification`). */
  notification: string;
  /**
   * Sent when the socket has been silent for `idleMs`: any answer, an error too, proves it alive. Without
   * one, that silence alone replaces the connection (cheap where notifications come every second).
   */
  probe?: JsonRpcCall;
  /** Each notification's `params.result`. */
  onNotification(result: unknown): void;
  /** Each time the subscription is made, the first time and after every reconnection. */
  onSubscribed(): void;
  logger: Logger;
  /** Default 30000. */
  idleMs?: number;
  /** How long connecting and each answer may take. Default 10000. */
  answerMs?: number;
  /** Default 500. */
  backoffBaseMs?: number;
  /** Default 30000. */
  backoffMaxMs?: number;
}

interface PendingAnswer {
  resolve(message: RpcAnswer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

interface RpcAnswer {
  result?: unknown;
  error?: { code?: number; message?: string };
}

export class NodeSubscription {
  readonly #options: NodeSubscriptionOptions;
  readonly #endpoint: string;
  readonly #idleMs: number;
  readonly #answerMs: number;
  #socket: WebSocket | null = null;
  #stopped = true;
  /** Connections lost or refused since the last subscription made. */
  #failures = 0;
  #retry: NodeJS.Timeout | null = null;
  #idle: NodeJS.Timeout | null = null;
  #nextId = 1;
  /** The endpoint proved to be the wrong node: said once, not at every retry. */
  #refused = false;
  readonly #pending = new Map<number, PendingAnswer>();

  constructor(options: NodeSubscriptionOptions) {
    this.#options = options;
    this.#endpoint = hostOf(options.url);
    this.#idleMs = options.idleMs ?? 30_000;
    this.#answerMs = options.answerMs ?? 10_000;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    this.#retry = null;
    const socket = this.#socket;
    this.#forget(new Error('subscription stopped'));
    if (socket === null || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1_000);
      socket.addEventListener('close', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.close();
    });
  }

  #connect(): void {
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.#options.url);
    } catch (error) {
      this.#failed(null, describeError(error));
      return;
    }
    socket.binaryType = 'arraybuffer';
    this.#socket = socket;
    const opening = setTimeout(
      () => this.#failed(socket, 'no connection within the timeout'),
      this.#answerMs,
    );
    socket.addEventListener('open', () => {
      clearTimeout(opening);
      void this.#subscribe(socket);
    });
    socket.addEventListener('message', (event) => this.#receive(socket, event.data));
    // An error is followed by a close; the close says what happened.
    socket.addEventListener('error', () => {});
    socket.addEventListener('close', (event) => {
      clearTimeout(opening);
      this.#failed(socket, `closed (${event.code}${event.reason ? ` ${event.reason}` : ''})`);
    });
  }

  async #subscribe(socket: WebSocket): Promise<void> {
    const { check, subscribe, logger } = this.#options;
    try {
      if (check !== undefined) {
        const problem = check.problem(resultOf(await this.#call(socket, check), check.method));
        if (problem !== null) {
          if (!this.#refused)
            logger.error({ endpoint: this.#endpoint, problem }, 'node subscription refused');
          this.#refused = true;
          // Not a passing fault: ask again only now and then.
          this.#failures = 20;
          this.#failed(socket, problem, false);
          return;
        }
      }
      resultOf(await this.#call(socket, subscribe), subscribe.method);
    } catch (error) {
      this.#failed(socket, describeError(error));
      return;
    }
    if (socket !== this.#socket) return;
    if (this.#failures > 0) logger.info({ endpoint: this.#endpoint }, 'node subscription made again');
    this.#failures = 0;
    this.#refused = false;
    this.#idle = setTimeout(() => void this.#checkAlive(socket), this.#idleMs);
    this.#options.onSubscribed();
  }

  #receive(socket: WebSocket, data: unknown): void {
    if (socket !== this.#socket) return;
    this.#idle?.refresh();
    let message: unknown;
    try {
      message = JSON.parse(
        typeof data === 'string' ? data : Buffer.from(data as ArrayBuffer).toString('utf8'),
      );
    } catch {
      return;
    }
    if (!isObject(message)) return;
    if (typeof message['id'] === 'number') {
      const pending = this.#pending.get(message['id']);
      if (pending === undefined) return;
      this.#pending.delete(message['id']);
      clearTimeout(pending.timer);
      pending.resolve(message as RpcAnswer);
      return;
    }
    // One subscription per socket: every notification of its method is its own.
    const params = message['params'];
    if (message['method'] === this.#options.notification && isObject(params)) {
      this.#options.onNotification(params['result']);
    }
  }

  /** Silent for idleMs: probe it, or without a probe take it for dead. */
  async #checkAlive(socket: WebSocket): Promise<void> {
    const { probe } = this.#options;
    if (probe === undefined) {
      // Routine on a quiet chain: a new connection at once; only if that fails is it news.
      if (socket !== this.#socket) return;
      this.#options.logger.debug({ endpoint: this.#endpoint }, 'node subscription silent: connecting again');
      this.#forget(new Error('silent'));
      if (!this.#stopped) this.#connect();
      return;
    }
    try {
      await this.#call(socket, probe);
      // An answer refreshed the timer; a socket silent since will be probed again.
    } catch (error) {
      this.#failed(socket, `no answer to ${probe.method}: ${describeError(error)}`);
    }
  }

  #call(socket: WebSocket, call: JsonRpcCall): Promise<RpcAnswer> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`no answer within ${this.#answerMs} ms`));
      }, this.#answerMs);
      this.#pending.set(id, { resolve, reject, timer });
      try {
        socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: call.method, params: call.params }));
      } catch (error) {
        this.#pending.delete(id);
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** The connection is lost or unusable: drop it and, unless stopped, connect again later. */
  #failed(socket: WebSocket | null, reason: string, count = true): void {
    if (socket !== this.#socket) return;
    this.#forget(new Error(reason));
    if (this.#stopped) return;
    if (count) this.#failures++;
    const { logger } = this.#options;
    const fields = { endpoint: this.#endpoint, reason };
    // One warning when a working subscription is lost; the retries after it are not news.
    if (this.#failures === 1) logger.warn(fields, 'node subscription down; polling goes on, reconnecting');
    else logger.debug(fields, 'node subscription still down');
    const base = this.#options.backoffBaseMs ?? 500;
    const max = this.#options.backoffMaxMs ?? 30_000;
    const delay = Math.min(max, base * 2 ** Math.min(this.#failures - 1, 16)) * (0.5 + Math.random() / 2);
    this.#retry = setTimeout(() => {
      this.#retry = null;
      if (!this.#stopped) this.#connect();
    }, delay);
  }

  /** Lets go of the current socket: its answers still awaited fail, its timers stop. */
  #forget(reason: Error): void {
    const socket = this.#socket;
    this.#socket = null;
    if (this.#idle !== null) clearTimeout(this.#idle);
    this.#idle = null;
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(reason);
    }
    this.#pending.clear();
    if (socket !== null && socket.readyState !== WebSocket.CLOSED) {
      try {
        socket.close();
      } catch {
        // Closing a socket that never opened can throw; it is gone either way.
      }
    }
  }
}

/** The answer's result; a JSON-RPC error becomes an Error with the node's words. */
function resultOf(answer: RpcAnswer, method: string): unknown {
  if (answer.error !== undefined) {
    throw new Error(`${method} refused: ${answer.error.message ?? 'error'} (${answer.error.code ?? '?'})`);
  }
  return answer.result;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(unparseable URL)';
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
