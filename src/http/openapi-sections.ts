/**
 * The served document split into sections Swagger UI can show one at a time: one per chain (its
 * `/api/v2/<chain>/...` paths) and one for the routes of no chain (account, session, webhooks, prices,
 * health). Each section is a standalone OpenAPI document: its paths and exactly the components they
 * reach, so a browser parses a fraction of the whole. `/openapi.json` stays the whole document.
 */

type Json = null | boolean | number | string | Json[] | JsonObject;
interface JsonObject {
  [key: string]: Json;
}

/** The section of the routes that belong to no chain. */
export const GENERAL_SECTION = 'general';

export interface DocumentSection {
  /** Its file name without `.json`: `general`, `tron`, `ethereum`... */
  name: string;
  /** What the section selector shows. */
  title: string;
  document: JsonObject;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `/api/v2/tron/...` → `tron` when Tron is served; every other path → the general section. */
export function sectionOfPath(path: string, chains: ReadonlySet<string>): string {
  const [, api, version, chain] = path.split('/');
  return api === 'api' && version === 'v2' && chain !== undefined && chains.has(chain)
    ? chain
    : GENERAL_SECTION;
}

/** The title shown for a section: the chain's name capitalized, or what the general one holds. */
export function sectionTitle(name: string): string {
  if (name === GENERAL_SECTION) return 'Account, webhooks, prices (all chains)';
  return name === 'bsc' ? 'BSC' : name[0]!.toUpperCase() + name.slice(1);
}

/** The section names in the order the selector lists them: the general one first, then the chains served. */
export function sectionNames(chains: readonly string[]): string[] {
  return [GENERAL_SECTION, ...chains];
}

/** `#/components/schemas/TronAddress` → `['schemas', 'TronAddress']`. */
function componentOf(ref: string): [string, string] | undefined {
  const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref);
  if (match === null) return undefined;
  const unescaped = (step: string) => step.replaceAll('~1', '/').replaceAll('~0', '~');
  return [unescaped(match[1]!), unescaped(match[2]!)];
}

/** Every `$ref` and security scheme name within `value`. */
function collectReferences(value: Json, refs: Set<string>, schemes: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectReferences(item, refs, schemes);
    return;
  }
  if (!isObject(value)) return;
  if (typeof value['$ref'] === 'string') refs.add(value['$ref']);
  const security = value['security'];
  if (Array.isArray(security)) {
    for (const requirement of security)
      if (isObject(requirement)) for (const name of Object.keys(requirement)) schemes.add(name);
  }
  for (const item of Object.values(value)) collectReferences(item, refs, schemes);
}

/** The components `root` reaches, directly or through other components, in the document's own order. */
function reachableComponents(document: JsonObject, root: Json): JsonObject {
  const all = isObject(document['components']) ? document['components'] : {};
  const refs = new Set<string>();
  const schemes = new Set<string>();
  collectReferences(root, refs, schemes);
  const reached = new Set<string>();
  const pending = [...refs];
  while (pending.length > 0) {
    const ref = pending.pop()!;
    if (reached.has(ref)) continue;
    reached.add(ref);
    const place = componentOf(ref);
    const named = place === undefined ? undefined : all[place[0]];
    const component = place !== undefined && isObject(named) ? named[place[1]] : undefined;
    if (component === undefined) continue;
    const inner = new Set<string>();
    collectReferences(component, inner, schemes);
    pending.push(...inner);
  }
  const components: JsonObject = {};
  for (const [kind, named] of Object.entries(all)) {
    if (!isObject(named)) continue;
    const kept = Object.entries(named).filter(([name]) =>
      kind === 'securitySchemes' ? schemes.has(name) : reached.has(`#/components/${kind}/${name}`),
    );
    if (kept.length > 0) components[kind] = Object.fromEntries(kept);
  }
  return components;
}

/**
 * The document's sections: `general` and one per chain served, each with its paths in the document's
 * order and the components they reach; every path is in exactly one section.
 */
export function splitIntoSections(document: JsonObject, chains: readonly string[]): DocumentSection[] {
  const served = new Set(chains);
  const paths = isObject(document['paths']) ? document['paths'] : {};
  const grouped = new Map<string, JsonObject>(sectionNames(chains).map((name) => [name, {}]));
  for (const [path, item] of Object.entries(paths)) {
    grouped.get(sectionOfPath(path, served))![path] = item;
  }
  const { paths: _all, components: _components, info, ...rest } = document;
  const sections: DocumentSection[] = [];
  for (const [name, sectionPaths] of grouped) {
    const title = sectionTitle(name);
    // Top-level `security` (none today) would name schemes too: it is kept, so it is searched with the paths.
    const reached = reachableComponents(document, { ...rest, paths: sectionPaths });
    const sectionInfo = isObject(info) ? { ...info, title: `${String(info['title'])}: ${title}` } : info;
    sections.push({
      name,
      title,
      document: { ...rest, info: sectionInfo ?? null, paths: sectionPaths, components: reached },
    });
  }
  return sections;
}
