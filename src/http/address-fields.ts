/**
 * Every request field whose schema is marked as an address (`x-address`, see `addressSchema`) is checked
 * with its family's address form on the request's network, after schema validation and before the route
 * runs: malformed text, a mistyped checksum or an address of another network answers 422 naming the
 * field, before any node is asked. The fields are found in the route's schema as the route is added, so a
 * new address field is checked by being declared as one.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { ADDRESS_MARK, ADDRESS_OF_THE_CHAIN, type FamilyModule } from '../chains/family.ts';
import type { Env } from '../config/setting.ts';
import { type FieldError, validationFailed } from '../errors.ts';

const PARTS = ['params', 'querystring', 'body'] as const;
type Part = (typeof PARTS)[number];

/** An address field of a route: where it is (`*` for any item of an array) and whose address it holds. */
interface AddressField {
  part: Part;
  path: readonly string[];
  family: string;
}

/** The spec's chain-less webhook form is Tron's unless its body names another chain. */
const DEFAULT_CHAIN = 'tron';

export function checkAddressFields(
  app: FastifyInstance,
  { families, settings }: { families: readonly FamilyModule[]; settings: Env },
): void {
  const byName = new Map(families.map((family) => [family.name, family]));
  const familyOfChain = (chain: string) => families.find((family) => Object.hasOwn(family.chains, chain));

  app.addHook('onRoute', (route: RouteOptions) => {
    const fields: AddressField[] = PARTS.flatMap((part) =>
      markedIn(route.schema?.[part]).map(({ path, family }) => ({ part, path, family })),
    );
    if (fields.length === 0) return;
    const refuseWrongAddresses = async (request: FastifyRequest) => {
      const errors: FieldError[] = [];
      for (const field of fields) {
        const family =
          field.family === ADDRESS_OF_THE_CHAIN ? familyOfChain(chainOf(request)) : byName.get(field.family);
        // A chain not served is the route's 404 to answer.
        if (family === undefined) continue;
        for (const [name, value] of valuesAt(partOf(request, field.part), field.path, [])) {
          if (typeof value !== 'string' || value.trim() === '') continue;
          const problem = family.address.fieldProblem(name, value.trim(), request.network, settings);
          if (problem !== null && !errors.some((e) => e.field === name))
            errors.push({ field: name, message: problem });
        }
      }
      if (errors.length > 0) throw validationFailed(errors);
    };
    const own = route.preHandler === undefined ? [] : [route.preHandler].flat();
    route.preHandler = [refuseWrongAddresses, ...own];
  });
}

function partOf(request: FastifyRequest, part: Part): unknown {
  return part === 'querystring' ? request.query : request[part];
}

/** The chain a request names: in its path, else in its body (`blockchain`), else the chain-less default. */
function chainOf(request: FastifyRequest): string {
  const named = [fieldOf(request.params, 'chain'), fieldOf(request.body, 'blockchain')];
  const chain = named.find((value): value is string => typeof value === 'string');
  return (chain ?? DEFAULT_CHAIN).toLowerCase();
}

function fieldOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
}

/** The marked fields of a JSON schema: through objects, arrays, unions and intersections. */
function markedIn(schema: unknown, path: readonly string[] = []): { path: string[]; family: string }[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const mark = Reflect.get(schema, ADDRESS_MARK);
  if (typeof mark === 'string') return [{ path: [...path], family: mark }];
  const found: { path: string[]; family: string }[] = [];
  const properties = Reflect.get(schema, 'properties');
  if (typeof properties === 'object' && properties !== null) {
    for (const [key, property] of Object.entries(properties))
      found.push(...markedIn(property, [...path, key]));
  }
  found.push(...markedIn(Reflect.get(schema, 'items'), [...path, '*']));
  for (const keyword of ['anyOf', 'allOf', 'oneOf']) {
    const branches = Reflect.get(schema, keyword);
    if (Array.isArray(branches)) for (const branch of branches) found.push(...markedIn(branch, path));
  }
  // A field in several branches is checked once.
  return [...new Map(found.map((field) => [`${field.path.join('.')} ${field.family}`, field])).values()];
}

/** The values at a path, each with its field name as errors name it (`outputs.0.address`). */
function valuesAt(value: unknown, path: readonly string[], done: string[]): [string, unknown][] {
  const [step, ...rest] = path;
  if (step === undefined) return [[done.join('.'), value]];
  if (step === '*') {
    if (!Array.isArray(value)) return [];
    return value.flatMap((item, index) => valuesAt(item, rest, [...done, String(index)]));
  }
  const next = fieldOf(value, step);
  return next === undefined ? [] : valuesAt(next, rest, [...done, step]);
}
