/**
 * The OpenAPI document as @fastify/swagger builds it repeats every part at each use: the error answers of
 * every route, each chain's copy of the same schemas. This turns the repeats into named components
 * (`components.responses`, `components.parameters`, `components.schemas`) referenced by `$ref`, so the
 * document shrinks severalfold and reads the same once its references are resolved. The routes keep
 * validating and serializing with their inline schemas: only the served document changes.
 */

type Json = null | boolean | number | string | Json[] | JsonObject;
interface JsonObject {
  [key: string]: Json;
}

/** Components by kind (`schemas`, `responses`, ...), then by name. */
type Components = Record<string, Record<string, Json>>;

/** Where a part is used: the chains of its operations (for its name), and the first operation's name. */
interface Use {
  chains: Set<string>;
  operation: string;
}

/** A schema smaller than this is left where it is: a reference would be about as long. */
const MIN_SHARED_SCHEMA = 120;
/** Likewise for a parameter (the `$ref` to one is some 45 characters). */
const MIN_SHARED_PARAMETER = 80;

/** Property names that say too little to name a shared schema without their operation. */
const VAGUE = /^(Data|Item|Items|Value|Option)(Item|Option)?\d*$/;

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

export interface SharingOptions {
  /** The family of each chain served, so a part every EVM chain shares is named `Evm…`. */
  familyOf: (chain: string) => string | undefined;
}

/** A copy of `inline` with every repeated response, parameter and schema as a named component. */
export function shareRepeatedParts(inline: object, options: SharingOptions): JsonObject {
  // A copy in plain JSON, as served: the inline document stays as @fastify/swagger keeps it.
  const document: JsonObject = JSON.parse(JSON.stringify(inline));
  const components: Components = {};
  for (const [kind, named] of Object.entries(
    isObject(document['components']) ? document['components'] : {},
  )) {
    if (isObject(named)) components[kind] = named;
  }
  document['components'] = components;
  const namer = new ComponentNamer(options.familyOf);
  const uses = new Map([
    ...shareOperationParts(document, components, 'responses', namer, () => true),
    ...shareOperationParts(
      document,
      components,
      'parameters',
      namer,
      (text) => text.length >= MIN_SHARED_PARAMETER,
    ),
  ]);
  shareSchemas(document, components, namer, uses);
  return document;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function* operationsOf(
  document: JsonObject,
): Generator<{ path: string; method: string; operation: JsonObject }> {
  const paths = isObject(document['paths']) ? document['paths'] : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.has(method) && isObject(operation)) yield { path, method, operation };
    }
  }
}

/** `/api/v2/tron/transactions/{txid}` → the chain and the route's words after it (`Transactions`). */
function routeOf(path: string): { chain: string | undefined; words: string[] } {
  const parts = path.split('/').filter((part) => part !== '' && !part.startsWith('{'));
  const chainRoute = parts[0] === 'api' && parts[1] === 'v2' && parts.length > 2 && parts[2] !== 'prices';
  const chain = chainRoute ? parts[2] : undefined;
  const words = chainRoute ? parts.slice(3) : parts.slice(parts[0] === 'api' ? 1 : 0);
  return { chain, words };
}

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/)
    .filter((word) => word !== '')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}

/** An operation's name without its chain: `POST /api/v2/tron/transactions` → `TransactionsPost`. */
function operationName(path: string, method: string): string {
  return pascal([...routeOf(path).words, method].join(' '));
}

function useOf(path: string, method: string): Use {
  const { chain } = routeOf(path);
  return { chains: new Set(chain === undefined ? [] : [chain]), operation: operationName(path, method) };
}

/** Names components after what they are and where they are used, each name once. */
class ComponentNamer {
  private readonly taken = new Set<string>();
  constructor(private readonly familyOf: (chain: string) => string | undefined) {}

  /** `Tron` when only Tron uses it, `Evm` when only EVM chains do, nothing when several families do. */
  group(chains: Set<string>): string {
    if (chains.size === 1) return pascal([...chains][0]!);
    const families = new Set([...chains].map((chain) => this.familyOf(chain) ?? chain));
    return families.size === 1 ? pascal([...families][0]!) : '';
  }

