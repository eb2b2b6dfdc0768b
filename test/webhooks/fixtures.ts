import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { MasterKey } from '../../src/custody/master-key.ts';
import { createLogger } from '../../src/logger.ts';
import type { WebhooksTable } from '../../src/store/schema.ts';
import type { Store } from '../../src/store/store.ts';
import { OutboxDeliverer, type OutboxDelivererOptions } from '../../src/webhooks/deliverer.ts';
import { generateWebhookSecret } from '../../src/webhooks/signing.ts';
import { freshDatabase, type TestDatabase } from '../helpers/gateway.ts';
import { openMigratedStore, openTestStore } from '../helpers/test-store.ts';

/** Shared set-up for the deliverer tests: a migrated test database, a master key, one user. */
export interface DeliveryBench {
  database: TestDatabase;
  store: Store;
  masterKey: MasterKey;
  userId: string;
  /** Another connection (pool) to the same database, as a second gateway instance would have. */
  openAnotherStore(): Promise<Store>;
  /** What a gateway process needs to share this database and master key. */
  processEnv: Record<string, string>;
  close(): Promise<void>;
}

export async function openDeliveryBench(): Promise<DeliveryBench> {
  const database = freshDatabase();
  const store = await openMigratedStore(database);
  const masterKeyText = randomBytes(32).toString('base64');
  const masterKey = MasterKey.load(masterKeyText, database.dataDir);
  const userId = await insertUser(store);
  const others: Store[] = [];
  return {
    database,
    store,
    masterKey,
    userId,
    processEnv: { ...database.processEnv, MASTER_KEY: masterKeyText },
    async openAnotherStore() {
      const other = await openTestStore(database);
      others.push(other);
      return other;
    },
    async close() {
      for (const other of others) await other.close();
      await store.close();
      await database.drop();
    },
  };
}

/** A user (the first, number 1) for rows that need an owner; its id. */
export async function insertUser(store: Store): Promise<string> {
  const id = randomUUID();
  await store.db
    .insertInto('users')
    .values({ id, email: `${id}@example.com`, created_at: new Date().toISOString(), number: 1 })
    .execute();
  return id;
}

/**
 * A whole webhooks row, every column set: a live Tron mainnet watch of one address, notified at once,
 * without retries or a previous secret; `fields` say what differs.
 */
export function webhookRow(
  fields: Partial<WebhooksTable> & Pick<WebhooksTable, 'id' | 'user_id'>,
): WebhooksTable {
  const at = new Date().toISOString();
  return {
    chain: 'tron',
    network: 'mainnet',
    url: 'https://example.com/hook',
    from_address: null,
    to_address: 'TTd9qHyjqiUkfTxe3gotbuTMpjU8LEbpkN',
    contract_address: null,
    token_id: null,
    comment: null,
    type: null,
    confirmations: 0,
    notify_reverted: 0,
    notify_pending: 0,
    retry_policy: 'none',
    secret_sealed: 'sealed',
    previous_secret_sealed: null,
    previous_secret_expires_at: null,
    is_active: 1,
    is_invalid: 0,
    invalid_reason: null,
    change_version: 1,
    created_at: at,
    updated_at: at,
    deleted_at: null,
    ...fields,
  };
}

/** One subscription to `address` on a chain's mainnet, announced to watchers: a watcher then follows the chain rather than idling. */
export async function subscribeOneAddress(store: Store, chain: string, address: string): Promise<void> {
  const userId = await insertUser(store);
  await store.db
    .insertInto('webhooks')
    .values(
      webhookRow({
        id: randomUUID(),
        user_id: userId,
        chain,
        url: 'https://receiver.example/hook',
        to_address: address,
        confirmations: 1,
        secret_sealed: 'unused',
      }),
    )
    .execute();
  await store.db.insertInto('watch_versions').values({ chain, network: 'mainnet', version: 1 }).execute();
}

export function newDeliverer(
  bench: DeliveryBench,
  options: Partial<OutboxDelivererOptions> = {},
): OutboxDeliverer {
  return new OutboxDeliverer({
    store: bench.store,
    masterKey: bench.masterKey,
    logger: createLogger('silent'),
    metrics: new Registry(),
    instanceId: `test-${randomUUID()}`,
    timeoutMs: 2_000,
    pollMs: 20,
    allowlist: ['127.0.0.0/8'],
    ...options,
  });
}

export interface WebhookSeed {
  url: string;
  retryPolicy?: 'none' | 'backoff';
  previousSecret?: string;
  previousSecretExpiresAt?: string;
  isActive?: boolean;
  deletedAt?: string;
}

export async function insertWebhook(
  bench: DeliveryBench,
  seed: WebhookSeed,
): Promise<{ id: string; secret: string }> {
  const id = randomUUID();
  const secret = generateWebhookSecret();
  await bench.store.db
    .insertInto('webhooks')
    .values(
      webhookRow({
        id,
        user_id: bench.userId,
        url: seed.url,
        retry_policy: seed.retryPolicy ?? 'none',
        secret_sealed: bench.masterKey.seal(secret, id),
        previous_secret_sealed:
          seed.previousSecret === undefined
            ? null
            : bench.masterKey.seal(seed.previousSecret, `${id}:previous`),
        previous_secret_expires_at: seed.previousSecretExpiresAt ?? null,
        is_active: seed.isActive === false ? 0 : 1,
        deleted_at: seed.deletedAt ?? null,
      }),
    )
    .execute();
  return { id, secret };
}

