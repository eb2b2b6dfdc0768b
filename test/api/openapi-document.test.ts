/**
 * `/openapi.json` names its repeated parts once (`components`) and refers to them (`$ref`): a fraction of
 * the document @fastify/swagger builds with every schema inline, every reference resolving, and, resolved,
 * exactly that inline document: no path, parameter, answer, example or description lost.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startGateway } from '../helpers/gateway.ts';
import { dereferenced, referencesOf, resolveRef } from '../helpers/openapi-document.ts';

const gw = await startGateway();
afterAll(() => gw.close());

const served = await fetch(`${gw.baseUrl}/openapi.json`, { headers: { 'accept-encoding': 'identity' } });
const servedText = await served.text();
const document = JSON.parse(servedText);
/** The document as the routes declare it, every schema inline (what was served before). */
const inline = JSON.parse(JSON.stringify(gw.app.swagger()));

describe('GET /openapi.json', () => {
  it('is at least five times smaller than the inline document', () => {
    const inlineBytes = Buffer.byteLength(JSON.stringify(inline));
    const servedBytes = Buffer.byteLength(servedText);
    expect(servedBytes * 5, `${servedBytes} bytes served for ${inlineBytes} inline`).toBeLessThanOrEqual(
      inlineBytes,
    );
  });

  it('is OpenAPI 3.1 whose every reference resolves to a component with a valid name', () => {
    expect(document.openapi).toBe('3.1.0');
    const references = [...referencesOf(document)];
    expect(references.length).toBeGreaterThan(100);
    for (const ref of references) {
      expect(ref).toMatch(/^#\/components\/(schemas|responses|parameters)\/[A-Za-z0-9._-]+$/);
      expect(() => resolveRef(document, ref), ref).not.toThrow();
    }
    for (const kind of ['schemas', 'responses', 'parameters']) {
      expect(Object.keys(document.components[kind]).length, kind).toBeGreaterThan(0);
    }
    // Every component is used: nothing is named that nothing refers to.
    for (const [kind, named] of Object.entries(document.components)) {
      if (kind === 'securitySchemes') continue;
      for (const name of Object.keys(named as object)) {
        expect(references, `${kind}/${name}`).toContain(`#/components/${kind}/${name}`);
      }
    }
  });

  it('names shared parts after what they are, not by a hash', () => {
    const names = ['schemas', 'responses', 'parameters'].flatMap((kind) =>
      Object.keys(document.components[kind]),
    );
    expect(names).toEqual(
      expect.arrayContaining(['Error401', 'Error422', 'XNetworkHeader', 'TronAddressPath', 'EvmFrom']),
    );
    for (const name of names) expect(name).toMatch(/^[A-Z][A-Za-z0-9]*(_[A-Za-z0-9]+)?$/);
  });

  it('resolved, is the inline document: every path, parameter, answer, example and description', () => {
    const resolved = dereferenced(document);
    expect(Object.keys(resolved.paths)).toEqual(Object.keys(inline.paths));
    for (const [path, item] of Object.entries(inline.paths)) {
      for (const [method, operation] of Object.entries(item as Record<string, object>)) {
        expect(resolved.paths[path][method], `${method} ${path}`).toEqual(operation);
      }
    }
    const { components, ...rest } = resolved;
    const { components: inlineComponents, ...inlineRest } = inline;
    expect(rest).toEqual({ ...inlineRest, paths: rest.paths });
    expect(components.securitySchemes).toEqual(inlineComponents.securitySchemes);
  });

  it('is what /docs shows', async () => {
    const shown = await fetch(`${gw.baseUrl}/docs/json`, { headers: { 'accept-encoding': 'identity' } });
    expect(await shown.text()).toBe(servedText);
  });
});
