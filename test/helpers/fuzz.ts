/**
 * Request generators for the OpenAPI-driven fuzz suite. The JSON schemas of an operation's parameters and
 * body become fast-check arbitraries that mix values of the documented shape with hostile ones, and every
 * request is kept as the exact text sent, so a counterexample can be replayed as it is printed.
 *
 * Hostile values go either anywhere (each value, at every depth, is hostile one time in five, and the
 * encoding, headers and token vary too), or at one place only (a parameter or a path in the body) with
 * everything else valid, so that deep fields are reached behind valid siblings.
 */
import * as fc from 'fast-check';

/** The part of JSON Schema the gateway's document uses, plus `format: 'uri'` for hints. */
export interface Schema {
  type?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  enum?: readonly unknown[];
  const?: unknown;
  format?: 'uri';
  description?: string;
  properties?: Record<string, Schema>;
  required?: readonly string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  anyOf?: readonly Schema[];
  oneOf?: readonly Schema[];
  allOf?: readonly Schema[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

interface OpenApiOperation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses?: Record<string, unknown>;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: Schema | undefined;
  /** It documents 502 or 503: it calls a node (or a price source), which may be down. */
  callsNode: boolean;
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      parameters: operation.parameters ?? [],
      body: operation.requestBody?.content['application/json']?.schema,
      callsNode: ['502', '503'].some((status) => operation.responses?.[status] !== undefined),
    })),
  );
}

/** A JSON value as sent: object keys may repeat and numbers keep any text (`1e400`, `-0`). */
export type Wire = null | boolean | string | WireNumber | WireObject | Wire[];
export interface WireNumber {
  num: string;
}
export interface WireObject {
  entries: [string, Wire][];
}

export interface FuzzContext {
  /**
   * Narrower schemas for what the document leaves open (`url` is just a string there), by `in:name` for
   * parameters and by property name in bodies. A hint applies to a schema (or an anyOf branch) of its type
   * that has no pattern, enum or properties of its own.
   */
  hints: Record<string, Schema>;
  /** Values that exist on the gateway (addresses, webhook ids), offered wherever they match a pattern. */
  known: string[];
  /**
   * Requests known to be accepted, by `METHOD /path`: aimed requests for the operation keep all of the
   * example but the place aimed at, so that the hostile value gets past every other check.
   */
  examples: Record<string, Example>;
  /** The one value to put where the focus aims, instead of a drawn hostile one. */
  forced?: Wire;
}

export interface Example {
  params: Record<string, string>;
  body?: unknown;
}

/**
 * One place for hostile values: a path or query parameter, or a path in the body (`[]` for array items);
 * `NOWHERE` for a request valid throughout (an example where there is one), as the carrier of a header.
 */
export interface Focus {
  in: 'path' | 'query' | 'body' | 'nowhere';
  path: string[];
}

export const NOWHERE: Focus = { in: 'nowhere', path: [] };

/** What one generated request is, exactly as sent; `<token>` and `<other token>` stand for the tokens. */
export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

const obj = (...entries: [string, Wire][]): WireObject => ({ entries });
const isObject = (value: Wire): value is WireObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && 'entries' in value;

// --- hostile values -------------------------------------------------------------------------------

// biome-ignore format: a table
const SPECIAL_UNITS = [
  '\u0000', '\u0001', '\u0008', '\u001b', '\u007f', '\u0085', '\u2028', '\ud800', '\udfff', '\ufeff',
  '\u202e', '\uffff', '\ud83d\ude00', 'é', 'ǅ', '"', "'", '\\', '/', '%', '&', '=', '?', '#', '<', '{',
  '\r', '\n', '\t', ' ',
];
// biome-ignore format: a table
const CONTROL_TEXTS = [
  '\u0000', '\u0000\u0000', 'a\u0000b', '\u0001\u001f', '\r\n', '\t', '\u007f', '\ud800', '\udfff\ud800',
  '\ufeff', '\u202e',
];
// biome-ignore format: a table
const NUMERIC_TEXTS = [
  '0x10', '1e400', '-0', 'NaN', 'Infinity', '-1', '1.5', ' 1 ', '1,5', '١٢٣', '+1', '0b101', '1_000',
  '00012', '.5', '5.', '99999999999999999999999999999999999999999999999999999999999999999999999999999999',
];
// biome-ignore format: a table
const ODD_TEXTS = [
  '', ' ', 'null', 'undefined', 'true', '[]', '{}', '__proto__', '../../etc/passwd', "' OR '1'='1",
  '<script>alert(1)</script>', '{{7*7}}', '%00', '%zz',
];
// biome-ignore format: a table
const ODD_NUMBERS = [
  '1e400', '-1e400', '1e-400', '-0', '0.5', '-1', '9007199254740993', '18446744073709551616', '1E+2', '0e0',
  '123456789012345678901234567890.000000000000000000000000000001',
];
const ODD_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
  'a.b',
  'a[b]',
  '\u0000',
];

