/**
 * The OpenAPI document as a client reads it: its `$ref`s to `#/components/...` resolved. A reference that
 * leads nowhere throws, naming it.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read documents of many shapes
type Json = any;

/** The value a local reference (`#/components/schemas/TronAddress`) points at; throws when it is missing. */
export function resolveRef(document: Json, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`${ref} is not a reference within the document`);
  let target = document;
  for (const step of ref.slice(2).split('/')) {
    const key = step.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof target !== 'object' || target === null || !Object.hasOwn(target, key)) {
      throw new Error(`${ref} does not resolve`);
    }
    target = target[key];
  }
  return target;
}

/** Every `$ref` in the document, once each. */
export function referencesOf(value: Json, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) referencesOf(item, found);
  else if (typeof value === 'object' && value !== null) {
    if (typeof value.$ref === 'string') found.add(value.$ref);
    for (const item of Object.values(value)) referencesOf(item, found);
  }
  return found;
}

/** A copy with every reference replaced by what it points at (a reference beside other keys throws). */
export function dereferenced(document: Json): Json {
  const resolve = (value: Json, through: string[]): Json => {
    if (Array.isArray(value)) return value.map((item) => resolve(item, through));
    if (typeof value !== 'object' || value === null) return value;
    if (typeof value.$ref === 'string') {
      if (Object.keys(value).length !== 1) throw new Error(`${value.$ref} has keys beside it`);
      if (through.includes(value.$ref)) throw new Error(`${value.$ref} refers to itself`);
      return resolve(resolveRef(document, value.$ref), [...through, value.$ref]);
    }
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item, through)]));
  };
  const { components, ...rest } = document;
  const resolved = resolve(rest, []);
  // Components stay, their own references resolved too (the security schemes are read by name).
  return { ...resolved, components: resolve(components ?? {}, []) };
}
