/**
 * Every field the OpenAPI document marks as an address (`x-address`: a path or query parameter, a body
 * property at any depth, a webhook filter, the sandbox faucet) refuses a mistyped address with 422 naming the field, before
 * any node is asked: the gateway's nodes are all unreachable here, so a request that got as far as a node
 * would answer 502 or 503 instead.
 *
 * For each such field and each of the seven chains (Bitcoin on both networks; its testnet is regtest
 * here), valid addresses of the family and network are drawn, then mutated: one character changed (the
 * checksum no longer verifies), bech32 re-encoded as bech32m and the reverse, a base58check checksum
 * broken, the same key's address on the other network, and text that is no address at all (a character
 * outside the alphabet, one character short), a TON address's CRC16 or test-only flag wrong. Solana
 * addresses carry no checksum, so only the malformed ones are refused there. The unmutated address itself must not be refused for the field.
 */

import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import { Address } from '@ton/core';
import * as fc from 'fast-check';
import { getAddress } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { addressOfScript } from '../../src/chains/bitcoin/address.ts';
import { BITCOIN_NETWORKS } from '../../src/chains/bitcoin/networks.ts';
import { familyOf, servedChains } from '../../src/chains/families.ts';
import { FaucetDirectory } from '../../src/chains/faucets.ts';
import { strictValidatorCompiler } from '../../src/http/strict-validation.ts';
import { mistypedChecksum } from '../helpers/eip55.ts';
import type { Schema } from '../helpers/fuzz.ts';
import { startGateway, UNLIMITED_PLAN_ENV } from '../helpers/gateway.ts';
import { OFFLINE_NODES_ENV } from '../helpers/offline-nodes.ts';
import { dereferenced } from '../helpers/openapi-document.ts';

type AddressSchema = Schema & { 'x-address'?: string };
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: AddressSchema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: AddressSchema }> };
  security?: Record<string, string[]>[];
}
type Network = 'mainnet' | 'testnet';
type Family = 'tron' | 'evm' | 'solana' | 'bitcoin' | 'ton';

const FAMILIES: readonly Family[] = ['tron', 'evm', 'solana', 'bitcoin', 'ton'];

/** The family of a served chain (every EVM chain of the chain file too), by the family's name. */
const FAMILY_OF: Record<string, Family> = Object.fromEntries(
  servedChains().flatMap((chain) => {
    const family = FAMILIES.find((name) => name === familyOf(chain)?.name);
    return family === undefined ? [] : [[chain, family]];
  }),
);

/**
 * The sandbox's faucet route, whose devnets are not running here: each faucet answers as if it paid, so a
 * mistyped address that got past the check would show as a 200.
 */
const faucets = new FaucetDirectory();
for (const chain of servedChains()) {
  for (const network of ['mainnet', 'testnet'] as const) {
    faucets.add(chain, network, {
      fund: async ({ address, contractaddress }) => ({
        address,
        amount: '1',
        symbol: chain,
        contractaddress: contractaddress ?? null,
        txid: null,
      }),
    });
  }
}

// No rate limit: the probes come faster than a plan's requests per second, and each must reach the check.
const gw = await startGateway({
  env: {
    ...OFFLINE_NODES_ENV,
    ...UNLIMITED_PLAN_ENV,
    LOG_LEVEL: 'error',
    BITCOIN_TESTNET_NETWORK: 'regtest',
  },
  faucets,
});
afterAll(() => gw.close());
const { token } = await gw.userToken(undefined, 'unlimited');
const document = dereferenced((await gw.request('GET', '/openapi.json')).body) as {
  paths: Record<string, Record<string, Operation>>;
};

// ---------------------------------------------------------------------------------------------------
// Valid addresses of each family and network, drawn from random key hashes.

const base58check = createBase58check(sha256);
const bytes = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });
const BITCOIN_OF: Record<Network, (typeof BITCOIN_NETWORKS)[keyof typeof BITCOIN_NETWORKS]> = {
  mainnet: BITCOIN_NETWORKS.mainnet,
  testnet: BITCOIN_NETWORKS.regtest,
};

/** The standard output scripts: P2WPKH, P2WSH, P2TR (bech32m), P2PKH and P2SH. */
const BITCOIN_SCRIPTS = [
  bytes(20).map((hash) => Uint8Array.from([0x00, 20, ...hash])),
  bytes(32).map((hash) => Uint8Array.from([0x00, 32, ...hash])),
  bytes(32).map((key) => Uint8Array.from([0x51, 32, ...key])),
  bytes(20).map((hash) => Uint8Array.from([0x76, 0xa9, 20, ...hash, 0x88, 0xac])),
  bytes(20).map((hash) => Uint8Array.from([0xa9, 20, ...hash, 0x87])),
];