const hostileUnit = fc.oneof(
  fc.constantFrom(...SPECIAL_UNITS),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
);

/** Up to 100 KB of one unit. */
const longText = fc
  .tuple(
    fc.constantFrom('a', '0', '\u0000', 'é', '\ud800', '%', '\ud83d\ude00'),
    fc.integer({ min: 257, max: 100_000 }),
  )
  .map(([unit, count]) => unit.repeat(count));

export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: hostileUnit, maxLength: 24 }) },
  { weight: 2, arbitrary: fc.constantFrom(...CONTROL_TEXTS) },
  { weight: 2, arbitrary: fc.constantFrom(...NUMERIC_TEXTS) },
  { weight: 2, arbitrary: fc.constantFrom(...ODD_TEXTS) },
  { weight: 1, arbitrary: longText },
);

const hostileNumber: fc.Arbitrary<Wire> = fc.constantFrom(...ODD_NUMBERS).map((num) => ({ num }));
const hostileKey = fc.oneof(fc.constantFrom(...ODD_KEYS), fc.string({ maxLength: 8 }));

function nested(depth: number): Wire {
  return depth === 0 ? { num: '1' } : [nested(depth - 1)];
}

const hostileObject: fc.Arbitrary<Wire> = fc.oneof(
  fc.constant(obj(['__proto__', obj(['admin', true])])),
  fc.constant(obj(['constructor', obj(['prototype', obj(['admin', true])])])),
  fc.integer({ min: 2, max: 200 }).map(nested),
  fc
    .array(fc.tuple(hostileKey, fc.oneof(hostileText, hostileNumber, fc.constant(null))), {
      minLength: 1,
      maxLength: 3,
    })
    .map((entries) => obj(...entries)),
);

/** Any small JSON value, for schemas that say nothing and for extra properties. */
const anyValue: fc.Arbitrary<Wire> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.string({ maxLength: 12 }),
  fc.integer().map((n) => ({ num: String(n) })),
  hostileObject,
);

/** A valid value gone slightly wrong: text added to a string, an object with a key dropped or doubled ... */
function spoiled(valid: fc.Arbitrary<Wire>): fc.Arbitrary<Wire> {
  const bad = fc.oneof(
    { weight: 2, arbitrary: fc.constant('\u0000') },
    { weight: 2, arbitrary: fc.constantFrom(...CONTROL_TEXTS) },
    hostileText,
  );
  const how = fc.constantFrom('append', 'append', 'prepend', 'drop', 'duplicate', 'proto', 'extra');
  return fc
    .tuple(valid, how, bad, fc.nat(), hostileKey, anyValue)
    .map(([value, how, text, n, key, extra]) => {
      if (typeof value === 'string') return how === 'prepend' ? text + value : value + text;
      if (!isObject(value)) return text;
      const entries = [...value.entries];
      const pick = entries[n % Math.max(entries.length, 1)];
      if (how === 'drop' && pick) entries.splice(entries.indexOf(pick), 1);
      else if (how === 'duplicate' && pick) entries.push([pick[0], extra]);
      else if (how === 'proto') entries.push(['__proto__', obj([key, extra])]);
      else entries.push([key, extra]);
      return obj(...entries);
    });
}

