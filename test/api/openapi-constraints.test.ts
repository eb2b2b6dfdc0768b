/**
 * The OpenAPI document states every limit the gateway enforces on a field, and the gateway enforces every
 * limit the document states. For each operation, each path, query and top-level body field, and each of
 * its declared constraints (minLength, maxLength, minimum, maximum, pattern, enum), a value just inside
 * and one just outside are sent to the real gateway: inside must not be refused for that field, outside
 * must answer 422 naming it (a chain not served answers 404 `Unsupported blockchain` instead).
 *
 * Which side a value is on is decided by the field's whole schema, with the gateway's own validator, so
 * a value that a union's other branch accepts is not counted as outside.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { FAMILIES, servedChains } from '../../src/chains/families.ts';
import { strictValidatorCompiler } from '../../src/http/strict-validation.ts';
import type { Schema } from '../helpers/fuzz.ts';
import { startInputProbeGateway } from '../helpers/input-probe-gateway.ts';
import { dereferenced } from '../helpers/openapi-document.ts';

interface Parameter {
  name: string;
  in: string;
  schema: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  security?: Record<string, string[]>[];
}
type Place = 'path' | 'query' | 'body';
interface Field {
  place: Place;
  name: string;
  schema: Schema;
}
interface Probe {
  field: Field;
  value: unknown;
  /** The constraint and side it probes, for the failure message. */
  label: string;
  outside: boolean;
}

/**
 * Fields whose rule depends on more than the field (the asset's decimals, the chain, the configured price
 * sources), which a schema cannot state: their values just inside a length limit may still be refused.
 * Each one's description must say what the rule is.
 */
const RULES_IN_DESCRIPTION: Record<string, RegExp> = {
  content: /keystore/i,
  symbol: /symbol/i,
  symbols: /symbol/i,
  type: /per chain/i,
  from: /address|symbol|currency/i,
  to: /address|symbol|currency/i,
  contractaddress: /address/i,
  // Solana's (and TON's): a key in one of several forms, and a transaction that must decode.
  privatekey: /secret key|WIF|mnemonic/i,
  // TON's build: the key must be the `from` wallet's.
  publickey: /`from`/,
  // Bitcoin's: a wallet restored from words that must be a BIP-39 mnemonic.
  mnemonic: /BIP-39/,
  rawtx: /transaction/i,
  // TON's: a signed external message that must decode.
  boc: /external message/i,
  // Only chains with a mempool take a true notify_pending.
  notify_pending: /elsewhere 422/,
  // Only chains whose transfers carry comments (TON) take a comment filter.
  comment: /elsewhere 422/,
  // The dashboard's sign-in and sign-up: one @ between characters that are not spaces.
  email: /email address/i,
};

const gw = await startInputProbeGateway();
afterAll(() => gw.close());
const { token, userId } = await gw.userToken(undefined, 'unlimited');
// Routes only a dashboard session may call are probed as the dashboard calls them.
const session = await gw.ctx.sessions.open(userId);
const sessionAuth = { headers: { cookie: `swy_session=${session.secret}`, 'x-csrf-token': session.csrf } };
const sessionOnly = (operation: Operation) =>
  JSON.stringify(operation.security) === JSON.stringify([{ sessionCookie: [] }]);
const PASSWORD = 'constraints password';