const bitcoinAddressOn = (script: Uint8Array, network: Network) => {
  const address = addressOfScript(script, BITCOIN_OF[network]);
  if (address === null) throw new Error('a standard script has an address');
  return address;
};

const testnet3AddressOf = (script: Uint8Array) => addressOfScript(script, BITCOIN_NETWORKS.testnet) ?? '';

/** An address drawn for a family and network, with its same-key twin on the other network (Bitcoin). */
interface Drawn {
  address: string;
  otherNetwork: string[];
}

/** Addresses of a family and network: two keys (Bitcoin: one of each output type), drawn with `seed`. */
function draw(family: Family, network: Network, seed: number): Drawn[] {
  const sample = <T>(arbitrary: fc.Arbitrary<T>) => fc.sample(arbitrary, { numRuns: 2, seed });
  switch (family) {
    case 'tron':
      return sample(bytes(20)).map((hash) => ({
        address: base58check.encode(Uint8Array.from([0x41, ...hash])),
        otherNetwork: [],
      }));
    case 'evm':
      return sample(bytes(20)).map((hash) => ({
        address: getAddress(`0x${Buffer.from(hash).toString('hex')}`),
        otherNetwork: [],
      }));
    case 'solana':
      return sample(bytes(32)).map((key) => ({ address: base58.encode(key), otherNetwork: [] }));
    case 'ton':
      // A wallet's user-friendly form: non-bounceable, with the test-only flag on testnet.
      return sample(bytes(32)).map((hash) => {
        const account = new Address(0, Buffer.from(hash));
        const shown = (testOnly: boolean) => account.toString({ bounceable: false, testOnly });
        return { address: shown(network === 'testnet'), otherNetwork: [shown(network === 'mainnet')] };
      });
    case 'bitcoin':
      return BITCOIN_SCRIPTS.map(
        (scripts) => fc.sample(scripts, { numRuns: 1, seed })[0] ?? new Uint8Array(),
      ).map((script) => ({
        address: bitcoinAddressOn(script, network),
        // Regtest's bech32 differs from the other test networks' (tb1…), which are as foreign to it; their
        // base58 addresses are alike.
        otherNetwork:
          network === 'mainnet'
            ? [...new Set([bitcoinAddressOn(script, 'testnet'), testnet3AddressOf(script)])]
            : [bitcoinAddressOn(script, 'mainnet'), testnet3AddressOf(script)].filter(
                (a) => !/^[mn2]/.test(a),
              ),
      }));
  }
}

// ---------------------------------------------------------------------------------------------------
// Mutations.

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

/** The character at `index` replaced by the next one of the alphabet, keeping its case. */
function changedAt(address: string, index: number, alphabet: string): string {
  const character = address[index] ?? '';
  const position = alphabet.indexOf(character);
  const next = alphabet[(position + 1) % alphabet.length] ?? '';
  return address.slice(0, index) + next + address.slice(index + 1);
}

/** The same payload and variant swapped: bech32 where BIP-350 asks for bech32m and the reverse. */
function swappedVariant(address: string): string {
  const plain = bech32.decodeUnsafe(address, 90);
  if (plain) return bech32m.encode(plain.prefix, plain.words, 90);
  const modified = bech32m.decode(address as `${string}1${string}`, 90);
  return bech32.encode(modified.prefix, modified.words, 90);
}

/** The payload kept, the base58check checksum's last byte changed. */
function brokenBase58Checksum(address: string): string {
  const whole = base58.decode(address);
  const last = whole.length - 1;
  whole[last] = (whole[last] ?? 0) ^ 0x01;
  return base58.encode(whole);
}

interface Mutation {
  kind: string;
  value: string;
}

