import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
// @fastify/static is what @fastify/swagger-ui serves /docs with; it is imported here only to reach the
// code path package.json's override changes.
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, run } from '../helpers/processes.ts';

// package.json overrides three transitive dependencies with their previous major, which supports Node 20
// (the next one only dropped it and changed to ESM). Each is exercised here through the package that
// depends on it, so an override that no longer fits its dependent fails the suite rather than a user.

describe('dependencies pinned to a Node 20 release by package.json overrides', () => {
  it('cookie: fastify.inject (light-my-request) still sends the cookies it is given', async () => {
    const app = Fastify();
    app.get('/', async (request) => ({ cookie: request.headers.cookie }));
    const response = await app.inject({ method: 'GET', url: '/', cookies: { session: 'a b', other: '1' } });
    expect(response.json()).toEqual({ cookie: 'session=a%20b; other=1' });
    await app.close();
  });

  it('content-disposition: @fastify/static still names a downloaded file', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'switchyard-static-'));
    writeFileSync(path.join(root, 'report ü.txt'), 'hello');
    const app = Fastify();
    await app.register(fastifyStatic, { root, serve: false });
    app.get('/file', (_request, reply) => reply.download('report ü.txt'));
    const response = await app.inject({ method: 'GET', url: '/file' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('hello');
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="report ?.txt"; filename*=UTF-8''report%20%C3%BC.txt`,
    );
    await app.close();
  });

  it("commander: @solana/errors' decoder command still runs", async () => {
    const result = await run(process.execPath, [
      path.join(PROJECT_ROOT, 'node_modules/@solana/errors/bin/cli.mjs'),
      'decode',
      '--',
      '5663000',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Solana error code #5663000');
  });
});
