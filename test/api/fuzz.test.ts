/**
 * Property-based fuzzing of every operation in the gateway's own OpenAPI document. Whatever is sent
 * (documented shapes, wrong types, huge or broken text, odd encodings, bad tokens), the answer is never a
 * 500, always the JSON envelope, never a raw NUL byte or a token, and the gateway stays responsive.
 *
 * Each operation first gets every injected class that applies to its places, once each (amounts with
 * exponents or at u64/uint256 limits, token ids and block numbers past them, addresses with a role on
 * their chain, webhook URLs that URL parsers read differently, markup for symbols; see `Injection` in
 * the helpers), each refused without being quoted where it must be, and every hostile Host header, which
 * must never turn up in an answer. Then FUZZ_RUNS requests hostile anywhere (default 12), then
 * FUZZ_RUNS / 6 (at least 3) aimed at each of its parameters and body places in turn. FUZZ_SEED sets the
 * seed (printed on failure).
 */
import * as fc from 'fast-check';

import { request as undiciRequest } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { servedChains } from '../../src/chains/families.ts';
import { PRICE_SYMBOLS } from '../../src/prices/symbols.ts';
import {
  type Example,
  type Focus,
  type FuzzContext,
  type FuzzRequest,
  focusesOf,
  HOSTILE_HOSTS,
  type Injection,
  injectionsAt,
  NOWHERE,
  type OpenApiDocument,
  type Operation,
  operationsOf,
  placeOf,
  requestsFor,
  type Schema,
} from '../helpers/fuzz.ts';
import { startInputProbeGateway } from '../helpers/input-probe-gateway.ts';
import { dereferenced } from '../helpers/openapi-document.ts';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 12);
const FOCUSED_RUNS = Math.max(3, Math.ceil(RUNS / 6));
const SEED = Number(process.env['FUZZ_SEED'] ?? 20_240_611);
if (!Number.isSafeInteger(SEED) || !Number.isSafeInteger(RUNS) || RUNS < 1) {
  throw new Error('FUZZ_SEED must be an integer and FUZZ_RUNS a positive integer');
}
const HEALTH_EVERY = 25;
/**
 * A stall, not a speed: an input that blocks the event loop (a runaway pattern, a huge parse) holds
 * /healthz for seconds. Speeds are measured by `npm run bench`; a bound this loose keeps the check
 * from failing on a loaded machine.
 */
const HEALTH_BUDGET_MS = 2_000;

const gw = await startInputProbeGateway();
afterAll(() => gw.close());

const { token } = await gw.userToken(undefined, 'unlimited');
const { token: otherToken } = await gw.userToken();
// DELETEs last: until then, what they could delete (the seeded addresses and webhooks) stays for the others.
const operations = operationsOf(
  dereferenced((await gw.request('GET', '/openapi.json')).body) as OpenApiDocument,
).sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));

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
  const receiver = known.at(-2) ?? '';
  // Sends and builds that pass every check of their own, so an aimed value meets the chain's types.
  const send = { from: address, to: receiver, amount: '1', password: PASSWORD };
  examples[`POST /api/v2/${chain}/transactions`] = { params: {}, body: send };
  examples[`POST /api/v2/${chain}/transactions/build`] = {
    params: {},
    body: { from: address, to: receiver, amount: '1' },
  };
  for (const read of ['owner', 'uri']) {
    examples[`GET /api/v2/${chain}/nfts/{contract}/${read}/{tokenId}`] = {
      params: { contract: receiver, tokenId: '1' },
    };
  }
  for (const nft of ['erc721', 'bep721']) {
    examples[`POST /api/v2/${chain}/transactions/${nft}`] = {
      params: {},
      body: { from: address, to: receiver, contractaddress: receiver, tokenId: '1', password: PASSWORD },
    };
  }
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
const CHAINS: Schema = { type: 'string', enum: [...servedChains(), 'TRON'] };
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

/** Sent with undici's request, not fetch, which would replace a Host header with the URL's. */
async function send(request: FuzzRequest): Promise<{ status: number; text: string }> {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      value.replaceAll('<other token>', otherToken).replaceAll('<token>', token),
    ]),
  );
  try {
    const response = await undiciRequest(gw.baseUrl + request.url, {
      method: request.method as 'GET',
      headers,
      ...(request.body === undefined ? {} : { body: Buffer.from(request.body, 'utf8') }),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: response.statusCode, text: await response.body.text() };
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

/** The envelope's messages: the top one and each field error's. */
function messagesOf(body: unknown): string {
  if (typeof body !== 'object' || body === null) return '';
  const { message, errors } = body as { message?: unknown; errors?: unknown };
  const fieldMessages = Array.isArray(errors) ? errors.map((e) => String(e?.message ?? '')) : [];
  return [String(message ?? ''), ...fieldMessages].join('\n');
}

/** What the answer owes an injected value (see InjectionKind), as problems. */
function injectionProblems(op: Operation, injection: Injection, status: number, body: unknown): string[] {
  const problems: string[] = [];
  const refusal = status >= 400 && status < 500;
  const nodeDown = op.callsNode && (status === 502 || status === 503);
  if (injection.kind === 'refused' && !refusal && !nodeDown)
    problems.push(`${injection.text} was not refused`);
  const quoted = messagesOf(body).toLowerCase().includes(injection.text.toLowerCase());
  if (injection.kind !== 'special' && refusal && quoted)
    problems.push(`the message quotes ${injection.text}`);
  if (injection.kind === 'special' && status >= 500 && !nodeDown)
    problems.push(`${injection.text} answered ${status}`);
  return problems;
}

async function check(op: Operation, request: FuzzRequest, injection?: Injection): Promise<void> {
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
  for (const host of HOSTILE_HOSTS) {
    if (text.toLowerCase().includes(host.toLowerCase()))
      problems.push(`the response carries the Host ${host}`);
  }
  if (injection !== undefined) problems.push(...injectionProblems(op, injection, status, body));
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

/** One request, drawn with the operation's seed, with `value` where the focus aims (or valid throughout). */
function oneRequest(op: Operation, focus: Focus, value?: Injection['value']): FuzzRequest {
  const forced = value === undefined ? ctx : { ...ctx, forced: value };
  const [request] = fc.sample(requestsFor(op, forced, focus), {
    numRuns: 1,
    seed: seedFor(`${op.method} ${op.path} ${focus.in} ${focus.path.join('.')}`),
  });
  if (request === undefined) throw new Error('no request drawn');
  return request;
}

/**
 * Every injected class at every place it applies, once each (the drawn runs meet them only now and then),
 * and one of the hostile Host headers (in turn) on a request valid throughout.
 */
async function injectEverything(op: Operation, focuses: Focus[]): Promise<void> {
  for (const focus of focuses) {
    for (const injection of injectionsAt(placeOf(focus))) {
      const request = oneRequest(op, focus, injection.value);
      try {
        await check(op, request, injection);
      } catch (error) {
        (error as Error).message =
          `${injection.kind} value ${injection.text} at ${focus.in} ${focus.path.join('.')}: ${(error as Error).message}\n` +
          `request: ${request.method} ${request.url} ${request.body?.slice(0, 300) ?? ''}`;
        throw error;
      }
    }
  }
  const host = HOSTILE_HOSTS[operations.indexOf(op) % HOSTILE_HOSTS.length] ?? '';
  const request = oneRequest(op, NOWHERE);
  try {
    await check(op, { ...request, headers: { ...request.headers, host, 'x-forwarded-host': host } });
  } catch (error) {
    (error as Error).message = `Host ${host}: ${(error as Error).message}`;
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
        await injectEverything(op, focuses);
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