function mutationsOf(family: Family, drawn: Drawn): Mutation[] {
  const { address } = drawn;
  const middle = Math.floor(address.length / 2);
  const mutations: Mutation[] = [
    // Base58 of 32 bytes is 43 or 44 characters: one short can still be a key, so Solana's are 31 bytes below.
    ...(family === 'solana' ? [] : [{ kind: 'one character short', value: address.slice(0, -1) }]),
    {
      kind: 'a character outside the alphabet',
      // TON's user-friendly form is base64url, whose alphabet holds '_'.
      value: `${address.slice(0, middle)}${family === 'ton' ? '.' : '_'}${address.slice(middle + 1)}`,
    },
    ...drawn.otherNetwork.map((value) => ({ kind: 'an address of the other network', value })),
  ];
  const isBech32 = /^(bc|tb|bcrt)1/.test(address);
  if (family === 'bitcoin' && isBech32) {
    mutations.push(
      {
        kind: 'one character changed (bech32 checksum)',
        value: changedAt(address, address.length - 10, BECH32),
      },
      { kind: 'bech32 and bech32m swapped', value: swappedVariant(address) },
    );
  }
  if ((family === 'bitcoin' && !isBech32) || family === 'tron') {
    mutations.push(
      { kind: 'one character changed (base58check)', value: changedAt(address, middle, BASE58) },
      { kind: 'base58check checksum broken', value: brokenBase58Checksum(address) },
    );
  }
  if (family === 'evm') {
    mutations.push(
      {
        kind: 'one letter in the other case (EIP-55 checksum)',
        value: mistypedChecksum(address),
      },
      { kind: 'one hex digit short of 40', value: `0x${address.slice(3)}` },
    );
  }
  if (family === 'ton') {
    // The account id's first byte changed, under the old CRC16.
    const changed = Buffer.from(address, 'base64url');
    changed[2] = (changed[2] ?? 0) ^ 0x01;
    mutations.push({ kind: 'one byte changed (CRC16 checksum)', value: changed.toString('base64url') });
  }
  if (family === 'solana') {
    // 31 or 33 bytes: base58 text of an address's length that is no 32-byte key.
    mutations.push(
      { kind: '31 bytes', value: base58.encode(base58.decode(address).slice(1)) },
      { kind: '33 bytes', value: base58.encode(Uint8Array.from([7, ...base58.decode(address)])) },
    );
  }
  return mutations;
}

// ---------------------------------------------------------------------------------------------------
// The document's address fields and the requests that reach them.

type Place = 'path' | 'query' | 'body';
interface AddressField {
  place: Place;
  /** Its path in the body (one name for a parameter); `0` for the first item of an array. */
  path: string[];
  mark: string;
}

function markedIn(schema: AddressSchema | undefined, path: string[]): { path: string[]; mark: string }[] {
  if (schema === undefined) return [];
  if (typeof schema['x-address'] === 'string') return [{ path, mark: schema['x-address'] }];
  return [
    ...Object.entries(schema.properties ?? {}).flatMap(([key, property]) =>
      markedIn(property, [...path, key]),
    ),
    ...markedIn(schema.items, [...path, '0']),
    ...[...(schema.anyOf ?? []), ...(schema.allOf ?? []), ...(schema.oneOf ?? [])].flatMap((branch) =>
      markedIn(branch, path),
    ),
  ];
}

function addressFieldsOf(operation: Operation): AddressField[] {
  const parameters = (operation.parameters ?? []).flatMap((p): AddressField[] =>
    (p.in === 'path' || p.in === 'query') && typeof p.schema['x-address'] === 'string'
      ? [{ place: p.in, path: [p.name], mark: p.schema['x-address'] }]
      : [],
  );
  const body = bodyOf(operation);
  const inBody = markedIn(body, []).map(({ path, mark }) => ({ place: 'body' as const, path, mark }));
  const unique = new Map(
    [...parameters, ...inBody].map((field) => [`${field.place} ${field.path.join('.')}`, field]),
  );
  return [...unique.values()];
}

/** Names that hold an address wherever they appear outside the price routes. */
const ADDRESS_NAMES = /^(address|from|to|contractaddress|contract|mint|receiver|owner|spender|tronaddress)$/;

/** A field marked as an address, or a list of them (a sweep's `from`). */
function marksAddresses(schema: AddressSchema): boolean {
  const items: AddressSchema | undefined = Reflect.get(schema, 'items');
  return schema['x-address'] !== undefined || items?.['x-address'] !== undefined;
}

function propertiesOf(schema: AddressSchema): [string, AddressSchema][] {
  return [
    ...Object.entries(schema.properties ?? {}),
    ...[...(schema.allOf ?? []), ...(schema.anyOf ?? [])].flatMap(propertiesOf),
  ];
}

const bodyOf = (operation: Operation) => operation.requestBody?.content['application/json']?.schema;

const validator = strictValidatorCompiler();
const validates = (schema: Schema, value: unknown) =>
  validator({
    schema: { type: 'object', properties: { field: schema } },
    method: 'POST',
    url: '/',
    httpPart: 'body',
  })({ field: structuredClone(value) }) === true;

