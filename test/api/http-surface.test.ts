import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedChains } from '../../src/chains/families.ts';
import { sendOk } from '../../src/http/envelope.ts';
import { startMetricsServer } from '../../src/http/metrics-server.ts';
import { routeSchema } from '../../src/http/route-schema.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { dereferenced } from '../helpers/openapi-document.ts';

/**
 * A route that echoes its validated body, to exercise the body parsers and validation through real HTTP
 * the same way every chain route will use them.
 */
async function echoRoute(app: FastifyInstance) {
  app.post(
    '/api/v2/testkit/echo',
    {
      schema: routeSchema({
        summary: 'echo',
        tags: ['test'],
        body: Type.Object({
          to: Type.String({ minLength: 3 }),
          amount: Type.Union([Type.String(), Type.Number()]),
          count: Type.Optional(Type.Integer({ minimum: 1 })),
          flag: Type.Optional(Type.Boolean()),
        }),
        data: Type.Object({
          to: Type.String(),
          amount: Type.Union([Type.String(), Type.Number()]),
          amountType: Type.String(),
          count: Type.Optional(Type.Integer()),
          flag: Type.Optional(Type.Boolean()),
          network: Type.String(),
        }),
      }),
    },
    async (request, reply) => {
      const body = request.body as { to: string; amount: string | number; count?: number; flag?: boolean };
      return sendOk(reply, { ...body, amountType: typeof body.amount, network: request.network }, 'Echoed');
    },
  );
}

let gw: TestGateway;
let token: string;

beforeAll(async () => {
  gw = await startGateway({ routes: [echoRoute], env: { BODY_LIMIT_BYTES: '2048' } });
  ({ token } = await gw.userToken());
});
afterAll(() => gw?.close());

