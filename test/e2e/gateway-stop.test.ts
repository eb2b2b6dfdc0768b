// `docker stop` gives a container 10 s before SIGKILL. The built gateway, every role on, with every node
// silent (a socket that accepts and never answers) and work in flight: an API call waiting on a node, the
// watchers holding their leases. SIGTERM must end it within 5 s, cleanly, with the leases handed back.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { servedChains } from '../../src/chains/families.ts';
import { NETWORKS } from '../../src/chains/types.ts';
import { tokenOnDatabase } from '../helpers/gateway-process.ts';
import { exited, freePort, startDetached, waitFor } from '../helpers/processes.ts';

/** A node that takes every connection and never says a word. */
async function silentNode(): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-gateway-stop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function leases(): { name: string; holder: string }[] {
  const db = new Database(path.join(dir, 'switchyard.db'), { readonly: true });
  try {
    return db.prepare('SELECT name, holder FROM leases').all() as { name: string; holder: string }[];
  } finally {
    db.close();
  }
}

describe('the gateway on SIGTERM', () => {
  it('exits 0 within 5 s while no node answers, its leases released', { timeout: 120_000 }, async () => {
    const node = await silentNode();
    const port = await freePort();
    const nodes = Object.fromEntries(
      servedChains().flatMap((chain) =>
        NETWORKS.map((network) => [`${chain.toUpperCase()}_${network.toUpperCase()}_URLS`, node.url]),
      ),
    );
    const env = {
      ...nodes,
      DATA_DIR: dir,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: 'off',
      MASTER_KEY: randomBytes(32).toString('base64'),
      PRICE_PROVIDERS: 'local',
      LOG_LEVEL: 'warn',
      // The production defaults: 10 s a node attempt, 3 retries, so a call can wait most of a minute.
      NODE_TIMEOUT_MS: '10000',
      NODE_RETRIES: '3',
    };
    const token = await tokenOnDatabase(env, 'stop@example.com');
    const base = `http://127.0.0.1:${port}`;
    const gateway = startDetached(process.execPath, ['dist/src/main.js'], env);
    try {
      await waitFor(async () => {
        if (gateway.child.exitCode !== null) throw new Error(`the gateway exited:\n${gateway.output()}`);
        return (await fetch(`${base}/healthz`).catch(() => null))?.ok ? true : undefined;
      }, 60_000);
      // Every watcher holds its lease while it waits on its node.
      const watched = servedChains().length * NETWORKS.length;
      await waitFor(() => (leases().length === watched ? true : undefined), 30_000);
      // An API call waiting on the silent node, on a kept-alive connection.
      const pending = fetch(`${base}/api/v2/ethereum/blocks/number`, {
        headers: { authorization: `Bearer ${token}`, 'x-network': 'mainnet' },
      }).then(
        (response) => response.status,
        (error: Error) => error.message,
      );
      await new Promise((resolve) => setTimeout(resolve, 500));

      const signalled = performance.now();
      process.kill(gateway.child.pid as number, 'SIGTERM');
      const code = await exited(gateway.child, 30_000);
      const stopMs = performance.now() - signalled;
      console.info(`the gateway stopped ${Math.round(stopMs)} ms after SIGTERM`);
      expect(code, gateway.output()).toBe(0);
      expect(stopMs, `stopped after ${Math.round(stopMs)} ms`).toBeLessThan(5_000);
      // The caller got an answer rather than a cut connection: the node was unavailable.
      expect(await pending).toBe(503);
      // What the watchers held is free for another instance at once, not when it expires.
      expect(leases()).toEqual([]);
    } finally {
      if (gateway.child.exitCode === null) process.kill(gateway.child.pid as number, 'SIGKILL');
      await node.close();
    }
  });
});
