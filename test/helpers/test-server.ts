// A test's own HTTP server standing in for a node or a price API.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

/**
 * Listens on a free port of 127.0.0.1 and returns the base URL; when the test that called it ends the
 * server is closed, its open connections dropped, so no keep-alive socket outlives the test.
 */
export async function listenUntilTestEnds(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