  /** The first candidate not yet taken; else the last one with a number. */
  name(kind: string, candidates: string[]): string {
    for (const candidate of candidates) {
      const key = `${kind}/${candidate}`;
      if (candidate !== '' && !this.taken.has(key)) {
        this.taken.add(key);
        return candidate;
      }
    }
    const base = candidates.findLast((candidate) => candidate !== '') ?? 'Part';
    for (let n = 2; ; n++) {
      const key = `${kind}/${base}_${n}`;
      if (!this.taken.has(key)) {
        this.taken.add(key);
        return `${base}_${n}`;
      }
    }
  }
}

const refTo = (kind: string, name: string): JsonObject => ({ $ref: `#/components/${kind}/${name}` });

/**
 * Responses or parameters that appear identical on two operations or more become one component each.
 * A response is named by its status (`Error401`; another kind of 401 after the routes that answer it,
 * `Error401_SessionPost`); a parameter by its name and place (`XNetworkHeader`, `TronAddressPath`).
 * Answers where each component is used, for the names of the schemas inside it.
 */
function shareOperationParts(
  document: JsonObject,
  components: Components,
  kind: 'responses' | 'parameters',
  namer: ComponentNamer,
  worthSharing: (text: string) => boolean,
): Map<string, Use> {
  interface Occurrence {
    text: string;
    part: JsonObject;
    replace: (ref: JsonObject) => void;
  }
  interface Seen {
    count: number;
    use: Use;
    label: string;
    place: string;
  }
  const occurrences: Occurrence[] = [];
  const seen = new Map<string, Seen>();
  for (const { path, method, operation } of operationsOf(document)) {
    const parts = operation[kind];
    const holder = parts as Record<string | number, Json>;
    const keys: (string | number)[] = Array.isArray(parts)
      ? parts.map((_, i) => i)
      : isObject(parts)
        ? Object.keys(parts)
        : [];
    for (const key of keys) {
      const part = holder[key];
      if (!isObject(part) || '$ref' in part) continue;
      const text = JSON.stringify(part);
      occurrences.push({ text, part, replace: (ref) => (holder[key] = ref) });
      const use = useOf(path, method);
      const entry = seen.get(text);
      if (entry === undefined) {
        const label = kind === 'responses' ? String(key) : String(part['name'] ?? key);
        seen.set(text, { count: 1, use, label, place: String(part['in'] ?? '') });
      } else {
        entry.count++;
        for (const chain of use.chains) entry.use.chains.add(chain);
      }
    }
  }
  const shared = new Map<string, string>();
  const uses = new Map<string, Use>();
  const variants = new Set<string>();
  // The most used variant of each status or parameter takes the plain name.
  const repeated = [...seen.entries()].filter(([text, entry]) => entry.count > 1 && worthSharing(text));
  repeated.sort(([, a], [, b]) => b.count - a.count);
  for (const [text, entry] of repeated) {
    const group = namer.group(entry.use.chains);
    let candidates: string[];
    if (kind === 'responses') {
      const status = Number(entry.label);
      const base = status >= 400 ? `Error${status}` : `${group}${entry.use.operation}${status}`;
      candidates = variants.has(base) ? [`${base}_${group}${entry.use.operation}`] : [base];
      variants.add(base);
    } else {
      const place = { path: 'Path', query: 'Query', header: 'Header', cookie: 'Cookie' }[entry.place] ?? '';
      const base = `${pascal(entry.label)}${place}`;
      candidates = [`${group}${base}`, `${group}${entry.use.operation}${base}`];
    }
    const name = namer.name(kind, candidates);
    shared.set(text, name);
    uses.set(name, entry.use);
  }
  const target = components[kind] ?? {};
  components[kind] = target;
  for (const { text, part, replace } of occurrences) {
    const name = shared.get(text);
    if (name === undefined) continue;
    target[name] ??= part;
    replace(refTo(kind, name));
  }
  return uses;
}

