import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A pass-through HTTP proxy in front of a node that holds the first request `isBroadcast` picks out: the
 * node gets it only when the test says so (`forward`), whatever became of the client meanwhile. A test
 * stops a gateway between its history intent and the node's answer with it.
 */
export interface BroadcastHoldProxy {
  readonly url: string;
  /** Resolves once the broadcast has arrived and is held. */
  readonly held: Promise<void>;
  /** Sends the held broadcast on to the node; resolves to the node's answer. */
  forward(): Promise<string>;
  close(): Promise<void>;
}

export async function startBroadcastHoldProxy(
  target: string,
  isBroadcast: (path: string, body: string) => boolean,
): Promise<BroadcastHoldProxy> {
  const relay = async (method: string, path: string, headers: IncomingMessage['headers'], body: string) => {
    const response = await fetch(new URL(path, target), {
      method,
      headers: { 'content-type': String(headers['content-type'] ?? 'application/json') },
      ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
    });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      text: await response.text(),
    };
  };
  let heldRequest: { path: string; headers: IncomingMessage['headers']; body: string } | null = null;
  let markHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    markHeld = resolve;
  });
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const path = request.url ?? '/';
      if (heldRequest === null && isBroadcast(path, body)) {
        // Never answered: the client is to die waiting.
        heldRequest = { path, headers: request.headers, body };
        markHeld();
        return;
      }
      relay(request.method ?? 'GET', path, request.headers, body).then(
        (answer) => {
          response.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' });
          response.end(answer.text);
        },
        () => response.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${new URL(target).pathname.replace(/\/$/, '')}`,
    held,
    forward: async () => {
      if (heldRequest === null) throw new Error('no broadcast held');
      const { path, headers, body } = heldRequest;
      return (await relay('POST', path, headers, body)).text;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
