import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import type { AppContext } from '../../src/app-context.ts';
import type { FaucetDirectory } from '../../src/chains/faucets.ts';
import { loadConfig } from '../../src/config.ts';
import { closeContext, createContext } from '../../src/context.ts';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/logger.ts';
import type { PriceService } from '../../src/prices/index.ts';
import { undocumentedAnswers } from './documented-statuses.ts';

export const POSTGRES_URL = process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * The key derivations of a test gateway: the test cost (scrypt N = 2^10, a millisecond where the full cost
 * takes half a second or more), for the many tests that seal and open keys without being about the
 * derivation. A test about it (fairness, lockout timing, the cost itself) sets `KDF_COST: 'full'`.
 */
export const TEST_KDF_ENV = { NODE_ENV: 'test', KDF_COST: 'test' };

/**
 * One plan without quotas or a rate limit, for suites that send hundreds of requests a second and assert
 * what the code under test answers, never a 429 (quotas and rate limits have suites of their own).
 */
export const UNLIMITED_PLAN_ENV = {
  PLANS: JSON.stringify([
    {
      name: 'unlimited',
      period: 'month',
      quotas: { webhooks: null, addresses: null, requests: null, transactions: null },
    },
  ]),
};

/** Which database this test run uses: the vitest project sets SWITCHYARD_TEST_DB. */
export function testDatabase(): 'sqlite' | 'postgres' {
  return process.env['SWITCHYARD_TEST_DB'] === 'postgres' ? 'postgres' : 'sqlite';
}

export interface TestDatabase {
  env: Record<string, string>;
  /** The same database as a standalone process (the CLI) must be configured to reach it. */
  processEnv: Record<string, string>;
  pgSchema?: string;
  dataDir: string;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database for one test file: a temp SQLite file or a new Postgres schema (created by the
 * first store opened with `pgSchema`). `kind` defaults to the test run's database.
 */
export function freshDatabase(kind: 'sqlite' | 'postgres' = testDatabase()): TestDatabase {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-test-'));
  if (kind === 'sqlite') {
    const env = { DATA_DIR: dataDir };
    return {
      env,
      processEnv: env,
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const pgSchema = `t_${randomBytes(6).toString('hex')}`;
  const masterKey = randomBytes(32).toString('base64');
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: POSTGRES_URL, MASTER_KEY: masterKey },
    processEnv: {
      DATA_DIR: dataDir,
      DATABASE_URL: `${POSTGRES_URL}?options=-c%20search_path%3D${pgSchema}`,
      MASTER_KEY: masterKey,
    },
    pgSchema,
    dataDir,
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
      await client.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read envelopes of many shapes
  body: any;
  text: string;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
  json?: unknown;
  /** Raw body text, sent as is (with headers as given). */
  raw?: string | Uint8Array;
  form?: Record<string, string>;
  multipart?: Record<string, string>;
}

export interface TestGateway {
  baseUrl: string;
  database: TestDatabase;
  ctx: AppContext;
  app: FastifyInstance;
  logLines: string[];
  request(method: string, url: string, options?: RequestOptions): Promise<ApiResponse>;
  /** Creates a user (if needed) and a token for it. */
  userToken(email?: string, plan?: string): Promise<{ token: string; userId: string }>;
  close(): Promise<void>;
}

export interface GatewayOptions {
  env?: Record<string, string>;
  now?: () => Date;
  faucets?: FaucetDirectory;
  /** A price service of the test's own in place of the configured one. */
  prices?: PriceService;
  routes?: ((app: FastifyInstance) => Promise<void>)[];
  /** Run on this database (e.g. to restart on it) instead of a fresh one; the caller drops it. */
  database?: TestDatabase;
}

/** A real gateway listening on 127.0.0.1 on the test database, with its logs captured. */
export async function startGateway(options: GatewayOptions = {}): Promise<TestGateway> {
  const database = options.database ?? freshDatabase();
  const config = loadConfig({ LOG_LEVEL: 'info', ...TEST_KDF_ENV, ...database.env, ...options.env });
  const logLines: string[] = [];
  const logger = createLogger(config.logLevel, { write: (line: string) => logLines.push(line) });
  const ctx = await createContext(config, {
    logger,
    faucets: options.faucets ?? null,
    ...(options.prices === undefined ? {} : { prices: options.prices }),
    ...(database.pgSchema === undefined ? {} : { pgSchema: database.pgSchema }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const app = await buildApp(
    ctx,
    (options.routes ?? []).map((routes) => async (instance: FastifyInstance) => routes(instance)),
  );
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });

  return {
    baseUrl,
    database,
    ctx,
    app,
    logLines,
    request: (method, url, requestOptions = {}) => send(baseUrl, method, url, requestOptions),
    async userToken(email = `user-${randomBytes(4).toString('hex')}@example.com`, plan) {
      const user = (await ctx.users.findByEmail(email)) ?? (await ctx.users.createUser(email, plan));
      const { token } = await ctx.users.createToken(user.id);
      return { token, userId: user.id };
    },
    async close() {
      const undocumented = await undocumentedAnswers(app, ctx.metrics);
      await app.close();
      await closeContext(ctx);
      if (options.database === undefined) await database.drop();
      if (undocumented.length > 0) {
        throw new Error(`answers the OpenAPI document does not list:\n  ${undocumented.join('\n  ')}`);
      }
    },
  };
}

export async function send(
  baseUrl: string,
  method: string,
  url: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers['authorization'] ??= `Bearer ${options.token}`;
  let body: string | Uint8Array | FormData | URLSearchParams | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  } else if (options.form !== undefined) {
    body = new URLSearchParams(options.form);
  } else if (options.multipart !== undefined) {
    const form = new FormData();
    for (const [key, value] of Object.entries(options.multipart)) form.append(key, value);
    body = form;
  } else if (options.raw !== undefined) {
    body = options.raw;
  }
  const response = await fetch(baseUrl + url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}
