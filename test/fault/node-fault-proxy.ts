/**
 * An HTTP server in front of a JSON-RPC node (anvil) that forwards every request, and misbehaves on a
 * share of them when told to (node-fault.ts): slow, silent, rate limited, failing, cut short, garbled or
 * lagging. Which requests are hit is drawn from a seeded generator. The upstream can be switched to a
 * node on another fork, as a load balancer does when it moves to another backend.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../helpers/seeded-random.ts';
import { type JsonRpcCall, parseAnswer, singleCall, wrongTypeOf } from './json-rpc-message.ts';
import type { UpstreamCall } from './lagging-node.ts';
import { answerBehind } from './lagging-node.ts';
import type { NodeFault, NodeFaultKind } from './node-fault.ts';

export interface NodeFaultProxyOptions {
  /** JSON-RPC URL of the node behind the proxy. */
  upstream: string;
  /** Seed of the draws that pick the faulted requests and the delays. */
  seed: number;
}

/** Which requests a fault hits. */
export interface FaultScope {
  /** Share of the requests hit, drawn from the seeded generator. Default 1: every one. */
  share?: number;
  /** Only calls of these JSON-RPC methods are hit. Default: every method. */
  methods?: readonly string[];
}

export interface NodeFaultProxy {
  /** http://127.0.0.1:<port>, for the gateway's node endpoint. */
  readonly url: string;
  /** From now on the requests in `scope` get `fault`; the others are forwarded untouched. */
  setFault(fault: NodeFault, scope?: FaultScope): void;
  /** Every request is forwarded untouched again. */
  heal(): void;
  /** Forwards to another node from now on. */
  switchUpstream(url: string): void;
  /** Requests answered with a fault so far, by kind. */
  faulted(): Readonly<Partial<Record<NodeFaultKind, number>>>;
  close(): Promise<void>;
}

interface UpstreamAnswer {
  status: number;
  contentType: string;
  text: string;
}

const NO_FAULT: NodeFault = { kind: 'none' };

/** What a load balancer in front of a failed node answers, by status. */
const ERROR_PAGES: Record<500 | 502 | 503, string> = {
  500: 'Internal Server Error',
  502: '<html><body><h1>502 Bad Gateway</h1></body></html>',
  503: '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"service unavailable"}}',
};

export async function startNodeFaultProxy(options: NodeFaultProxyOptions): Promise<NodeFaultProxy> {
  const random = seededRandom(options.seed);
  let upstream = options.upstream;
  let fault: NodeFault = NO_FAULT;
  let scope: FaultScope = {};
  const counts: Partial<Record<NodeFaultKind, number>> = {};

  const post = async (body: string): Promise<UpstreamAnswer> => {
    const response = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? 'application/json',
      text: await response.text(),
    };
  };
  const call: UpstreamCall = async (method, params) => {
    const answer = parseAnswer((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).text);
    if (answer === null) throw new Error(`the upstream sent no JSON-RPC answer to ${method}`);
    return answer;
  };

  /** The upstream's answer, as the current fault lets the proxy see it (lagging or garbled). */
  const upstreamAnswer = async (body: string, rpc: JsonRpcCall | null, chosen: NodeFault) => {
    if (chosen.kind === 'behind' && rpc !== null) {
      return json(200, JSON.stringify(await answerBehind(rpc, chosen.blocks, call)));
    }
    const answer = await post(body);
    if (chosen.kind !== 'wrong-shape') return answer;
    const parsed = parseAnswer(answer.text);
    if (parsed === null || !('result' in parsed)) return answer;
    return json(answer.status, JSON.stringify({ ...parsed, result: wrongTypeOf(parsed.result) }));
  };

  const handle = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    const body = await readBody(request);
    const rpc = singleCall(body);
    const inScope = scope.methods === undefined || (rpc !== null && scope.methods.includes(rpc.method));
    const chosen = fault.kind !== 'none' && inScope && random() < (scope.share ?? 1) ? fault : NO_FAULT;
    if (chosen.kind !== 'none') counts[chosen.kind] = (counts[chosen.kind] ?? 0) + 1;
    switch (chosen.kind) {
      case 'drop':
        request.socket.destroy();
        return;
      case 'rate-limit':
        return send(response, {
          status: 429,
          contentType: 'application/json',
          text: JSON.stringify({
            jsonrpc: '2.0',
            id: rpc?.id ?? null,
            error: { code: -32005, message: 'rate limit exceeded' },
          }),
          headers: { 'retry-after': String(chosen.retryAfterSeconds) },
        });
      case 'server-error':
        return send(response, {
          status: chosen.status,
          contentType: 'text/html',
          text: ERROR_PAGES[chosen.status],
        });
      case 'not-json':
        return send(response, {
          status: 200,
          contentType: 'text/html',
          text: '<html><body>Upstream temporarily unavailable</body></html>',
        });
      case 'delay':
        await sleep(chosen.minMs + random() * (chosen.maxMs - chosen.minMs));
        break;
    }
    const answer = await upstreamAnswer(body, rpc, chosen);
    if (chosen.kind === 'truncated-body') return sendHalf(response, answer);
    return send(response, answer);
  };

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // The upstream itself failed (a fork being started, a node closing): a gateway in front says 502.
      if (response.headersSent) response.destroy();
      else send(response, { status: 502, contentType: 'text/plain', text: String(error) });
    });
  });
  // A client that gave up mid-answer (its timeout) is no failure of the proxy.
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setFault(next, nextScope = {}) {
      fault = next;
      scope = nextScope;
    },
    heal() {
      fault = NO_FAULT;
    },
    switchUpstream(url) {
      upstream = url;
    },
    faulted: () => ({ ...counts }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(status: number, text: string): UpstreamAnswer {
  return { status, contentType: 'application/json', text };
}

function send(
  response: http.ServerResponse,
  answer: UpstreamAnswer & { headers?: Record<string, string> },
): void {
  if (response.destroyed) return;
  response
    .writeHead(answer.status, {
      'content-type': answer.contentType,
      'content-length': Buffer.byteLength(answer.text),
      ...answer.headers,
    })
    .end(answer.text);
}

/** The headers promise the whole answer; half of it is sent, then the connection ends. */
function sendHalf(response: http.ServerResponse, answer: UpstreamAnswer): void {
  if (response.destroyed) return;
  const bytes = Buffer.from(answer.text);
  response.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': bytes.length });
  response.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => response.socket?.destroy());
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
