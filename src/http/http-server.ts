import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyServerFactory } from 'fastify';
import { errorBody } from './error-handling.ts';

export const HOST_REQUIRED = 'A Host header is required';
export const TOO_MANY_CONNECTIONS = 'Too many open connections from this address';

/** How often Node checks every open connection against the request and header time-outs. */
const TIMEOUT_CHECK_MS = 1_000;
/** Fastify's own default, which its server factory would set: idle keep-alive connections close after it. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

export interface ConnectionGuards {
  /** Headers and body of a request must arrive within this, else 408 and the connection closes. */
  requestTimeoutMs: number;
  /** Open connections one client address may hold; more are answered 429 and closed. */
  maxConnectionsPerClient: number;
}

/**
 * The HTTP server under the API, with what Fastify's own does not bound: a request trickled a byte at a
 * time is cut when its time is up (Node answers through `clientError`, see answerClientError), one client
 * address holds a bounded number of connections, and a request without Host (HTTP/1.1 requires it) is
 * answered in the envelope rather than with Node's bare 400. These answers come before routing: no route
 * has them to document.
 */
export function guardedServerFactory(guards: ConnectionGuards): FastifyServerFactory {
  return (handler) => {
    const server = http.createServer(
      {
        headersTimeout: guards.requestTimeoutMs,
        requestTimeout: guards.requestTimeoutMs,
        connectionsCheckingInterval: TIMEOUT_CHECK_MS,
        requireHostHeader: false,
      },
      (request, response) => {
        if (request.httpVersion === '1.1' && request.headers.host === undefined) {
          answer(response, 400, HOST_REQUIRED);
          return;
        }
        handler(request, response);
      },
    );
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    limitConnectionsPerClient(server, guards.maxConnectionsPerClient);
    return server;
  };
}

function answer(response: http.ServerResponse, status: number, message: string): void {
  const body = JSON.stringify(errorBody(status, message));
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}

/**
 * One client cannot take every socket, file descriptor and parser the process has (slow bodies, idle
 * keep-alives): a connection over the bound is answered 429 and closed before anything it sends is read.
 */
function limitConnectionsPerClient(server: http.Server, maxPerClient: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const client = socket.remoteAddress ?? '';
    const count = (open.get(client) ?? 0) + 1;
    if (count > maxPerClient) {
      refuse(socket);
      return;
    }
    open.set(client, count);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left === 0) open.delete(client);
      else open.set(client, left);
    });
  });
}

function refuse(socket: Socket): void {
  const body = JSON.stringify(errorBody(429, TOO_MANY_CONNECTIONS));
  socket.pause();
  socket.end(
    `HTTP/1.1 429 ${http.STATUS_CODES[429]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // A client that never reads its answer does not hold the socket open.
  socket.setTimeout(1_000, () => socket.destroy());
}