/** Wrong types, odd texts and numbers, (more often for text) a valid value spoiled, and the place's classes. */
function hostileOf(valid: fc.Arbitrary<Wire>, text: boolean, place = ''): fc.Arbitrary<Wire> {
  const injected = injectionsAt(place).map((injection) => injection.value);
  const generic = fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 3, arbitrary: hostileText },
    { weight: text ? 12 : 6, arbitrary: spoiled(valid) },
    { weight: 2, arbitrary: hostileNumber },
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 1, arbitrary: fc.array(valid, { minLength: 1, maxLength: 2 }) },
    { weight: 1, arbitrary: hostileObject },
  );
  // The injection pass sends each class once; drawn runs meet them now and then, beside other values.
  if (injected.length === 0) return generic;
  return fc.oneof({ weight: 6, arbitrary: generic }, { weight: 1, arbitrary: fc.constantFrom(...injected) });
}

// --- injected classes -------------------------------------------------------------------------------

/**
 * What kind of value an injection is, and so what the answer owes it:
 * - `refused`: never accepted (an exponent amount, a webhook URL parsers read differently, a symbol of
 *   markup): a 4xx whose message does not quote it, never a 2xx. An operation that reads the chain
 *   first (a token's decimals before its amount) may answer its offline node's 502/503 instead;
 * - `edge`: at or past a chain type's limit (u64, uint256): any answer but a 500, and a refusal that does
 *   not quote it;
 * - `special`: an address with a role on its chain (the System Program, the zero address): any answer but
 *   a 500. Messages may name a valid address, as "Address … not found in your account" does.
 */
export type InjectionKind = 'refused' | 'edge' | 'special';

export interface Injection {
  kind: InjectionKind;
  value: Wire;
  /** The value as the request carries it, to look for in the answer. */
  text: string;
}

const U64 = 2n ** 64n;
const U256 = 2n ** 256n;

const edge = (text: string, value: Wire = text): Injection => ({ kind: 'edge', value, text });
const refused = (text: string, value: Wire = text): Injection => ({ kind: 'refused', value, text });

/** The largest whole number a type holds and the first it does not, as text and as a JSON number. */
function around(limit: bigint): Injection[] {
  return [edge(String(limit - 1n)), edge(String(limit)), edge(String(limit), { num: String(limit) })];
}

/**
 * Amounts: exponents as text and as a JSON number, and the u64 and uint256 limits in units (2^64 lamports
 * is 18446744073709.551616 SOL) and as whole numbers.
 */
const AMOUNT_INJECTIONS: Injection[] = [
  refused('1e1'),
  refused('2e-3'),
  refused('1E18', { num: '1E18' }),
  edge('18446744073709.551616'),
  edge(String(U64)),
  edge(String(U256)),
];

/** Addresses with a role on their chain: the System Program and Compute Budget, the EVM and Tron zeros. */
// biome-ignore format: a table
const SPECIAL_ADDRESSES = [
  '11111111111111111111111111111111', 'ComputeBudget111111111111111111111111111111',
  '0x0000000000000000000000000000000000000000', 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb',
];

/** Webhook URLs URL parsers read differently: a backslash, an @ before the host, no `//`. */
// biome-ignore format: a table
const CONFUSING_URLS = [
  'http://93.184.216.34\\@10.0.0.1/hook', 'http://@93.184.216.34/', 'https://user:pass@93.184.216.34/',
  'http:93.184.216.34/',
];

const MARKUP = '<SVG/ONLOAD=1>';

/**
 * Injections by place: `in:name` for parameters, the property name in bodies (as hints are keyed). Each
 * runs once wherever it applies, so the table stays short: a class, not an enumeration.
 */
const INJECTIONS: [RegExp, Injection[]][] = [
  [/^(query:)?amount$/, AMOUNT_INJECTIONS],
  [/^(path:)?(tokenId|tokenid)$/, around(U256)],
  [/^path:block$/, around(U64)],
  [/^(to|receiver)$/, SPECIAL_ADDRESSES.map((text): Injection => ({ kind: 'special', value: text, text }))],
  [/^url$/, CONFUSING_URLS.map((url) => refused(url))],
  [/^(path:symbol|query:from|query:symbols)$/, [refused(MARKUP)]],
];

