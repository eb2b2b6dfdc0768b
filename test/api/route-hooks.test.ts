// A hook only some routes need is added to those routes alone (src/http/route-hooks.ts): a public route
// runs no authentication, a GET no body or Idempotency-Key hook. Read from Fastify's own route listing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw?.close());

/** The hook names Fastify lists under `path` for `method` (anonymous hooks are listed as such). */
function hooksOf(method: string, path: string): string {
  const listing = gw.app.printRoutes({ includeHooks: true, commonPrefix: false, method });
  const lines = listing.split('\n');
  const start = lines.findIndex((line) => line.endsWith(`── ${path} (${method})`));
  expect(start, `${method} ${path} listed`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((line, i) => i > start && /── \//.test(line));
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n');
}

const BODY_AND_KEY_HOOKS = [
  'emptyBodyIsObject',
  'boundMultipartLength',
  'markBodyParsed',
  'checkIdempotencyKeyForm',
  'claimIdempotencyKey',
  'stopRenewal',
];

describe('per-route hooks', () => {
  it('a public route runs no authentication and no body or key hook', () => {
    const hooks = hooksOf('GET', '/healthz');
    for (const name of ['identify', ...BODY_AND_KEY_HOOKS]) expect(hooks).not.toContain(name);
  });

  it('an authenticated GET authenticates, and runs no body or key hook', () => {
    const hooks = hooksOf('GET', '/api/account');
    expect(hooks).toContain('identify');
    // It reads no text from the request: no path parameter, query or body to hold a NUL.
    for (const name of [...BODY_AND_KEY_HOOKS, 'refuseNul']) expect(hooks).not.toContain(name);
  });

  it('an authenticated POST that creates something runs every one of them', () => {
    const hooks = hooksOf('POST', '/api/v2/webhooks');
    for (const name of ['identify', 'refuseNul', ...BODY_AND_KEY_HOOKS]) expect(hooks).toContain(name);
  });
});
