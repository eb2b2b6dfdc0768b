/**
 * An example value for a JSON schema, for the OpenAPI document's response examples: a schema's own
 * `examples`, `default`, `const` or first `enum` value where it has one, else a value of its type.
 */
interface ExampleSchema {
  examples?: unknown[];
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  type?: string | string[];
  pattern?: string;
  minimum?: number;
  properties?: Record<string, ExampleSchema>;
  items?: ExampleSchema;
  anyOf?: ExampleSchema[];
  allOf?: ExampleSchema[];
  not?: unknown;
}

/** Written-out stand-ins for the patterns the API uses most, so that examples look like real values. */
const BY_PATTERN: [RegExp, string][] = [
  [/T\[1-9A-HJ/, 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC'],
  [/\[0-9a-fA-F\]\{40\}/, '0x52908400098527886E0F7030069857D2E4169EE7'],
  [/0x.*\{64\}/, '0x9fc76417374aa880d4449a1f7f31ec597f00b1f6f3dd2d66f4c9c6c445836d8b'],
  [/\{64\}/, '9fc76417374aa880d4449a1f7f31ec597f00b1f6f3dd2d66f4c9c6c445836d8b'],
];

export function exampleOf(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return null;
  const s: ExampleSchema = schema;
  if (s.examples !== undefined && s.examples.length > 0) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum !== undefined && s.enum.length > 0) return s.enum[0];
  if (s.anyOf !== undefined) return exampleOf(s.anyOf.find((branch) => branch.type !== 'null') ?? s.anyOf[0]);
  if (s.allOf !== undefined) {
    return Object.assign({}, ...s.allOf.map((part) => exampleOf(part)).filter((v) => typeof v === 'object'));
  }
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(s.properties ?? {}).map(([key, value]) => [key, exampleOf(value)]),
      );
    case 'array':
      // `Type.Never()` items (an always-empty list) have no example value.
      return s.items === undefined || s.items.not !== undefined ? [] : [exampleOf(s.items)];
    case 'string':
      return BY_PATTERN.find(([shape]) => s.pattern !== undefined && shape.test(s.pattern))?.[1] ?? 'string';
    case 'integer':
    case 'number':
      return s.minimum ?? 0;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}
