/**
 * Property-based fuzzing of every operation in the gateway's own OpenAPI document. Whatever is sent
 * (documented shapes, wrong types, huge or broken text, odd encodings, bad tokens), the answer is never a
 * 500, always the JSON envelope, never a raw NUL byte or a token, and the gateway stays responsive.
 *
 * Each operation gets FUZZ_RUNS requests hostile anywhere (default 12), then FUZZ_RUNS / 6 (at least 3)
 * aimed at each of its parameters and body places in turn. FUZZ_SEED sets the seed (printed on failure).
 */
import * as fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CHAIN_NAMES } from '../../src/chains/types.ts';
import { PRICE_SYMBOLS } from '../../src/prices/symbols.ts';
import {
  type Example,
  type Focus,
  type FuzzContext,
  type FuzzRequest,
  focusesOf,
  type OpenApiDocument,
  type Operation,
  operationsOf,
  requestsFor,
  type Schema,
} from '../helpers/fuzz.ts';
import { startGateway } from '../helpers/gateway.ts';
import { OFFLINE_NODES_ENV } from '../helpers/offline-nodes.ts';

// Stored keys are sealed with scrypt at N = 2^17; the suite is about input handling, so that cost is lowered.
vi.mock('node:crypto', async (importOriginal) =>
  (await import('../helpers/offline-nodes.ts')).cheapScrypt(importOriginal),
);

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 12);
const FOCUSED_RUNS = Math.max(3, Math.ceil(RUNS / 6));
const SEED = Number(process.env['FUZZ_SEED'] ?? 20_240_611);
if (!Number.isSafeInteger(SEED) || !Number.isSafeInteger(RUNS) || RUNS < 1) {
  throw new Error('FUZZ_SEED must be an integer and FUZZ_RUNS a positive integer');
}
const HEALTH_EVERY = 25;
const HEALTH_BUDGET_MS = 100;

const gw = await startGateway({ env: { ...OFFLINE_NODES_ENV, LOG_LEVEL: 'warn' } });
afterAll(() => gw.close());

