import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  body: string;
  path: string;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Every request so far, in arrival order. */
  received: ReceivedRequest[];
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** The status answered to a request (after it is recorded); default 200. */
  status?: (request: ReceivedRequest, received: readonly ReceivedRequest[]) => number;
}

/** A subscriber's server on 127.0.0.1 that records every request and answers 200 (or as `status` says). */
export async function startWebhookReceiver(options: ReceiverOptions = {}): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const hit = { headers: request.headers, body, path: request.url ?? '' };
      received.push(hit);
      response.writeHead(options.status?.(hit, received) ?? 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
