import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type EvmDevnet, startEvmDevnet } from '../../devnets/evm/index.ts';
import { servedChains } from '../../src/chains/families.ts';
import { NETWORKS } from '../../src/chains/types.ts';
import { freshDatabase, POSTGRES_URL, send, type TestDatabase } from '../helpers/gateway.ts';
import { exited, freePort, PROJECT_ROOT, run, startDetached, waitFor } from '../helpers/processes.ts';
import { runSnippets } from '../helpers/readme-runner.ts';
import { readmeSnippets } from '../helpers/readme-snippets.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

// compose.yaml's gateway services, started as processes from the build on one Postgres schema: the
// deployment the README describes, without Docker (no daemon here), with a real chain (anvil).

interface ComposeService {
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition?: string }>;
  ports?: string[];
}

type GatewayService = ComposeService & { name: string; environment: Record<string, string> };

/** The gateway services of compose.yaml: those that set ROLES (anchors and merge keys resolved). */
function composeGateways(): GatewayService[] {
  const text = readFileSync(path.join(PROJECT_ROOT, 'compose.yaml'), 'utf8');
  const compose = parse(text, { merge: true }) as { services: Record<string, ComposeService> };
  return Object.entries(compose.services).flatMap(([name, service]) =>
    service.environment?.['ROLES'] === undefined
      ? []
      : [{ ...service, name, environment: service.environment }],
  );
}

/** The README's deployment snippets, run word for word as a reader runs them; their output. */
async function runReadmeDeploymentSnippets(): Promise<string> {
  const result = await runSnippets(readmeSnippets('deployment'), {}, 30_000);
  expect(result.code, result.output).toBe(0);
  return result.output;
}

/** `KEY=value` lines, as compose reads them from .env. */
function envLines(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .map((line) => /^([A-Z_]+)=(.*)$/.exec(line.trim()))
      .flatMap((match) => (match ? [[match[1]!, match[2]!]] : [])),
  );
}

interface RoleProcess {
  service: GatewayService;
  env: Record<string, string>;
  /** Where the process answers when it is up: /readyz for the API, else its metrics listener. */
  probeUrl: string;
  apiUrl: string;
  gateway: ReturnType<typeof startDetached>;
}

const DEAD_NODE = 'http://127.0.0.1:9';
const PASSWORD = 'deploy-topology-password';

let database: TestDatabase;
let admin: pg.Client;
let devnet: EvmDevnet;
let receiver: WebhookReceiver;
const processes: RoleProcess[] = [];

/**
 * Node URLs: the anvil devnet for Ethereum mainnet, a closed port for every other chain and network; so
 * readiness requires Ethereum mainnet alone.
 */
function nodeUrls(): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const chain of servedChains()) {
    for (const network of NETWORKS) urls[`${chain.toUpperCase()}_${network.toUpperCase()}_URLS`] = DEAD_NODE;
  }
  return { ...urls, ETHEREUM_MAINNET_URLS: devnet.url, REQUIRED_CHAINS: 'ethereum:mainnet' };
}

/** Signals a process group; one that has just exited is not an error. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** SIGTERM to every role's process group, as `docker compose stop` does; SIGKILL after 15 s. */
async function stopAll(): Promise<(number | null)[]> {
  return Promise.all(
    processes.map(async ({ gateway }) => {
      const pid = gateway.child.pid;
      if (pid === undefined || gateway.child.exitCode !== null) return gateway.child.exitCode;
      signalGroup(pid, 'SIGTERM');
      try {
        return await exited(gateway.child, 15_000);
      } catch {
        signalGroup(pid, 'SIGKILL');
        return null;
      }
    }),
  );
}

beforeAll(async () => {
  database = freshDatabase('postgres');
  admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  // The processes reach the schema through DATABASE_URL's search_path: it must exist before they start.
  await admin.query(`CREATE SCHEMA ${database.pgSchema}; SET search_path TO ${database.pgSchema}`);
  receiver = await startWebhookReceiver();
  devnet = await startEvmDevnet({ chain: 'ethereum' });
}, 120_000);

afterAll(async () => {
  await stopAll();
  await receiver?.close();
  await devnet?.close();
  await admin?.end();
  await database?.drop();
});