/** The injected classes for a place (`path:block`, `amount`); empty when none applies. */
export function injectionsAt(place: string): Injection[] {
  return INJECTIONS.flatMap(([pattern, injections]) => (pattern.test(place) ? injections : []));
}

/**
 * The place a focus aims at, as `injectionsAt` names it: `path:block`, or a top-level body property's
 * name. Deeper places (the `amount` inside a signed Tron transaction) are the node's to judge: their
 * path, dotted, matches no class.
 */
export function placeOf(focus: Focus): string {
  if (focus.in === 'body') return focus.path.join('.');
  return `${focus.in}:${focus.path[0] ?? ''}`;
}

/** Host headers a client may send; none may turn up in an answer (pagination links were built from it). */
export const HOSTILE_HOSTS = ['attacker.example', 'attacker.example:8443', '<svg/onload=1>.example'];

// --- schemas to arbitraries -------------------------------------------------------------------------

/** Where hostile values go: anywhere (one value in five), nowhere, or only at the end of a path. */
type Aim = 'anywhere' | 'nowhere' | readonly string[];

const along = (aim: Aim, step: string): Aim =>
  typeof aim === 'string' ? aim : aim[0] === step ? aim.slice(1) : 'nowhere';

/** Values for the schema, hostile where aimed; `example` (a valid value) stands in wherever it can. */
export function valuesOf(
  schema: Schema,
  ctx: FuzzContext,
  aim: Aim = 'anywhere',
  example?: unknown,
  place = '',
): fc.Arbitrary<Wire> {
  const text = schema.type === 'string' || schema.pattern !== undefined || schema.format !== undefined;
  if (typeof aim !== 'string' && aim.length === 0) {
    if (ctx.forced !== undefined) return fc.constant(ctx.forced);
    return hostileOf(validOf(schema, ctx, 'nowhere', example, place), text, place);
  }
  const valid = validOf(schema, ctx, aim, example, place);
  if (aim !== 'anywhere') return valid;
  return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: hostileOf(valid, text, place) });
}

function validOf(
  schema: Schema,
  ctx: FuzzContext,
  aim: Aim,
  example?: unknown,
  place = '',
): fc.Arbitrary<Wire> {
  if (aim === 'nowhere' && example !== undefined) return fc.constant(toWire(example));
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const aimed =
      typeof aim === 'string' ? [] : branches.filter((b) => placesOf(b, ctx).some((p) => same(p, aim)));
    return fc.oneof(
      ...(aimed.length > 0 ? aimed : branches).map((branch) => valuesOf(branch, ctx, aim, example, place)),
    );
  }
  if (schema.allOf) return validOf(merged(schema.allOf), ctx, aim, example, place);
  if (schema.enum) return fc.constantFrom(...schema.enum.map(toWire));
  if (schema.const !== undefined) return fc.constant(toWire(schema.const));
  if (schema.format === 'uri') return webhookUrl;
  if (schema.pattern !== undefined) return matching(schema.pattern, ctx.known);
  switch (schema.type) {
    case 'string': {
      const minLength = schema.minLength ?? 0;
      return fc.string({ minLength, maxLength: Math.min(schema.maxLength ?? 40, Math.max(minLength, 40)) });
    }
    case 'integer':
      return integer(schema);
    case 'number':
      return fc
        .double({ min: schema.minimum ?? -1e12, max: schema.maximum ?? 1e12, noNaN: true })
        .map((n) => ({ num: String(n) }));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = Math.max(schema.minItems ?? 0, typeof aim === 'string' ? 0 : 1);
      const item = Array.isArray(example) ? example[0] : undefined;
      return fc.array(valuesOf(schema.items ?? {}, ctx, along(aim, '[]'), item, place), {
        minLength,
        maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)),
      });
    }
    case 'object':
      return objectOf(schema, ctx, aim, example);
    default:
      return anyValue;
  }
}

