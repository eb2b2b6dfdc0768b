/**
 * Answers are compressed when the client asks (`Accept-Encoding`) and they are large enough for it to
 * pay: the OpenAPI document, the reference's and the dashboard's files, the API's larger JSON. Small
 * answers and clients that do not ask get the bytes as they are.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { acceptedEncoding, MIN_COMPRESSED_BYTES, registerCompression } from '../../src/http/compression.ts';
import { dashboardRoutes } from '../../src/http/routes/dashboard.ts';
import { startGateway, UNLIMITED_PLAN_ENV } from '../helpers/gateway.ts';

const gw = await startGateway({ env: UNLIMITED_PLAN_ENV });
afterAll(() => gw.close());
const { token } = await gw.userToken(undefined, 'unlimited');

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as sent, before any decoding. */
  bytes: Buffer;
}

/** A request whose answer is read as the bytes on the wire (fetch would decode them). */
function rawRequest(
  url: string,
  { method = 'GET', headers = {} }: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          bytes: Buffer.concat(chunks),
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

const decoded = (answer: RawAnswer): Buffer =>
  answer.headers['content-encoding'] === 'gzip'
    ? gunzipSync(answer.bytes)
    : answer.headers['content-encoding'] === 'br'
      ? brotliDecompressSync(answer.bytes)
      : answer.bytes;

const documentUrl = `${gw.baseUrl}/openapi.json`;
const plain = await rawRequest(documentUrl);

describe('the OpenAPI document', () => {
  it('is sent as it is without Accept-Encoding, or with identity', async () => {
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toContain('Accept-Encoding');
    const identity = await rawRequest(documentUrl, { headers: { 'accept-encoding': 'identity' } });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.bytes.equals(plain.bytes)).toBe(true);
    JSON.parse(plain.bytes.toString());
  });

  it.each(['gzip', 'br'])(
    'is sent %s-compressed to a client that asks, the same JSON decoded',
    async (encoding) => {
      const answer = await rawRequest(documentUrl, { headers: { 'accept-encoding': encoding } });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBe(encoding);
      expect(answer.headers.vary).toContain('Accept-Encoding');
      expect(answer.headers['content-type']).toContain('application/json');
      expect(Number(answer.headers['content-length'])).toBe(answer.bytes.byteLength);
      expect(answer.bytes.byteLength * 5).toBeLessThan(plain.bytes.byteLength);
      expect(decoded(answer).equals(plain.bytes)).toBe(true);
    },
  );

  it('prefers what the client weighs more, and answers HEAD with the headers of GET', async () => {
    const browser = { 'accept-encoding': 'gzip, deflate, br;q=0.5' };
    const answer = await rawRequest(documentUrl, { headers: browser });
    expect(answer.headers['content-encoding']).toBe('gzip');
    const head = await rawRequest(documentUrl, { method: 'HEAD', headers: browser });
    expect(head.status).toBe(200);
    expect(head.bytes.byteLength).toBe(0);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.headers['content-length']).toBe(String(answer.bytes.byteLength));
  });
});

describe('the API', () => {
  it('compresses a JSON answer over 1 KiB, keeping its status and envelope', async () => {
    for (let i = 0; i < 8; i++) {
      const created = await gw.request('POST', '/api/v2/tron/addresses', {
        token,
        json: { password: 'compression password' },
      });
      expect(created.status).toBe(201);
    }
    const headers = { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' };
    const list = await rawRequest(`${gw.baseUrl}/api/v2/tron/addresses`, { headers });
    expect(list.status).toBe(200);
    expect(list.headers['content-encoding']).toBe('gzip');
    const body = JSON.parse(decoded(list).toString());
    expect(body).toMatchObject({ status: 200, ok: true });
    expect(body.data.length).toBeGreaterThanOrEqual(8);
    expect(decoded(list).byteLength).toBeGreaterThan(MIN_COMPRESSED_BYTES);
  });

  it('sends small answers as they are, whatever the client accepts', async () => {
    for (const url of ['/healthz', '/api/account', '/api/v2/tron/addresses/nope/balance']) {
      const answer = await rawRequest(`${gw.baseUrl}${url}`, {
        headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip, br' },
      });
      expect(answer.bytes.byteLength, url).toBeLessThan(MIN_COMPRESSED_BYTES);
      expect(answer.headers['content-encoding'], url).toBeUndefined();
      JSON.parse(answer.bytes.toString());
    }
  });
});

describe('the reference’s files', () => {
  it('are compressed as streamed, and the same bytes again from the copy kept', async () => {
    const url = `${gw.baseUrl}/docs/static/swagger-ui-bundle.js`;
    const require = createRequire(import.meta.url);
    const file = readFileSync(
      path.join(
        path.dirname(require.resolve('@fastify/swagger-ui/package.json')),
        'static/swagger-ui-bundle.js',
      ),
    );
    const first = await rawRequest(url, { headers: { 'accept-encoding': 'gzip' } });
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(decoded(first).equals(file)).toBe(true);
    const again = await rawRequest(url, { headers: { 'accept-encoding': 'gzip' } });
    expect(again.headers['content-encoding']).toBe('gzip');
    expect(decoded(again).equals(file)).toBe(true);
    expect(Number(again.headers['content-length'])).toBe(again.bytes.byteLength);
    const plainFile = await rawRequest(url);
    expect(plainFile.headers['content-encoding']).toBeUndefined();
    expect(plainFile.bytes.equals(file)).toBe(true);
  });
});

describe('the dashboard’s files', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-compression-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are compressed when large, as they are when small', async () => {
    mkdirSync(path.join(dir, 'assets'));
    const script = `export const words = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `word ${i}`))};\n`;
    writeFileSync(path.join(dir, 'assets', 'index-abc.js'), script);
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>x</title>');
    const app = Fastify();
    registerCompression(app);
    await app.register(dashboardRoutes, { dir });
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const asset = await rawRequest(`${base}/dashboard/assets/index-abc.js`, {
        headers: { 'accept-encoding': 'br' },
      });
      expect(asset.headers['content-encoding']).toBe('br');
      expect(asset.headers['content-type']).toContain('javascript');
      expect(decoded(asset).toString()).toBe(script);
      const page = await rawRequest(`${base}/dashboard`, { headers: { 'accept-encoding': 'br' } });
      expect(page.headers['content-encoding']).toBeUndefined();
      expect(page.bytes.toString()).toContain('<title>x</title>');
    } finally {
      await app.close();
    }
  });
});

describe('Accept-Encoding', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['identity', null],
    ['gzip', 'gzip'],
    ['GZIP;q=1', 'gzip'],
    ['gzip, br', 'br'],
    ['br;q=0.2, gzip;q=0.8', 'gzip'],
    ['br;q=0, gzip;q=0', null],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['deflate', null],
  ])('%j answers %s', (header, expected) => {
    expect(acceptedEncoding(header)).toBe(expected);
  });
});