const { token } = await gw.userToken(undefined, 'enterprise');
const { token: otherToken } = await gw.userToken();
// DELETEs last: until then, what they could delete (the seeded addresses and webhooks) stays for the others.
const operations = operationsOf((await gw.request('GET', '/openapi.json')).body as OpenApiDocument).sort(
  (a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'),
);

// Things that exist, so that generated requests also reach stored addresses and webhooks, and requests
// known to be accepted, for aimed requests to change one place of.
const PASSWORD = 'fuzz password 1';
const known: string[] = [];
const examples: Record<string, Example> = {};
for (const op of operations.filter(
  (o) => o.method === 'POST' && /^\/api\/v2\/\w+\/addresses$/.test(o.path),
)) {
  const chain = op.path.split('/')[3] ?? '';
  for (const json of [{}, { password: PASSWORD }])
    known.push((await gw.request('POST', op.path, { token, json })).body.data[0].address);
  const address = known.at(-1) ?? '';
  const body = { url: 'https://93.184.216.34/hook', to: address };
  const id = (await gw.request('POST', `/api/v2/${chain}/webhooks`, { token, json: body })).body.data.webhook;
  known.push(id);
  examples['POST /api/v2/{chain}/webhooks'] ??= { params: { chain }, body };
  examples['PUT /api/v2/{chain}/webhooks/{id}'] ??= { params: { chain, id }, body };
  examples['POST /api/v2/webhooks'] ??= { params: {}, body: { ...body, blockchain: chain } };
  examples[`POST /api/v2/${chain}/addresses/export/{address}`] = {
    params: { address },
    body: { password: PASSWORD },
  };
}

const TRON_ADDRESS = '^T[1-9A-HJ-NP-Za-km-z]{33}$';
const EVM_ADDRESS = '^0x[0-9a-fA-F]{40}$';
const DECIMAL: Schema = { type: 'string', pattern: '^[0-9]{1,30}(\\.[0-9]{1,30})?$' };
const ANY_ADDRESS: Schema = { type: 'string', anyOf: [{ pattern: TRON_ADDRESS }, { pattern: EVM_ADDRESS }] };
const PASSWORDS: Schema = { type: 'string', enum: [PASSWORD, 'another password'] };
/** A password change keeps the seeded password, which the examples use. */
const NEW_PASSWORD: Schema = { type: 'string', enum: [PASSWORD] };
const CHAINS: Schema = { type: 'string', enum: [...CHAIN_NAMES, 'TRON'] };
const PRICE_CODES: Schema = { type: 'string', enum: [...PRICE_SYMBOLS, 'usd', 'EUR', 'matic'] };
const TRON_PARTY: Schema = { anyOf: [{ pattern: TRON_ADDRESS }, { pattern: '^41[0-9a-f]{40}$' }] };

/** What a signed Tron transaction's raw_data holds (the document leaves it an open object). */
const TRON_RAW_DATA: Schema = {
  type: 'object',
  required: ['contract'],
  properties: {
    contract: {
      type: 'array',
      minItems: 1,
      maxItems: 1,
      items: {
        type: 'object',
        required: ['type', 'parameter'],
        properties: {
          type: { enum: ['TransferContract', 'TriggerSmartContract'] },
          parameter: {
            type: 'object',
            required: ['value'],
            properties: {
              value: {
                type: 'object',
                properties: {
                  amount: { type: 'integer', minimum: 0 },
                  owner_address: TRON_PARTY,
                  to_address: TRON_PARTY,
                  contract_address: TRON_PARTY,
                  data: { pattern: '^[0-9a-f]{0,136}$' },
                },
              },
              type_url: { type: 'string' },
            },
          },
        },
      },
    },
    ref_block_bytes: { pattern: '^[0-9a-f]{4}$' },
    ref_block_hash: { pattern: '^[0-9a-f]{16}$' },
    expiration: { type: 'integer', minimum: 0 },
    timestamp: { type: 'integer', minimum: 0 },
  },
};

/** A Web3 keystore v3 (the document leaves `content` an open object); cheap KDF costs only. */
const KEYSTORE: Schema = {
  type: 'object',
  required: ['version', 'crypto'],
  properties: {
    version: { enum: [3] },
    address: { pattern: '^[0-9a-f]{40}$' },
    crypto: {
      type: 'object',
      required: ['cipher', 'ciphertext', 'cipherparams', 'kdf', 'kdfparams', 'mac'],
      properties: {
        cipher: { enum: ['aes-128-ctr'] },
        ciphertext: { pattern: '^[0-9a-f]{64}$' },
        cipherparams: { type: 'object', required: ['iv'], properties: { iv: { pattern: '^[0-9a-f]{32}$' } } },
        kdf: { enum: ['scrypt', 'pbkdf2'] },
        kdfparams: {
          type: 'object',
          properties: {
            n: { enum: [2, 16, 1024] },
            r: { type: 'integer', minimum: 1, maximum: 8 },
            p: { type: 'integer', minimum: 1, maximum: 2 },
            c: { type: 'integer', minimum: 1, maximum: 1000 },
            prf: { enum: ['hmac-sha256'] },
            dklen: { enum: [32] },
            salt: { pattern: '^[0-9a-f]{32,64}$' },
          },
        },
        mac: { pattern: '^[0-9a-f]{64}$' },
      },
    },
  },
};

const ctx: FuzzContext = {
  known,
  examples,
  hints: {
    'header:x-network': { type: 'string', enum: ['mainnet', 'testnet', 'TestNet'] },
    'path:chain': CHAINS,
    'path:id': {
      type: 'string',
      pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$',
    },
    'path:symbol': PRICE_CODES,
    'query:from': PRICE_CODES,
    'query:to': PRICE_CODES,
    'query:symbols': { type: 'string', enum: ['BTC', 'eth,TRX', PRICE_SYMBOLS.join(',')] },
    'query:amount': DECIMAL,
    amount: DECIMAL,
    fee_limit: DECIMAL,
    gas: DECIMAL,
    gasprice: DECIMAL,
    maxFeePerGas: DECIMAL,
    maxPriorityFeePerGas: DECIMAL,
    nonce: DECIMAL,
    password: PASSWORDS,
    old_password: PASSWORDS,
    new_password: NEW_PASSWORD,
    url: { type: 'string', format: 'uri' },
    blockchain: CHAINS,
    from: ANY_ADDRESS,
    to: ANY_ADDRESS,
    contractaddress: ANY_ADDRESS,
    type: {
      type: 'string',
      enum: ['TRX', 'TRC10', 'TRC20', 'TRC721', 'ETH', 'ERC20', 'ERC721', 'BNB', 'BEP20'],
    },
    retry: { type: 'string', enum: ['none', 'backoff'] },
    confirmations: { type: 'string', pattern: '^[0-9]{1,3}$' },
    notify_reverted: { type: 'string', enum: ['true', 'false'] },
    token_id: { type: 'string', pattern: '^[0-9]{1,78}$' },
    raw_data: TRON_RAW_DATA,
    content: KEYSTORE,
  },
};

let sent = 0;
const slowHealth: string[] = [];

async function send(request: FuzzRequest): Promise<{ status: number; text: string }> {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      value.replaceAll('<other token>', otherToken).replaceAll('<token>', token),
    ]),
  );
  try {
    const response = await fetch(gw.baseUrl + request.url, {
      method: request.method,
      headers,
      ...(request.body === undefined ? {} : { body: Buffer.from(request.body, 'utf8') }),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    throw new Error(`no answer: ${String((error as Error).cause ?? error)}`);
  }
}

/** Every `HEALTH_EVERY` requests, /healthz must answer within the budget. */
async function probeHealth(after: FuzzRequest): Promise<void> {
  if (++sent % HEALTH_EVERY !== 0) return;
  const started = performance.now();
  const response = await fetch(`${gw.baseUrl}/healthz`, { signal: AbortSignal.timeout(5_000) });
  await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== 200 || elapsed > HEALTH_BUDGET_MS) {
    slowHealth.push(
      `${response.status} in ${elapsed.toFixed(0)} ms after ${after.method} ${after.url.slice(0, 120)}`,
    );
  }
}