describe('envelope and routing', () => {
  it('answers success in the envelope with status equal to the HTTP status', async () => {
    const res = await gw.request('GET', '/api/account', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 200, ok: true, message: 'Account info fetched' });
    expect(res.body.data).toBeTypeOf('object');
  });

  it('answers unknown paths with 404 in the envelope', async () => {
    const res = await gw.request('GET', '/api/nothing-here', { token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, ok: false, message: 'Not found', errors: [] });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await gw.request('DELETE', '/api/account', { token });
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ status: 405, ok: false });
    expect(res.headers.get('allow')).toContain('GET');
  });

  it('answers an unsupported blockchain with 404 under both prefixes', async () => {
    for (const prefix of ['/api/v2', '/v2']) {
      const res = await gw.request('GET', `${prefix}/dogecoin/blocks/number`, { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: 404, ok: false, message: 'Unsupported blockchain', errors: [] });
    }
  });

  it('documents only the chains it serves; the others answer 404 wherever a chain is named', async () => {
    const spec = dereferenced((await gw.request('GET', '/openapi.json')).body);
    const chainParam = spec.paths['/api/v2/{chain}/webhooks'].get.parameters.find(
      (p: { name: string }) => p.name === 'chain',
    );
    expect(chainParam.schema.enum).toEqual(servedChains());
    const document = JSON.stringify(spec).toLowerCase();
    // Chains no family of this gateway serves.
    const unserved = ['dogecoin', 'litecoin'];
    for (const chain of unserved) {
      expect(document, chain).not.toContain(chain);
      const inPath = await gw.request('GET', `/api/v2/${chain}/webhooks`, { token });
      expect(inPath.body, chain).toEqual({
        status: 404,
        ok: false,
        message: 'Unsupported blockchain',
        errors: [],
      });
      const inBody = await gw.request('POST', '/api/v2/webhooks', {
        token,
        json: { url: 'https://93.184.216.34/hook', to: 'x', blockchain: chain.toUpperCase() },
      });
      expect(inBody.body, chain).toEqual({
        status: 404,
        ok: false,
        message: 'Unsupported blockchain',
        errors: [],
      });
    }
    const address = (await gw.request('POST', '/api/v2/tron/addresses', { token, json: {} })).body.data[0]
      .address;
    const anyCase = await gw.request('POST', '/api/v2/webhooks', {
      token,
      json: { url: 'https://93.184.216.34/hook', to: address, blockchain: 'Tron' },
    });
    expect(anyCase.status, anyCase.text).toBe(201);
  });

  it('serves every /api/v2 route under /v2 too', async () => {
    for (const prefix of ['/api/v2', '/v2']) {
      const res = await gw.request('POST', `${prefix}/testkit/echo`, {
        token,
        json: { to: 'abc', amount: '1' },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.to).toBe('abc');
    }
  });

  it('echoes a request id of its own shape, or makes one', async () => {
    const id = '3f2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d';
    const mine = await gw.request('GET', '/healthz', { headers: { 'x-request-id': id } });
    expect(mine.headers.get('x-request-id')).toBe(id);
    const made = await gw.request('GET', '/healthz');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never echoes or logs an id of another shape, a token pasted in by mistake above all', async () => {
    const { token } = await gw.userToken();
    const before = gw.logLines.length;
    for (const sent of [token, 'abc-123', 'a'.repeat(64), `${'3f2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d'}x`]) {
      const res = await gw.request('GET', '/healthz', { headers: { 'x-request-id': sent } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
      expect(res.headers.get('x-request-id')).not.toBe(sent);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gw.logLines.slice(before).join('\n')).not.toContain(token);
    expect(gw.logLines.slice(before).join('\n')).not.toContain('abc-123');
  });
});

describe('request bodies', () => {
  it('accepts JSON, urlencoded and multipart bodies alike', async () => {
    const json = await gw.request('POST', '/api/v2/testkit/echo', {
      token,
      json: { to: 'TXYZ', amount: '1.5', count: 2, flag: true },
    });
    const form = await gw.request('POST', '/api/v2/testkit/echo', {
      token,
      form: { to: 'TXYZ', amount: '1.5', count: '2', flag: 'true' },
    });
    const multipart = await gw.request('POST', '/api/v2/testkit/echo', {
      token,
      multipart: { to: 'TXYZ', amount: '1.5', count: '2', flag: 'true' },
    });
    for (const res of [json, form, multipart]) {
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ to: 'TXYZ', amount: '1.5', count: 2, flag: true });
    }
  });

  it('keeps the exact text of JSON numbers a double would round', async () => {
    const exact = await gw.request('POST', '/api/v2/testkit/echo', {
      token,
      raw: '{"to":"abc","amount":1.0000000000000000001}',
      headers: { 'content-type': 'application/json' },
    });
    expect(exact.body.data).toMatchObject({ amount: '1.0000000000000000001', amountType: 'string' });
    const plain = await gw.request('POST', '/api/v2/testkit/echo', {
      token,
      raw: '{"to":"abc","amount":0.5}',
      headers: { 'content-type': 'application/json' },
    });
    // A number a double holds exactly reaches the route as that number; the amount parser reads its text.
    expect(plain.body.data).toMatchObject({ amount: 0.5, amountType: 'number' });
  });

  it('answers malformed JSON with 400', async () => {
    for (const raw of ['{bad', '{"to": "abc",}', '[1, 2', '"unterminated', '{"__proto__": {"x": 1}}']) {
      const res = await gw.request('POST', '/api/v2/testkit/echo', {
        token,
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, raw).toBe(400);
      expect(res.body).toMatchObject({ status: 400, ok: false, errors: [] });
    }
  });

  it('answers a body over the limit with 413', async () => {
    const res = await gw.request('POST', '/api/v2/testkit/echo', {
      token,
      json: { to: 'x'.repeat(5000), amount: '1' },
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ status: 413, ok: false });
  });

  it('answers an unsupported content type with 415', async () => {
    const res = await gw.request('POST', '/api/v2/testkit/echo', {
      token,
      raw: 'to=abc',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body.ok).toBe(false);
  });

  it('answers validation failures with 422 and one error per field', async () => {
    const res = await gw.request('POST', '/api/v2/testkit/echo', { token, json: { to: 'a', count: 0 } });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Data validation failed');
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['amount', 'count', 'to']);
    for (const error of res.body.errors) expect(error.message).toMatch(/\S/);
  });

  it('answers a missing body with 422 naming each required field, not 500', async () => {
    const res = await gw.request('POST', '/api/v2/testkit/echo', { token });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['amount', 'to']);
  });

  it('takes no body at all as {} where every field is optional: an empty POST creates an unsecure address', async () => {
    // `curl -X POST $API/addresses -H "$AUTH"`: no body, no content type; one chain per family.
    for (const chain of ['tron', 'ethereum', 'solana', 'bitcoin']) {
      const res = await gw.request('POST', `/api/v2/${chain}/addresses`, { token });
      expect(res.status, `${chain}: ${res.text}`).toBe(201);
      const [created] = res.body.data;
      expect(created.address, chain).toEqual(expect.any(String));
      expect(JSON.stringify(created), chain).toMatch(/private/i);
    }
  });
});

