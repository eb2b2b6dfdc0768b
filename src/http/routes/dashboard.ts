import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../errors.ts';

export const DASHBOARD_PATH = '/dashboard';
export const NOT_BUILT = 'The dashboard is not built: run `npm run build`';

/**
 * Where Vite writes the dashboard: `<project>/dist/dashboard` (dashboard/vite.config.ts). Three folders up
 * from this module is the project when it runs from src/ (tsx), and dist/ when it runs compiled.
 */
function buildDir(): string {
  const up = fileURLToPath(new URL('../../..', import.meta.url));
  return import.meta.url.endsWith('.js') ? path.join(up, 'dashboard') : path.join(up, 'dist', 'dashboard');
}

export const DASHBOARD_BUILD_DIR = buildDir();

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The page runs only its own files: no inline script or style, no other origin, never in a frame. Its
 * API calls go to this same origin.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

interface Asset {
  body: Buffer;
  type: string;
}

/** Every built file, read once at start: the dashboard is a few hundred KiB and never changes while running. */
function readAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(dir)) return assets;
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const type = TYPES[path.extname(entry)];
    const file = path.join(dir, entry);
    if (type !== undefined) assets.set(entry.split(path.sep).join('/'), { body: readFileSync(file), type });
  }
  return assets;
}

/**
 * The account dashboard at /dashboard: Vite's static build. A path naming a built file answers it (hashed
 * assets are cached for a year); any other path under /dashboard answers index.html, where the page's own
 * router takes over.
 */
export const dashboardRoutes: FastifyPluginAsyncTypebox<{ dir?: string }> = async (app, options) => {
  const assets = readAssets(options.dir ?? DASHBOARD_BUILD_DIR);
  const send = (reply: FastifyReply, asset: Asset, cache: string) =>
    reply
      .headers({ ...SECURITY_HEADERS, 'content-type': asset.type, 'cache-control': cache })
      .send(asset.body);

  const page = async (_request: unknown, reply: FastifyReply) => {
    const index = assets.get('index.html');
    if (index === undefined) throw new ApiError(404, NOT_BUILT);
    return send(reply, index, 'no-cache');
  };
  const route = { schema: { hide: true }, config: { public: true } };
  app.get(DASHBOARD_PATH, route, page);
  const file = { ...route, schema: { ...route.schema, params: Type.Object({ '*': Type.String() }) } };
  app.get(`${DASHBOARD_PATH}/*`, file, async (request, reply) => {
    const name = request.params['*'];
    const asset = assets.get(name);
    if (asset !== undefined && name !== 'index.html') {
      return send(
        reply,
        asset,
        name.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    }
    // A missing file is a 404, not the page: a stale hashed name must not load HTML as script.
    if (name.startsWith('assets/') || path.extname(name) !== '') throw new ApiError(404, 'No such file');
    return page(request, reply);
  });
};