function envelopeProblem(body: unknown, status: number): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body is not a JSON object';
  const { status: inBody, ok, message, errors } = body as Record<string, unknown>;
  if (inBody !== status) return `body status ${String(inBody)} is not the HTTP status`;
  if (ok !== status < 400) return `ok is ${String(ok)}`;
  if (typeof message !== 'string') return 'message is not a string';
  const fieldErrors = (item: unknown) =>
    typeof item === 'object' &&
    item !== null &&
    typeof (item as Record<string, unknown>)['field'] === 'string' &&
    typeof (item as Record<string, unknown>)['message'] === 'string';
  if (!ok && !(Array.isArray(errors) && errors.every(fieldErrors)))
    return 'errors is not a list of {field, message}';
  return null;
}

/** What the server logged at error level or above while a request ran (the cause of a 500), and where. */
function serverErrors(from: number): string[] {
  return gw.logLines.slice(from).flatMap((line) => {
    const entry = JSON.parse(line) as {
      level?: number;
      msg?: string;
      err?: { message?: string; stack?: string };
    };
    if ((entry.level ?? 0) < 50) return [];
    const where = entry.err?.stack?.split('\n').find((frame) => frame.includes('/src/'));
    return [`${entry.msg}: ${entry.err?.message?.slice(0, 200)}${where ? `\n  ${where.trim()}` : ''}`];
  });
}

async function check(op: Operation, request: FuzzRequest): Promise<void> {
  const logged = gw.logLines.length;
  const { status, text } = await send(request);
  await probeHealth(request);
  const problems: string[] = [];
  if (status >= 500 && !(op.callsNode && (status === 502 || status === 503)))
    problems.push(`status ${status}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    problems.push('body is not JSON');
  }
  const envelope = body === undefined ? null : envelopeProblem(body, status);
  if (envelope !== null) problems.push(envelope);
  if (text.includes('\u0000')) problems.push('raw NUL byte in the response');
  if (text.includes(token) || text.includes(otherToken)) problems.push('the response echoes a token');
  if (problems.length > 0) {
    const cause = serverErrors(logged);
    throw new Error(
      `${problems.join('; ')}\nresponse: ${status} ${text.slice(0, 500)}` +
        (cause.length > 0 ? `\nserver log: ${cause.join('\n')}` : ''),
    );
  }
}

/** A seed of its own for each operation and place, derived from FUZZ_SEED (FNV-1a of the name). */
function seedFor(name: string): number {
  let hash = 0x811c9dc5;
  for (const c of name) hash = Math.imul(hash ^ c.charCodeAt(0), 0x01000193);
  return (SEED ^ hash) | 0;
}

async function fuzz(op: Operation, focus: Focus | undefined, numRuns: number): Promise<void> {
  const where = focus ? `${focus.in} ${focus.path.join('.') || '(all of it)'}` : 'anywhere';
  const property = fc.asyncProperty(requestsFor(op, ctx, focus), (request) => check(op, request));
  try {
    await fc.assert(property, {
      numRuns,
      seed: seedFor(`${op.method} ${op.path} ${where}`),
      // The time limit bounds shrinking; the runs themselves take a fraction of it.
      plugins: [fc.interruptAfterTimeLimit(5_000 + numRuns * 250)],
    });
  } catch (error) {
    (error as Error).message = `hostile values ${where} (FUZZ_SEED=${SEED}): ${(error as Error).message}`;
    throw error;
  }
}

describe(`every OpenAPI operation under fuzzing (seed ${SEED})`, () => {
  it('covers the whole document', () => {
    expect(operations.length).toBeGreaterThan(100);
  });

  for (const op of operations) {
    const focuses = focusesOf(op, ctx);
    it(
      `${op.method} ${op.path}`,
      async () => {
        for (const focus of focuses) await fuzz(op, focus, FOCUSED_RUNS);
        await fuzz(op, undefined, RUNS);
      },
      30_000 + (RUNS + focuses.length * FOCUSED_RUNS) * 500,
    );
  }

  it(`answers /healthz within ${HEALTH_BUDGET_MS} ms every ${HEALTH_EVERY} requests`, () => {
    expect(sent).toBeGreaterThan(0);
    expect(slowHealth).toEqual([]);
  });
});