describe('X-Network', () => {
  it('defaults to mainnet and accepts any case', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'mainnet'],
      [{ 'x-network': 'TESTNET' }, 'testnet'],
      [{ 'x-network': 'Mainnet' }, 'mainnet'],
    ];
    for (const [headers, network] of cases) {
      const res = await gw.request('POST', '/api/v2/testkit/echo', {
        token,
        headers,
        json: { to: 'abc', amount: 1 },
      });
      expect(res.body.data.network).toBe(network);
    }
  });

  it('answers any other value with 422 on every authenticated route', async () => {
    for (const [method, url] of [
      ['GET', '/api/account'],
      ['POST', '/v2/testkit/echo'],
    ] as const) {
      const res = await gw.request(method, url, { token, headers: { 'x-network': 'devnet' } });
      expect(res.status, url).toBe(422);
      expect(res.body.errors).toEqual([{ field: 'X-Network', message: expect.any(String) }]);
    }
  });

  it('is not read by public routes, which document neither it nor a 422', async () => {
    const spec = dereferenced((await gw.request('GET', '/openapi.json')).body);
    for (const url of ['/healthz', '/readyz']) {
      expect((await gw.request('GET', url, { headers: { 'x-network': 'devnet' } })).status, url).toBe(200);
      expect(spec.paths[url].get.parameters, url).toBeUndefined();
      expect(spec.paths[url].get.responses, url).not.toHaveProperty('422');
    }
  });
});

describe('operations routes', () => {
  it('serves health and readiness without a token, and metrics on their own loopback listener', async () => {
    expect((await gw.request('GET', '/healthz')).body.data).toEqual({ healthy: true });
    expect((await gw.request('GET', '/readyz')).status).toBe(200);
    expect((await gw.request('GET', '/metrics')).status).toBe(404);
    const server = await startMetricsServer(gw.ctx.metrics, '127.0.0.1', 0);
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const metrics = await fetch(server.url);
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      expect(text).toContain('switchyard_http_request_duration_seconds');
      expect(text).toContain('process_cpu_user_seconds_total');
      expect((await fetch(server.url.replace('/metrics', '/other'))).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('describes the API in OpenAPI 3.1 and a reference page', async () => {
    const spec = await gw.request('GET', '/openapi.json');
    expect(spec.status).toBe(200);
    expect(spec.body.openapi).toBe('3.1.0');
    expect(Object.keys(spec.body.paths)).toContain('/api/account');
    expect(spec.body.paths['/api/account'].get.responses).toHaveProperty('401');
    expect(spec.body.components.securitySchemes.bearerAuth.scheme).toBe('bearer');
    const docs = await gw.request('GET', '/docs');
    expect(docs.headers.get('content-type')).toContain('text/html');
    expect(docs.text).toContain('swagger-ui-bundle.js');
  });
});