describe('the compose topology as processes: two APIs, a watcher, a deliverer on one Postgres', () => {
  it('compose.yaml splits the roles, shares DATABASE_URL and MASTER_KEY from .env, gates on Postgres', () => {
    const gateways = composeGateways();
    expect(gateways.map((g) => g.environment['ROLES']).sort()).toEqual([
      'api',
      'api',
      'deliverer',
      'watcher',
    ]);
    for (const gateway of gateways) {
      expect(gateway.environment['DATABASE_URL'], gateway.name).toMatch(
        /\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:/,
      );
      expect(gateway.environment['MASTER_KEY'], gateway.name).toMatch(/^\$\{MASTER_KEY:\?[^}]+\}$/);
      expect(gateway.depends_on?.['postgres']?.condition, gateway.name).toBe('service_healthy');
      expect(gateway.ports !== undefined, gateway.name).toBe(gateway.environment['ROLES'] === 'api');
    }
  });

  it('delivers a webhook exactly once, signed, for ETH sent through the other API instance', async () => {
    // The README's secrets for .env: the password fits in DATABASE_URL as is, the key is what runs here.
    const secrets = envLines(await runReadmeDeploymentSnippets());
    const password = secrets['POSTGRES_PASSWORD']!;
    expect(new URL(`postgres://switchyard:${password}@postgres/switchyard`).password).toBe(password);
    expect(Buffer.from(secrets['MASTER_KEY']!, 'base64')).toHaveLength(32);

    // Every role starts at once on the empty schema: their migrations run concurrently.
    for (const service of composeGateways()) {
      const literal = Object.entries(service.environment).filter(([, value]) => !value.includes('${'));
      const [port, metricsPort] = await Promise.all([freePort(), freePort()]);
      const env = {
        ...Object.fromEntries(literal),
        ...nodeUrls(),
        DATABASE_URL: database.processEnv['DATABASE_URL']!,
        MASTER_KEY: secrets['MASTER_KEY']!,
        DATA_DIR: database.dataDir,
        // Containers each have their own network; processes on one host take loopback ports of their own.
        HOST: '127.0.0.1',
        PORT: String(port),
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: String(metricsPort),
        NODE_RETRIES: '0',
        PRICE_PROVIDERS: 'local',
        WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
        LOG_LEVEL: 'warn',
        // compose's Redis, here the suite's own (test/api/rate-limits.test.ts), under this run's prefix.
        REDIS_URL: process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379',
        REDIS_PREFIX: `switchyard-topology-${process.pid}:`,
      };
      const apiUrl = `http://127.0.0.1:${port}`;
      const isApi = service.environment['ROLES'] === 'api';
      processes.push({
        service,
        env,
        apiUrl,
        probeUrl: isApi ? `${apiUrl}/readyz` : `http://127.0.0.1:${metricsPort}/metrics`,
        gateway: startDetached(process.execPath, ['dist/src/main.js'], env),
      });
    }
    const output = () => processes.map((p) => `--- ${p.service.name}\n${p.gateway.output()}`).join('\n');
    await waitFor(async () => {
      const exitedEarly = processes.find((p) => p.gateway.child.exitCode !== null);
      if (exitedEarly) throw new Error(`${exitedEarly.service.name} exited:\n${output()}`);
      const answers = await Promise.all(processes.map((p) => fetch(p.probeUrl).catch(() => null)));
      return answers.every((answer) => answer?.ok) ? true : undefined;
    }, 45_000).catch((error: Error) => {
      throw new Error(`${error.message}: the roles did not all come up\n${output()}`);
    });

    // The image's health check passes for every role.
    for (const p of processes) {
      const health = await run(process.execPath, ['scripts/healthcheck.mjs'], p.env);
      expect(health.code, `${p.service.name}: ${health.stdout}`).toBe(0);
    }

    // The admin CLI from the build, on the same database.
    const cli = await run(
      process.execPath,
      ['dist/src/cli/main.js', 'token', 'create', '--email', 'ops@example.com'],
      {
        ...database.processEnv,
        MASTER_KEY: secrets['MASTER_KEY']!,
      },
    );
    expect(cli.code, cli.stderr).toBe(0);
    const token = cli.stdout.trim();

    const [first, second] = processes.filter((p) => p.service.environment['ROLES'] === 'api');
    const api = (p: RoleProcess, method: string, route: string, json?: unknown) =>
      send(p.apiUrl, method, `/api/v2/ethereum${route}`, { token, ...(json === undefined ? {} : { json }) });

    const funded = devnet.accounts[1]!;
    const imported = await api(first!, 'POST', '/addresses/import', {
      privatekey: funded.privateKey,
      password: PASSWORD,
    });
    expect(imported.status, imported.text).toBe(201);
    const to = getAddress(`0x${randomBytes(20).toString('hex')}`);
    const subscribed = await api(first!, 'POST', '/webhooks', { url: `${receiver.url}/hook`, to });
    expect(subscribed.status, subscribed.text).toBe(201);
    const { secret } = subscribed.body.data as { secret: string };

    const sent = await api(second!, 'POST', '/transactions', {
      from: funded.address,
      to,
      amount: '0.25',
      password: PASSWORD,
    });
    expect(sent.status, sent.text).toBe(201);
    const txid = sent.body.data.txid as string;

    await waitFor(() => (receiver.received.length > 0 ? true : undefined), 20_000).catch((error: Error) => {
      throw new Error(`${error.message}: no webhook arrived\n${output()}`);
    });
    // A while longer, with more blocks for the watcher to pass: nothing more may come.
    const head = Number(await devnet.mine(3));
    await waitFor(async () => {
      const { rows } = await admin.query<{ block_number: string }>(
        `SELECT block_number FROM chain_cursors WHERE chain = 'ethereum' AND network = 'mainnet'`,
      );
      return Number(rows[0]?.block_number ?? 0) >= head ? true : undefined;
    }, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    const payload = JSON.parse(delivery!.body) as Record<string, unknown>;
    expect(payload).toMatchObject({ txid, to, amount_raw: '250000000000000000', blockchain: 'ethereum' });
    expect(delivery!.headers['webhook-id']).toBe(payload['id']);
    expect(() =>
      new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>),
    ).not.toThrow();
    const { rows } = await admin.query<{ status: string; attempts: number }>(
      'SELECT status, attempts FROM notifications',
    );
    expect(rows).toEqual([{ status: 'delivered', attempts: 1 }]);
    // The chain was followed by the watcher process alone, which holds its lease.
    const watcher = processes.find((p) => p.service.environment['ROLES'] === 'watcher')!;
    const lease = await admin.query<{ holder: string }>(
      `SELECT holder FROM leases WHERE name = 'watch:ethereum:mainnet'`,
    );
    expect(lease.rows[0]?.holder.split(':')[1]).toBe(String(watcher.gateway.child.pid));

    // Every role shuts down cleanly on SIGTERM, as `docker compose stop` asks.
    expect(await stopAll()).toEqual([0, 0, 0, 0]);
  }, 180_000);
});