/** Values that pass the schemas of the fields beside the probed one. */
const FILLERS: unknown[] = [
  '1',
  'https://93.184.216.34/hook',
  '01HP6FVARVTQES6WW8QHC5WHPT',
  'a long enough password',
  `0x${'11'.repeat(32)}`,
  '11'.repeat(32),
  1,
  true,
];

/** A value of a schema: an address of the chain where it is marked as one, else the first filler it takes. */
function fillerOf(schema: AddressSchema, chain: string, addresses: Record<Family, string>): unknown {
  const family = FAMILY_OF[chain] ?? 'tron';
  if (typeof schema['x-address'] === 'string') return addresses[family];
  if (schema.type === 'object' || schema.properties !== undefined || schema.allOf !== undefined) {
    return Object.fromEntries(
      requiredOf(schema).map((name) => [name, fillerOf(propertyOf(schema, name) ?? {}, chain, addresses)]),
    );
  }
  if (schema.type === 'array') return [fillerOf(schema.items ?? {}, chain, addresses)];
  const candidates = [
    ...(schema.enum ?? []),
    ...(schema.anyOf ?? []).flatMap((branch) => branch.enum ?? []),
    ...FILLERS,
    'a'.repeat(schema.minLength ?? 1),
  ];
  return candidates.find((value) => validates(schema, value));
}

function requiredOf(schema: Schema): string[] {
  return [...(schema.required ?? []), ...(schema.allOf ?? []).flatMap(requiredOf)];
}

function propertyOf(schema: AddressSchema, name: string): AddressSchema | undefined {
  return (
    schema.properties?.[name] ??
    (schema.allOf ?? []).map((part) => propertyOf(part, name)).find((found) => found !== undefined)
  );
}

/** `value` put at `path` in a filled body, the containers on the way filled as their schemas ask. */
function setAt(
  target: Record<string, unknown>,
  path: string[],
  value: unknown,
  schema: AddressSchema,
  fill: (schema: AddressSchema) => unknown,
): void {
  const [step, ...rest] = path;
  if (step === undefined) return;
  if (rest.length === 0) {
    target[step] = value;
    return;
  }
  const inner = propertyOf(schema, step) ?? schema.items ?? {};
  const container = (target[step] ?? fill(inner)) as Record<string, unknown>;
  target[step] = container;
  setAt(container, rest, value, inner, fill);
}

interface Probe {
  method: string;
  url: string;
  network: Network;
  json: unknown;
}

/** The request that puts `value` into `field` of an operation on a chain, everything else valid. */
function probeOf(
  method: string,
  path: string,
  operation: Operation,
  field: AddressField,
  chain: string,
  network: Network,
  value: string,
  addresses: Record<Family, string>,
): Probe {
  let url = path.replace('{chain}', chain);
  for (const p of operation.parameters ?? []) {
    if (p.in !== 'path' || p.name === 'chain') continue;
    const given =
      field.place === 'path' && field.path[0] === p.name ? value : fillerOf(p.schema, chain, addresses);
    url = url.replace(`{${p.name}}`, encodeURIComponent(String(given)));
  }
  if (field.place === 'query') url += `?${field.path[0]}=${encodeURIComponent(value)}`;
  const body = bodyOf(operation);
  let json: unknown;
  if (body !== undefined) {
    const filled = fillerOf(body, chain, addresses) as Record<string, unknown>;
    if (propertyOf(body, 'blockchain') !== undefined) filled['blockchain'] = chain;
    if (field.place === 'body')
      setAt(filled, field.path, value, body, (inner) => fillerOf(inner, chain, addresses));
    json = filled;
  }
  return { method: method.toUpperCase(), url, network, json };
}

/** The chains an operation serves: the one in its path, or every chain where the path or body names one. */
function chainsOf(path: string, operation: Operation): string[] {
  const fixed = /^\/api\/v2\/([a-z]+)\//.exec(path)?.[1];
  if (fixed !== undefined && FAMILY_OF[fixed] !== undefined) return [fixed];
  const body = bodyOf(operation);
  if (path.includes('{chain}') || (body !== undefined && propertyOf(body, 'blockchain') !== undefined))
    return [...servedChains()];
  return [];
}

const operations = Object.entries(document.paths)
  .flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method, path, operation })),
  )
  .map((entry) => ({ ...entry, fields: addressFieldsOf(entry.operation) }))
  .filter(({ fields }) => fields.length > 0);

async function send(probe: Probe) {
  return gw.request(probe.method, probe.url, {
    token,
    headers: { 'x-network': probe.network },
    ...(probe.json === undefined ? {} : { json: probe.json }),
  });
}