/** The places in a schema that hold schemas, with a hint of what each one is, for its name. */
function* subschemasOf(
  schema: JsonObject,
): Generator<{ holder: JsonObject | Json[]; key: string | number; hint: string }> {
  for (const keyword of ['properties', 'patternProperties'] as const) {
    const properties = schema[keyword];
    if (isObject(properties))
      for (const name of Object.keys(properties)) yield { holder: properties, key: name, hint: name };
  }
  for (const keyword of ['additionalProperties', 'items', 'not', 'contains', 'if', 'then', 'else'] as const) {
    if (isObject(schema[keyword]))
      yield { holder: schema, key: keyword, hint: keyword === 'items' ? 'Item' : keyword };
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'] as const) {
    const list = schema[keyword];
    if (Array.isArray(list))
      for (let i = 0; i < list.length; i++)
        yield {
          holder: list,
          key: i,
          hint: `${keyword === 'items' || keyword === 'prefixItems' ? 'Item' : 'Option'}${i + 1}`,
        };
  }
}

interface SchemaInfo {
  /** Its identity: schemas with the same one are the same. */
  text: string;
  /** About the length of its JSON. */
  size: number;
  /** Uses that are not inside another schema (a body, an answer, a parameter). */
  roots: number;
  /** Distinct schemas directly holding this one, with how many times each holds it. */
  holders: Map<string, number>;
  use: Use;
  hint: string;
  title: string | undefined;
  children: Map<string, number>;
}

/**
 * Schemas used twice or more (counting a use inside a shared schema once) become `components.schemas`,
 * named by their title or by the property that holds them and the chains that use them (`TronAddress`).
 */