export interface NotificationSeed {
  webhookId: string;
  status?: string;
  nextAttemptAt?: Date;
  claimedBy?: string;
  claimExpiresAt?: Date;
  blockTime?: Date;
  userId?: string;
}

/** A pending notification with a Chaingateway-shaped payload; returns its id, txid and payload. */
export async function insertNotification(bench: DeliveryBench, seed: NotificationSeed) {
  const id = randomUUID();
  const txid = randomBytes(32).toString('hex');
  // Unicode and spacing on purpose: the signature must cover the stored bytes, not a re-serialisation.
  const payload = `{"id":"${id}","webhook_id":"${seed.webhookId}","txid":"${txid}","amount":108935, "memo":"café ✓"}`;
  const at = new Date().toISOString();
  await bench.store.db
    .insertInto('notifications')
    .values({
      id,
      webhook_id: seed.webhookId,
      user_id: seed.userId ?? bench.userId,
      chain: 'tron',
      network: 'mainnet',
      event: 'transfer',
      txid,
      log_index: 0,
      block_number: 65_542_464,
      block_hash: randomBytes(32).toString('hex'),
      payload,
      status: seed.status ?? 'pending',
      attempts: 0,
      next_attempt_at: (seed.nextAttemptAt ?? new Date()).toISOString(),
      claimed_by: seed.claimedBy ?? null,
      claim_expires_at: seed.claimExpiresAt?.toISOString() ?? null,
      response_status: null,
      response_body: null,
      block_time: (seed.blockTime ?? new Date()).toISOString(),
      created_at: at,
      updated_at: at,
      delivered_at: null,
      left_chain_at: null,
      reverts_id: null,
    })
    .execute();
  return { id, txid, payload };
}

export async function notificationRow(bench: DeliveryBench, id: string) {
  return bench.store.db
    .selectFrom('notifications')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

export async function attemptRows(bench: DeliveryBench, notificationId: string) {
  return bench.store.db
    .selectFrom('notification_attempts')
    .selectAll()
    .where('notification_id', '=', notificationId)
    .orderBy('attempted_at')
    .execute();
}

/** The bench of one test file, with the seeding and reading helpers bound to it. */
export interface DeliveryFixture extends DeliveryBench {
  /** A receiver that is closed after the test that started it. */
  receiver(...args: Parameters<typeof Receiver.start>): Promise<Receiver>;
  insertWebhook(seed: WebhookSeed): ReturnType<typeof insertWebhook>;
  insertNotification(seed: NotificationSeed): ReturnType<typeof insertNotification>;
  newDeliverer(options?: Partial<OutboxDelivererOptions>): OutboxDeliverer;
  notificationRow(id: string): ReturnType<typeof notificationRow>;
  attemptRows(notificationId: string): ReturnType<typeof attemptRows>;
}

/**
 * The hooks of a test file on one delivery bench: opened before its tests, after each test the outbox
 * emptied and the receivers it started closed, closed after the last test. The returned fixture reads
 * the bench when used, so it may be taken at the top of the file.
 */
export function useDeliveryBench(): DeliveryFixture {
  let opened: DeliveryBench | undefined;
  const receivers: Receiver[] = [];
  const bench = (): DeliveryBench => {
    if (opened === undefined) throw new Error('the delivery bench opens before the first test');
    return opened;
  };
  beforeAll(async () => {
    opened = await openDeliveryBench();
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
    if (opened !== undefined) await clearOutbox(opened);
  });
  afterAll(() => opened?.close());
  return {
    get database() {
      return bench().database;
    },
    get store() {
      return bench().store;
    },
    get masterKey() {
      return bench().masterKey;
    },
    get userId() {
      return bench().userId;
    },
    get processEnv() {
      return bench().processEnv;
    },
    openAnotherStore: () => bench().openAnotherStore(),
    close: () => bench().close(),
    async receiver(...args) {
      const started = await Receiver.start(...args);
      receivers.push(started);
      return started;
    },
    insertWebhook: (seed) => insertWebhook(bench(), seed),
    insertNotification: (seed) => insertNotification(bench(), seed),
    newDeliverer: (options) => newDeliverer(bench(), options),
    notificationRow: (id) => notificationRow(bench(), id),
    attemptRows: (notificationId) => attemptRows(bench(), notificationId),
  };
}

/** Empties the outbox so one test's leftovers never reach the next test's deliverer. */
export async function clearOutbox(bench: DeliveryBench): Promise<void> {
  await bench.store.db.deleteFrom('notification_attempts').execute();
  await bench.store.db.deleteFrom('notifications').execute();
}

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A real HTTP receiver on 127.0.0.1 that records every request; `handle` decides the answer. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  handle: Handler = (_req, res) => res.end('ok');
  private readonly server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      this.requests.push({ headers: req.headers, body, at: performance.now() });
      this.handle(req, res, body);
    });
  });

  static async start(handle?: Handler): Promise<Receiver> {
    const receiver = new Receiver();
    if (handle !== undefined) receiver.handle = handle;
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/hook`;
  }

  /** Requests per `webhook-id` header. */
  countsById(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const request of this.requests) {
      const id = String(request.headers['webhook-id']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 5_000, stepMs = 10) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}

/** The Standard Webhooks headers of a received request, as the verifier wants them. */
export function signedHeaders(request: ReceivedRequest): Record<string, string> {
  return {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
}