const networksOf = (chain: string): Network[] => (chain === 'bitcoin' ? ['mainnet', 'testnet'] : ['mainnet']);

/** Bitcoin has no token contracts: its webhooks refuse any contract address, valid or not. */
const refusesAnyValue = (chain: string, field: AddressField) =>
  chain === 'bitcoin' && field.mark === 'chain' && field.path.join('.') === 'contractaddress';

/** One request and what its answer must be. */
interface Check {
  probe: Probe;
  field: string;
  /** Refused with 422 naming the field; otherwise, not refused for the field. */
  refused: boolean;
  label: string;
}

function checksOf(method: string, path: string, operation: Operation, fields: AddressField[]): Check[] {
  const checks: Check[] = [];
  for (const chain of chainsOf(path, operation)) {
    const family = FAMILY_OF[chain] ?? 'tron';
    for (const network of networksOf(chain)) {
      const seed = checks.length + path.length;
      const addresses = {
        tron: draw('tron', network, seed)[0]?.address ?? '',
        evm: draw('evm', network, seed)[0]?.address ?? '',
        solana: draw('solana', network, seed)[0]?.address ?? '',
        bitcoin: draw('bitcoin', network, seed)[0]?.address ?? '',
        ton: draw('ton', network, seed)[0]?.address ?? '',
      };
      for (const field of fields.filter((f) => f.mark === 'chain' || f.mark === family)) {
        const name = field.path.join('.');
        const where = `${chain} ${network} ${field.place} ${name}`;
        const request = (value: string) =>
          probeOf(method, path, operation, field, chain, network, value, addresses);
        for (const [index, drawn] of draw(family, network, seed + 1).entries()) {
          if (index === 0 && !refusesAnyValue(chain, field)) {
            const label = `${where}, a valid ${drawn.address}`;
            checks.push({ probe: request(drawn.address), field: name, refused: false, label });
          }
          for (const mutation of mutationsOf(family, drawn)) {
            const label = `${where}, ${mutation.kind} (${mutation.value})`;
            checks.push({ probe: request(mutation.value), field: name, refused: true, label });
          }
        }
      }
    }
  }
  return checks;
}

/** Requests in flight at once: the gateway answers these without a node, in a few milliseconds each. */
const AT_ONCE = 16;

let probes = 0;
const chainsProbed = new Set<string>();
describe('every address field of the OpenAPI document refuses a mistyped address with 422, before any node', () => {
  for (const { method, path, operation, fields } of operations) {
    it(`${method.toUpperCase()} ${path}`, async () => {
      const checks = checksOf(method, path, operation, fields);
      const problems: string[] = [];
      for (let i = 0; i < checks.length; i += AT_ONCE) {
        await Promise.all(
          checks.slice(i, i + AT_ONCE).map(async (check) => {
            const response = await send(check.probe);
            const refused = response.status === 422 && named(response.body, check.field);
            if (check.refused) probes++;
            if (refused !== check.refused)
              problems.push(`${check.label}: ${response.status} ${response.text.slice(0, 200)}`);
          }),
        );
      }
      for (const chain of chainsOf(path, operation)) chainsProbed.add(chain);
      expect(problems.join('\n')).toBe('');
    });
  }

  it('leaves no field named as an address unmarked (prices name currencies from and to)', () => {
    const unmarked = Object.entries(document.paths)
      .filter(([path]) => !path.includes('/price'))
      .flatMap(([path, methods]) =>
        Object.entries(methods).flatMap(([method, operation]) => {
          const parameters = (operation.parameters ?? []).map((p) => [p.name, p.schema] as const);
          const body = bodyOf(operation);
          const properties = body === undefined ? [] : propertiesOf(body);
          return (
            [...parameters, ...properties]
              .filter(([name, schema]) => ADDRESS_NAMES.test(name) && !marksAddresses(schema))
              // The faucet's token is a demo token's address or a TRC10 asset id: the faucet refuses others.
              .filter(([name]) => !(path.endsWith('/faucet') && name === 'contractaddress'))
              .map(([name]) => `${method.toUpperCase()} ${path} ${name}`)
          );
        }),
      );
    expect(unmarked).toEqual([]);
  });

  it('probed every chain and many address fields', () => {
    expect(chainsProbed).toEqual(new Set(servedChains()));
    expect(operations.length).toBeGreaterThan(30);
    expect(probes).toBeGreaterThan(1000);
  });
});

function named(body: unknown, field: string): boolean {
  const errors = (body as { errors?: { field: string; message: string }[] } | undefined)?.errors ?? [];
  return errors.some((error) => error.field === field);
}