function objectOf(schema: Schema, ctx: FuzzContext, aim: Aim, example?: unknown): fc.Arbitrary<Wire> {
  const given = isRecord(example) ? example : undefined;
  const aimed = typeof aim === 'string' ? [] : aim.slice(0, 1);
  // Around an example: its properties and the one aimed at, no others.
  const properties = Object.entries(schema.properties ?? {}).filter(
    ([name]) => given === undefined || name in given || aimed.includes(name),
  );
  const model = Object.fromEntries(
    properties.map(([name, property]) => [
      name,
      valuesOf(refine(property, ctx.hints[name]), ctx, along(aim, name), given?.[name], name),
    ]),
  );
  const required = given ? properties.map(([name]) => name) : [...(schema.required ?? []), ...aimed];
  const open = aim === 'anywhere' && (properties.length === 0 || schema.additionalProperties === true);
  return fc
    .tuple(
      fc.record(model, { requiredKeys: required }),
      open ? fc.array(fc.tuple(hostileKey, anyValue), { maxLength: 2 }) : fc.constant([]),
    )
    .map(([record, extra]) => obj(...Object.entries(record), ...extra));
}

/** Every place a value sits in the schema, as paths of property names (`[]` for array items). */
export function placesOf(schema: Schema, ctx: FuzzContext): string[][] {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return unique(branches.flatMap((branch) => placesOf(branch, ctx)));
  if (schema.allOf) return placesOf(merged(schema.allOf), ctx);
  const inside =
    schema.enum !== undefined || schema.pattern !== undefined
      ? []
      : schema.type === 'array'
        ? placesOf(schema.items ?? {}, ctx).map((path) => ['[]', ...path])
        : Object.entries(schema.properties ?? {}).flatMap(([name, property]) =>
            placesOf(refine(property, ctx.hints[name]), ctx).map((path) => [name, ...path]),
          );
  return [[], ...inside];
}

const same = (a: readonly string[], b: readonly string[]) => a.join('\u0000') === b.join('\u0000');
const unique = (paths: string[][]) => [...new Map(paths.map((path) => [path.join('\u0000'), path])).values()];

/** Integers in bounds, and past 2^53 where the schema has no maximum. */
function integer(schema: Schema): fc.Arbitrary<Wire> {
  const min = schema.minimum ?? -(2 ** 31);
  const small = fc.integer({ min, max: schema.maximum ?? 2 ** 31 });
  const big = fc.bigInt({ min: BigInt(min), max: 2n ** 80n });
  return (schema.maximum === undefined ? fc.oneof(small, big) : small).map((n) => ({ num: String(n) }));
}

/** Building a stringMatching arbitrary takes milliseconds: one per pattern (and list of known values). */
const byPattern = new WeakMap<string[], Map<string, fc.Arbitrary<Wire>>>();

function matching(pattern: string, known: string[]): fc.Arbitrary<Wire> {
  const cache = byPattern.get(known) ?? new Map<string, fc.Arbitrary<Wire>>();
  byPattern.set(known, cache);
  const cached = cache.get(pattern);
  if (cached) return cached;
  const regex = new RegExp(pattern);
  const existing = known.filter((value) => regex.test(value));
  const generated = fc.stringMatching(regex);
  const arbitrary = existing.length === 0 ? generated : fc.oneof(generated, fc.constantFrom(...existing));
  cache.set(pattern, arbitrary);
  return arbitrary;
}

const PUBLIC_HOSTS = ['93.184.216.34', '1.1.1.1:8443', '[2606:4700::1111]', '8.8.8.8'];
const REFUSED_HOSTS = [
  '127.0.0.1',
  '10.0.0.7',
  '169.254.169.254',
  '[::1]',
  '2130706433',
  'user:pw@8.8.8.8',
  'localhost',
];

/** http(s) URLs, mostly on public addresses (no name to resolve), some on refused ones or schemes. */
const webhookUrl: fc.Arbitrary<Wire> = fc
  .tuple(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.tuple(fc.constantFrom('https://', 'http://'), fc.constantFrom(...PUBLIC_HOSTS)),
      },
      fc.tuple(fc.constantFrom('https://', 'ftp://', 'file://'), fc.constantFrom(...REFUSED_HOSTS)),
    ),
    fc.webPath(),
  )
  .map(([[scheme, host], path]) => scheme + host + path);

