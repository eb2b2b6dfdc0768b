/**
 * `/docs` reads the document in sections (`/openapi/{section}.json`): each a standalone OpenAPI 3.1
 * document whose every reference resolves inside it and whose components are exactly those its paths
 * reach; together they hold every path of `/openapi.json` exactly once, as `/openapi.json` has it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { servedChains } from '../../src/chains/families.ts';
import { startGateway } from '../helpers/gateway.ts';
import { referencesOf, resolveRef } from '../helpers/openapi-document.ts';

const gw = await startGateway();
afterAll(() => gw.close());

// biome-ignore lint/suspicious/noExplicitAny: documents of many shapes
type Json = any;

const whole: Json = await (await fetch(`${gw.baseUrl}/openapi.json`)).json();
const names = ['general', ...servedChains()];
const sections = new Map<string, Json>();
for (const name of names) {
  const answer = await fetch(`${gw.baseUrl}/openapi/${name}.json`);
  sections.set(name, answer.status === 200 ? await answer.json() : { status: answer.status });
}

/** The components a section's paths reach, following references through components, by kind. */
function reachable(section: Json): Record<string, string[]> {
  const found = new Set<string>();
  const pending = [...referencesOf(section.paths)];
  while (pending.length > 0) {
    const ref = pending.pop()!;
    if (found.has(ref)) continue;
    found.add(ref);
    pending.push(...referencesOf(resolveRef(whole, ref)));
  }
  const schemes = new Set<string>();
  for (const item of Object.values<Json>(section.paths))
    for (const operation of Object.values<Json>(item))
      for (const requirement of operation.security ?? [])
        for (const name of Object.keys(requirement)) schemes.add(name);
  const byKind: Record<string, string[]> = {};
  for (const ref of found) {
    const [, , kind, name] = ref.split('/');
    byKind[kind!] = [...(byKind[kind!] ?? []), name!];
  }
  if (schemes.size > 0) byKind['securitySchemes'] = [...schemes];
  return byKind;
}

describe('GET /openapi/{section}.json', () => {
  it('answers one section per chain served and one for the rest, public, compressed when asked', async () => {
    for (const name of names) expect(sections.get(name)?.status, name).toBeUndefined();
    const answer = await fetch(`${gw.baseUrl}/openapi/tron.json`, { headers: { 'accept-encoding': 'br' } });
    expect(answer.headers.get('content-encoding')).toBe('br');
    expect((await fetch(`${gw.baseUrl}/openapi/nope.json`)).status).toBe(404);
  });

  it('is a standalone OpenAPI 3.1 document whose every reference resolves inside it', () => {
    for (const [name, section] of sections) {
      expect(section.openapi, name).toBe('3.1.0');
      expect(section.info.version, name).toBe(whole.info.version);
      expect(Object.keys(section.paths).length, name).toBeGreaterThan(0);
      for (const ref of referencesOf(section))
        expect(() => resolveRef(section, ref), `${name}: ${ref}`).not.toThrow();
    }
  });

  it('holds exactly the components its paths reach, as the whole document has them', () => {
    for (const [name, section] of sections) {
      const expected = reachable(section);
      const held = Object.fromEntries(
        Object.entries<Json>(section.components).map(([kind, named]) => [kind, Object.keys(named)]),
      );
      for (const kind of new Set([...Object.keys(expected), ...Object.keys(held)])) {
        expect(new Set(held[kind] ?? []), `${name}: ${kind}`).toEqual(new Set(expected[kind] ?? []));
        for (const component of held[kind] ?? [])
          expect(section.components[kind][component]).toEqual(whole.components[kind][component]);
      }
    }
  });

  it('together hold every path of /openapi.json exactly once, each in its chain', () => {
    const seen = new Map<string, string>();
    for (const [name, section] of sections) {
      for (const [path, item] of Object.entries(section.paths)) {
        expect(seen.get(path), `${path} in ${name} and ${seen.get(path)}`).toBeUndefined();
        seen.set(path, name);
        expect(item).toEqual(whole.paths[path]);
        if (name !== 'general') expect(path.startsWith(`/api/v2/${name}/`), path).toBe(true);
      }
    }
    expect([...seen.keys()].sort()).toEqual(Object.keys(whole.paths).sort());
    expect(Object.keys(sections.get('general').paths)).toEqual(
      expect.arrayContaining(['/api/account', '/api/v2/webhooks', '/healthz']),
    );
  });
});
