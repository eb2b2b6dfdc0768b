import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Prometheus metrics on a listener of their own (loopback by default), never on the API port: they name
 * routes, chains and volumes, which is for the operator and not for every holder of the API's address.
 */
export async function startMetricsServer(
  registry: Registry,
  host: string,
  port: number,
): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const answer = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
      response.end(body);
    };
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      answer(
        404,
        'application/json; charset=utf-8',
        JSON.stringify({ status: 404, ok: false, message: 'Not found', errors: [] }),
      );
      return;
    }
    registry.metrics().then(
      (text) => answer(200, registry.contentType, text),
      () => answer(500, 'text/plain', 'metrics unavailable'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { address, port: bound } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