function refine(schema: Schema, hint: Schema | undefined): Schema {
  if (hint === undefined) return schema;
  if (schema.anyOf) return { ...schema, anyOf: schema.anyOf.map((branch) => refine(branch, hint)) };
  const open =
    schema.pattern === undefined &&
    schema.enum === undefined &&
    Object.keys(schema.properties ?? {}).length === 0;
  return open && schema.type === hint.type ? hint : schema;
}

function merged(schemas: readonly Schema[]): Schema {
  return {
    type: 'object',
    properties: Object.assign({}, ...schemas.map((s) => s.properties)),
    required: schemas.flatMap((s) => s.required ?? []),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A plain JSON value (an enum member, an example) as sent. */
function toWire(value: unknown): Wire {
  if (typeof value === 'number') return { num: String(value) };
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  if (Array.isArray(value)) return value.map(toWire);
  if (isRecord(value)) return obj(...Object.entries(value).map(([k, v]): [string, Wire] => [k, toWire(v)]));
  return null;
}

// --- wire formats --------------------------------------------------------------------------------------

export function jsonText(value: Wire): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (isObject(value))
    return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  return value.num;
}

/** The value as one text field: how a query, a path or a form carries a scalar. */
function scalarText(value: Wire): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && 'num' in value) return value.num;
  return typeof value === 'boolean' ? String(value) : jsonText(value);
}

/** Form-style fields: nested objects as `a[b]`, arrays as the key repeated. */
function fields(value: Wire, key: string): [string, string][] {
  if (Array.isArray(value)) return value.flatMap((item) => fields(item, key));
  if (isObject(value)) return value.entries.flatMap(([k, v]) => fields(v, key === '' ? k : `${key}[${k}]`));
  return [[key, scalarText(value)]];
}

/** Percent-encodes UTF-8 bytes (a lone surrogate becomes U+FFFD) outside the unreserved set. */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const formText = (value: Wire) =>
  fields(value, '')
    .map(([k, v]) => (k === '' ? percentEncode(v) : `${percentEncode(k)}=${percentEncode(v)}`))
    .join('&');

const BOUNDARY = 'fuzzboundary';