/** Values that exist on the gateway or are valid anywhere, offered first wherever a field's schema takes them. */
const known: string[] = [
  // A Bitcoin address (BIP-173's), and a wallet name in Chaingateway's form (a ULID).
  'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
  '01HP6FVARVTQES6WW8QHC5WHPT',
  // A Solana address first: Tron's base58 addresses fit Solana's pattern, but hold 25 bytes, not 32.
  '11111111111111111111111111111111',
  (await gw.request('POST', '/api/v2/tron/addresses', { token, json: { password: PASSWORD } })).body.data[0]
    .address,
  (await gw.request('POST', '/api/v2/ethereum/addresses', { token, json: { password: PASSWORD } })).body
    .data[0].address,
  'https://93.184.216.34/hook',
  `0x${'11'.repeat(32)}`,
  '11'.repeat(32),
  '1',
  // Each family's example address, so that a new address form needs no entry here.
  ...FAMILIES.map((family) => family.address.example),
];
/** Valid text for fields the schema leaves open, padded to a length without changing its meaning. */
const SAMPLES: Record<string, { text: string; pad: (text: string, length: number) => string }> = {};
const leadingZeros = (text: string, length: number) => text.padStart(length, '0');
const trailing = (text: string, length: number) => text.padEnd(length, 'a');
for (const field of ['amount', 'min_amount', 'gasprice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'fee_limit'])
  SAMPLES[field] = { text: '1', pad: leadingZeros };
SAMPLES['data'] = { text: '0x', pad: (text, length) => text.padEnd(length, '0') };
SAMPLES['url'] = { text: 'https://93.184.216.34/hook', pad: trailing };
SAMPLES['callback_url'] = SAMPLES['url'];

type ValidateFunction = (value: unknown) => boolean;
/** The gateway's own validator: text converts to numbers and booleans as it does for a request. */
const compileValidator = strictValidatorCompiler();
const validatorOf = (schema: Schema): ValidateFunction => {
  // As a property, the way the gateway validates it: a conversion is checked on a value in its parent.
  const wrapped = { type: 'object', properties: { field: schema } };
  const validate = compileValidator({ schema: wrapped, method: 'POST', url: '/', httpPart: 'body' });
  return (value) => validate({ field: value }) === true;
};
const document = dereferenced((await gw.request('GET', '/openapi.json')).body) as {
  paths: Record<string, Record<string, Operation>>;
};

function fieldsOf(operation: Operation): Field[] {
  const parameters = (operation.parameters ?? []).flatMap((p): Field[] =>
    p.in === 'path' || p.in === 'query' ? [{ place: p.in, name: p.name, schema: p.schema }] : [],
  );
  const body = operation.requestBody?.content['application/json']?.schema;
  const properties = body === undefined ? [] : propertiesOf(body);
  return [...parameters, ...properties.map(([name, schema]) => ({ place: 'body' as const, name, schema }))];
}

function propertiesOf(schema: Schema): [string, Schema][] {
  return [
    ...Object.entries(schema.properties ?? {}),
    ...(schema.allOf ?? []).flatMap(propertiesOf),
    ...(schema.anyOf ?? []).flatMap(propertiesOf),
  ];
}

/** The schema and each union branch: where constraints are declared. */
const nodesOf = (schema: Schema): Schema[] => [schema, ...(schema.anyOf ?? []).flatMap(nodesOf)];

/** A value of the field's shape that the whole schema accepts, to build each probe from. */
function validValue(field: Field, valid: ValidateFunction): unknown {
  const candidates = [
    SAMPLES[field.name]?.text,
    ...known,
    ...nodesOf(field.schema).flatMap((node) => node.enum ?? []),
    ...nodesOf(field.schema).flatMap((node) => [node.minimum, node.maximum]),
    'a'.repeat(field.schema.minLength ?? 1),
    '1',
    1,
    true,
  ];
  return candidates.find((value) => value !== undefined && valid(structuredClone(value)));
}

function probesOf(field: Field, valid: ValidateFunction): Probe[] {
  const base = validValue(field, valid);
  const text = typeof base === 'string' ? base : 'a';
  const pad = SAMPLES[field.name]?.pad ?? trailing;
  const probes: Probe[] = [];
  const add = (label: string, value: unknown, outside: boolean) =>
    probes.push({ field, value, label, outside });
  for (const node of nodesOf(field.schema)) {
    if (node.minLength !== undefined) {
      add(`minLength ${node.minLength}`, pad(text, node.minLength).slice(0, node.minLength), false);
      if (node.minLength > 0) add(`minLength ${node.minLength}`, text.slice(0, node.minLength - 1), true);
    }
    if (node.maxLength !== undefined) {
      add(`maxLength ${node.maxLength}`, pad(text, node.maxLength), false);
      add(`maxLength ${node.maxLength}`, pad(text, node.maxLength + 1), true);
    }
    if (node.minimum !== undefined) {
      add(`minimum ${node.minimum}`, node.minimum, false);
      add(`minimum ${node.minimum}`, node.minimum - 1, true);
    }
    if (node.maximum !== undefined) {
      add(`maximum ${node.maximum}`, node.maximum, false);
      add(`maximum ${node.maximum}`, node.maximum + 1, true);
    }
    if (node.pattern !== undefined) {
      add(`pattern ${node.pattern}`, text, false);
      add(`pattern ${node.pattern}`, `~${text}`, true);
    }
    if (node.enum !== undefined) {
      for (const value of node.enum) add(`enum ${JSON.stringify(node.enum)}`, value, false);
      add(`enum ${JSON.stringify(node.enum)}`, 'not-listed', true);
    }
  }
  // A probe counts only on the side the whole schema puts it (another branch may accept it).
  return probes.filter(({ value, outside }) => valid(structuredClone(value)) !== outside);
}

/** The request for one probe: the path's other parameters and the body's required fields filled in. */
function requestFor(path: string, operation: Operation, probe: Probe) {
  const fields = fieldsOf(operation);
  const probed = (field: Field) => field.place === probe.field.place && field.name === probe.field.name;
  const fieldValue = (field: Field) =>
    probed(field) ? probe.value : validValue(field, validatorOf(field.schema));
  const url = fields
    .filter((f) => f.place === 'path')
    .reduce((u, f) => u.replace(`{${f.name}}`, encodeURIComponent(String(fieldValue(f)))), path);
  const query =
    probe.field.place === 'query' ? `?${probe.field.name}=${encodeURIComponent(String(probe.value))}` : '';
  const body = operation.requestBody?.content['application/json']?.schema;
  const required = new Set(body === undefined ? [] : requiredOf(body));
  const json =
    body === undefined
      ? undefined
      : Object.fromEntries(
          fields
            .filter((f) => f.place === 'body' && (probed(f) || required.has(f.name)))
            .map((f) => [f.name, fieldValue(f)]),
        );
  return { url: url + query, json };
}

function requiredOf(schema: Schema): string[] {
  return [...(schema.required ?? []), ...(schema.allOf ?? []).flatMap(requiredOf)];
}

const isChainEnum = (probe: Probe) =>
  nodesOf(probe.field.schema).some((node) => JSON.stringify(node.enum) === JSON.stringify(servedChains()));

async function disagreement(method: string, path: string, operation: Operation, probe: Probe) {
  const { url, json } = requestFor(path, operation, probe);
  const auth = sessionOnly(operation) ? sessionAuth : { token };
  const response = await gw.request(method, url, { ...auth, ...(json === undefined ? {} : { json }) });
  const named = (response.body?.errors ?? []).some(
    (e: { field: string }) => e.field === probe.field.name || e.field.startsWith(`${probe.field.name}.`),
  );
  const refused = response.status === 422 && named;
  const where = `${probe.field.place} ${probe.field.name} (${probe.label}) = ${JSON.stringify(probe.value).slice(0, 60)}`;
  if (probe.outside) {
    if (isChainEnum(probe)) {
      return response.body?.message === 'Unsupported blockchain'
        ? null
        : `${where}: ${response.text.slice(0, 200)}`;
    }
    return refused ? null : `${where} is outside, answered ${response.status} ${response.text.slice(0, 200)}`;
  }
  if (!refused) return null;
  const rule = RULES_IN_DESCRIPTION[probe.field.name];
  if (rule?.test(probe.field.schema.description ?? '')) return null;
  return `${where} is inside, answered ${response.status} ${response.text.slice(0, 200)}`;
}

// DELETEs last: until then, what they could delete (the seeded addresses) stays for the others.
const operations = Object.entries(document.paths)
  .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ method, path, op })))
  .filter(({ op }) => fieldsOf(op).length > 0)
  .sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));

let probed = 0;
describe('every constraint in /openapi.json is the one the gateway enforces', () => {
  for (const { method, path, op } of operations) {
    it(`${method.toUpperCase()} ${path}`, async () => {
      const problems: string[] = [];
      for (const field of fieldsOf(op)) {
        for (const probe of probesOf(field, validatorOf(field.schema))) {
          probed++;
          const problem = await disagreement(method.toUpperCase(), path, op, probe);
          if (problem !== null) problems.push(problem);
        }
      }
      expect(problems.join('\n')).toBe('');
    });
  }

  it('probed both sides of many constraints', () => {
    expect(operations.length).toBeGreaterThan(100);
    expect(probed).toBeGreaterThan(500);
  });
});