function shareSchemas(
  document: JsonObject,
  components: Components,
  namer: ComponentNamer,
  componentUses: Map<string, Use>,
): void {
  const roots: { holder: JsonObject; key: string; use: Use; hint: string }[] = [];
  for (const { path, method, operation } of operationsOf(document)) {
    const use = useOf(path, method);
    collectRoots(operation, use, roots, `${use.operation}`);
  }
  for (const kind of ['responses', 'parameters'] as const) {
    for (const [name, part] of Object.entries(components[kind] ?? {})) {
      const use = componentUses.get(name) ?? { chains: new Set<string>(), operation: name };
      const holder = kind === 'parameters' ? [part] : { [name]: part };
      if (isObject(part)) collectRoots({ [kind]: holder }, use, roots, use.operation);
    }
  }

  const infos = new Map<string, SchemaInfo>();
  // Each schema's identity is its JSON with the schemas it holds written as their identities, made
  // bottom-up: one pass over the document's text rather than one per level of nesting.
  const identities = new Map<string, string>();
  const identityOf = new WeakMap<JsonObject, string>();
  const visit = (schema: JsonObject, use: Use, hint: string, isRoot: boolean): string => {
    const children = new Map<string, number>();
    let size = 0;
    for (const { holder: place, key, hint: childHint } of subschemasOf(schema)) {
      const child = (place as Record<string | number, Json>)[key];
      if (!isObject(child)) continue;
      // An item or a choice is named after what holds it (`AddressesItem`, `AmountOption1`).
      const named = /^(Item|Option)\d*$/.test(childHint) ? `${pascal(hint)}${childHint}` : childHint;
      const childIdentity = visit(child, use, named, false);
      children.set(childIdentity, (children.get(childIdentity) ?? 0) + 1);
      size += infos.get(childIdentity)?.size ?? 0;
    }
    const own = JSON.stringify(schema, (_key, value: Json) => {
      const known = value !== schema && isObject(value) ? identityOf.get(value) : undefined;
      return known === undefined ? value : `\u0000${known}`;
    });
    const identity = identities.get(own) ?? String(identities.size);
    identities.set(own, identity);
    identityOf.set(schema, identity);
    let info = infos.get(identity);
    if (info === undefined) {
      info = {
        text: identity,
        size: size + own.length,
        roots: 0,
        holders: new Map(),
        use: { chains: new Set(), operation: use.operation },
        hint,
        title: typeof schema['title'] === 'string' ? schema['title'] : undefined,
        children,
      };
      infos.set(identity, info);
    }
    for (const chain of use.chains) info.use.chains.add(chain);
    if (isRoot) info.roots++;
    return identity;
  };
  for (const root of roots) {
    const schema = root.holder[root.key];
    if (isObject(schema)) visit(schema, root.use, root.hint, true);
  }
  // How many times each schema is held by each distinct holder: the same in every copy of the holder.
  for (const info of infos.values()) {
    for (const [child, times] of info.children) infos.get(child)?.holders.set(info.text, times);
  }

  // Larger schemas first: a holder is always larger than what it holds, so its count is known first.
  const bySize = [...infos.values()].sort((a, b) => b.size - a.size);
  const uses = new Map<string, number>();
  const shared = new Set<string>();
  for (const info of bySize) {
    let count = info.roots;
    for (const [holder, times] of info.holders) {
      count += times * (shared.has(holder) ? 1 : (uses.get(holder) ?? 0));
    }
    uses.set(info.text, count);
    if (count >= 2 && info.size >= MIN_SHARED_SCHEMA) shared.add(info.text);
  }

  const names = new Map<string, string>();
  for (const info of infos.values()) {
    if (!shared.has(info.text)) continue;
    const group = namer.group(info.use.chains);
    const own = info.title === undefined ? pascal(info.hint) : pascal(info.title);
    const plain = `${group}${own}`;
    const withOperation = `${group}${info.use.operation}${own}`;
    // A word that says little alone (`Data`) is named after its operation first.
    const candidates = VAGUE.test(own) ? [withOperation, plain] : [plain, withOperation];
    names.set(info.text, namer.name('schemas', candidates));
  }

  const target = components['schemas'] ?? {};
  components['schemas'] = target;
  const replaceWithin = (schema: JsonObject): void => {
    for (const { holder, key } of subschemasOf(schema)) {
      const child = (holder as Record<string | number, Json>)[key];
      if (isObject(child)) (holder as Record<string | number, Json>)[key] = referenced(child);
    }
  };
  const referenced = (schema: JsonObject): JsonObject => {
    const identity = identityOf.get(schema);
    const name = identity === undefined ? undefined : names.get(identity);
    if (name === undefined) {
      replaceWithin(schema);
      return schema;
    }
    if (!(name in target)) {
      target[name] = schema;
      replaceWithin(schema);
    }
    return refTo('schemas', name);
  };
  for (const root of roots) {
    const schema = root.holder[root.key];
    if (isObject(schema)) root.holder[root.key] = referenced(schema);
  }
}

/** The schemas an operation holds directly: its parameters', its bodies', its answers' and their headers'. */
function collectRoots(
  operation: JsonObject,
  use: Use,
  roots: { holder: JsonObject; key: string; use: Use; hint: string }[],
  name: string,
): void {
  const parameters = operation['parameters'];
  if (Array.isArray(parameters)) {
    for (const parameter of parameters) {
      if (isObject(parameter) && isObject(parameter['schema']))
        roots.push({ holder: parameter, key: 'schema', use, hint: String(parameter['name'] ?? 'Parameter') });
    }
  }
  const contentsOf = (holder: Json | undefined, hint: string) => {
    if (!isObject(holder) || !isObject(holder['content'])) return;
    for (const media of Object.values(holder['content'])) {
      if (isObject(media) && isObject(media['schema']))
        roots.push({ holder: media, key: 'schema', use, hint });
    }
  };
  contentsOf(operation['requestBody'], `${name}Request`);
  const responses = operation['responses'];
  if (!isObject(responses)) return;
  for (const [status, response] of Object.entries(responses)) {
    if (!isObject(response)) continue;
    contentsOf(response, Number(status) >= 400 ? `${name}Error${status}` : `${name}${status}`);
    const headers = response['headers'];
    if (isObject(headers)) {
      for (const [header, value] of Object.entries(headers)) {
        if (isObject(value) && isObject(value['schema']))
          roots.push({ holder: value, key: 'schema', use, hint: header });
      }
    }
  }
}