/** Parts whose bit is set in `files` go as file parts. */
function multipartText(value: Wire, files: number): string {
  const parts = fields(value, '').map(([name, text], i) => {
    const file = (files >> i) & 1 ? `; filename="${name}.json"` : '';
    return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${file}\r\n\r\n${text}\r\n`;
  });
  return `${parts.join('')}--${BOUNDARY}--\r\n`;
}

// --- requests ------------------------------------------------------------------------------------------

// biome-ignore format: a table
const BROKEN_JSON = [
  '', ' ', '{', '{"a":', '{"a":1,}', "{'a':1}", 'nul', '[1,2', '\u0000', '\ufeff{}', '{"a":1}{"b":2}',
  '"\\ud800"', '{"a":"\\u00"}', '1e999999999', '{"__proto__":{"x":1}}', '{"a":1,"a":2}',
  `${'['.repeat(100)}${']'.repeat(100)}`,
];
const ODD_JSON_TYPES = ['application/json; charset=utf-8', 'Application/JSON', 'application/json;;'];
const WRONG_JSON_TYPES = ['application/json; charset=iso-8859-1', 'application/vnd.api+json'];
const PATH_GARBAGE = ['%', '%zz', '%E0%A4%A', '%00', '%2F..%2F', '%C0%AE', '%FF%FE', '..', '%u0041'];
const QUERY_GARBAGE = [
  'page[]=1',
  '%zz=1',
  'a=%',
  '&&&',
  '=',
  '__proto__[x]=1',
  'constructor[prototype][x]=1',
];

interface Body {
  contentType?: string;
  text: string;
}

/**
 * JSON whose cost is in its shape rather than its length, from a few KiB to past the largest route's
 * limit (1 MiB): many empty objects or arrays, deep nesting, many keys, long escaped strings, numbers a
 * double rounds. Each must be refused (413, 400) or parsed without holding the event loop.
 */
export const WORST_SHAPES: Record<string, (bytes: number) => string> = {
  'empty objects': (bytes) => `[${'{},'.repeat(Math.floor(bytes / 3))}{}]`,
  'empty arrays': (bytes) => `[${'[],'.repeat(Math.floor(bytes / 3))}[]]`,
  'deep nesting': (bytes) => '['.repeat(bytes / 2) + ']'.repeat(bytes / 2),
  'many keys': (bytes) =>
    `{${Array.from({ length: Math.floor(bytes / 12) }, (_, i) => `"k${i}":0`).join(',')}}`,
  'long escaped string': (bytes) => `{"to":"${'\\u00e9'.repeat(Math.floor(bytes / 6))}"}`,
  'inexact numbers': (bytes) => `[${'1.50,'.repeat(Math.floor(bytes / 5))}1.50]`,
};

const worstShapeBodies: fc.Arbitrary<Body> = fc
  .tuple(fc.constantFrom(...Object.keys(WORST_SHAPES)), fc.constantFrom(2_000, 20_000, 300_000, 1_100_000))
  .map(([shape, bytes]) => ({ contentType: 'application/json', text: WORST_SHAPES[shape]!(bytes) }));

/** JSON mostly, with odd or wrong content types, broken JSON, forms, multipart, plain text or no type. */
function encodedBodies(value: fc.Arbitrary<Wire>): fc.Arbitrary<Body> {
  const json = fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_JSON_TYPES) },
    { weight: 1, arbitrary: fc.constantFrom(...WRONG_JSON_TYPES) },
  );
  const multipart = `multipart/form-data; boundary=${BOUNDARY}`;
  return fc.oneof(
    {
      weight: 12,
      arbitrary: fc.tuple(json, value).map(([contentType, v]) => ({ contentType, text: jsonText(v) })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...BROKEN_JSON).map((text) => ({ contentType: 'application/json', text })),
    },
    {
      weight: 2,
      arbitrary: value.map((v) => ({ contentType: 'application/x-www-form-urlencoded', text: formText(v) })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(value, fc.nat())
        .map(([v, files]) => ({ contentType: multipart, text: multipartText(v, files) })),
    },
    { weight: 1, arbitrary: value.map((v) => ({ contentType: 'text/plain', text: jsonText(v) })) },
    { weight: 1, arbitrary: value.map((v): Body => ({ text: jsonText(v) })) },
    { weight: 1, arbitrary: worstShapeBodies },
  );
}

/** Header values are Latin-1 without NUL, CR or LF, or fetch refuses them. */
const headerSafe = (text: string) => text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');

const authorizations = fc.oneof(
  { weight: 14, arbitrary: fc.constant('Bearer <token>') },
  { weight: 1, arbitrary: fc.constant('<token>') },
  { weight: 2, arbitrary: fc.constant('Bearer <other token>') },
  { weight: 1, arbitrary: fc.constant(undefined) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'Bearer',
      'Basic dXNlcjpwYXNz',
      'Bearer <token>x',
      'bearer <token>',
      'Bearer swy_',
    ),
  },
  { weight: 1, arbitrary: hostileText.map((text) => `Bearer ${headerSafe(text)}`) },
);

const extraHeaders = fc.option(
  fc.oneof(
    fc.tuple(fc.constant('x-request-id'), fc.oneof(fc.uuid(), hostileText.map(headerSafe))),
    fc.tuple(fc.constantFrom('host', 'x-forwarded-host'), fc.constantFrom(...HOSTILE_HOSTS)),
    fc.tuple(
      fc.constant('accept'),
      fc.constantFrom('text/html', 'application/xml', '*/*', 'application/json;q=0'),
    ),
  ),
  { freq: 6, nil: undefined },
);

/** Places to aim at one by one: path and query parameters, and every place in the body. */
export function focusesOf(op: Operation, ctx: FuzzContext): Focus[] {
  const params = op.parameters.flatMap((p) =>
    p.in === 'path' || p.in === 'query' ? [{ in: p.in, path: [p.name] }] : [],
  );
  const body =
    op.body === undefined ? [] : placesOf(op.body, ctx).map((path): Focus => ({ in: 'body', path }));
  return [...params, ...body];
}

/**
 * Requests for one operation, hostile anywhere or, given a focus, only there (then with a valid token, a
 * JSON body and no extra headers). Path, query, headers and body are all drawn from the schemas.
 */
export function requestsFor(op: Operation, ctx: FuzzContext, focus?: Focus): fc.Arbitrary<FuzzRequest> {
  const aimAt = (p: Parameter): Aim =>
    focus === undefined ? 'anywhere' : focus.in === p.in && focus.path[0] === p.name ? [] : 'nowhere';
  const example = focus ? ctx.examples[`${op.method} ${op.path}`] : undefined;
  const values = (p: Parameter) =>
    valuesOf(
      refine(p.schema, ctx.hints[`${p.in}:${p.name}`]),
      ctx,
      aimAt(p),
      example?.params[p.name],
      `${p.in}:${p.name}`,
    );
  const params = (place: Parameter['in']) => op.parameters.filter((p) => p.in === place);

  const segments = fc.tuple(...params('path').map((p) => segmentsOf(values(p), aimAt(p) !== 'nowhere')));
  const queries = fc.tuple(...params('query').map((p) => queriesOf(p, values(p), aimAt(p))));
  const headers = fc.tuple(
    ...params('header').map((p) =>
      fc.option(
        values(p).map((v): [string, string] => [p.name, headerSafe(scalarText(v))]),
        { freq: 4, nil: undefined },
      ),
    ),
  );
  const garbage = focus
    ? fc.constant(undefined)
    : fc.option(fc.constantFrom(...QUERY_GARBAGE), { freq: 9, nil: undefined });
  const extra = focus ? fc.constant(undefined) : extraHeaders;
  const auth = focus ? fc.constant('Bearer <token>') : authorizations;

  const bodyAim: Aim = focus === undefined ? 'anywhere' : focus.in === 'body' ? focus.path : 'nowhere';
  const value = op.body === undefined ? anyValue : valuesOf(op.body, ctx, bodyAim, example?.body);
  let body: fc.Arbitrary<Body | undefined> = fc.constant(undefined);
  if (op.method !== 'GET' && focus !== undefined && op.body !== undefined) {
    body = value.map((v) => ({ contentType: 'application/json', text: jsonText(v) }));
  } else if (op.method !== 'GET' && focus === undefined) {
    // Operations without a body mostly go without one.
    body = op.body ? encodedBodies(value) : fc.option(encodedBodies(value), { freq: 3, nil: undefined });
  }

  return fc
    .record({ segments, queries, garbage, headers, extra, auth, body })
    .map(({ segments, queries, garbage, headers, extra, auth, body }) => {
      let i = 0;
      const path = op.path.replace(/\{[^}]+\}/g, () => segments[i++] ?? '');
      const query = [...queries.flat(), ...(garbage ? [garbage] : [])].join('&');
      const all: Record<string, string> = Object.fromEntries(
        [...headers, extra].filter((h) => h !== undefined),
      );
      if (auth !== undefined) all['authorization'] = auth;
      if (body?.contentType !== undefined) all['content-type'] = body.contentType;
      return {
        method: op.method,
        url: query === '' ? path : `${path}?${query}`,
        headers: all,
        ...(body === undefined ? {} : { body: body.text }),
      };
    });
}

/** A path segment, percent-encoded, or with raw percent-encoding garbage where hostile values go. */
function segmentsOf(values: fc.Arbitrary<Wire>, hostile: boolean): fc.Arbitrary<string> {
  const encoded = values.map((v) => percentEncode(scalarText(v)));
  if (!hostile) return encoded;
  const garbage = fc
    .tuple(values, fc.constantFrom(...PATH_GARBAGE))
    .map(([v, bad]) => percentEncode(scalarText(v)) + bad);
  return fc.oneof({ weight: 5, arbitrary: encoded }, garbage);
}

/** `name=value` pairs; a required parameter goes missing now and then when hostile values go anywhere. */
function queriesOf(p: Parameter, values: fc.Arbitrary<Wire>, aim: Aim): fc.Arbitrary<string[]> {
  const pairs = values.map((v) =>
    fields(v, p.name).map(([k, t]) => `${percentEncode(k)}=${percentEncode(t)}`),
  );
  const none: string[] = [];
  if (aim === 'anywhere' && p.required) return fc.oneof({ weight: 9, arbitrary: pairs }, fc.constant(none));
  return p.required || aim !== 'nowhere' ? pairs : fc.option(pairs, { nil: none });
}
