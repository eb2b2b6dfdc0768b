import swagger from '@fastify/swagger';
import swaggerUi, { type FastifySwaggerUiConfigOptions } from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import packageJson from '../../package.json' with { type: 'json' };
import { familyOf, servedChains } from '../chains/families.ts';
import { sectionNames, sectionTitle, splitIntoSections } from './openapi-sections.ts';
import { shareRepeatedParts } from './openapi-shared-parts.ts';
import { documentBodyStatuses } from './route-schema.ts';

/** The Chaingateway API version whose requests and answers this gateway reproduces. */
export const CHAINGATEWAY_VERSION = '2.1';

/** The document's description; worked out when the document is built, as the chains served are. */
export const apiDescription =
  () => `Switchyard is a self-hosted multi-chain blockchain gateway. Its REST API is compatible with
**Chaingateway ${CHAINGATEWAY_VERSION}**; this document describes Switchyard ${packageJson.version}.

Chains served by this gateway: ${servedChains()
    .map((chain) => `\`${chain}\``)
    .join(', ')}. Any other chain in a path
answers 404 \`Unsupported blockchain\`.

- Every \`/api/v2/...\` path also answers under \`/v2/...\`.
- Authenticate with \`Authorization: Bearer <token>\` (the bare token is accepted too). The dashboard
  (\`/dashboard\`) calls the same routes with its session cookie instead, and sends the session's CSRF token
  in \`X-CSRF-Token\` with every change.
- \`X-Network: testnet | mainnet\` (any case, default mainnet) selects the network; any other value answers 422.
- Bodies may be JSON, form-urlencoded or multipart/form-data.
- Amounts are decimal strings or numbers in the asset's units; numbers keep their exact written digits.
- An \`Idempotency-Key\` header on a POST that sends, broadcasts or creates makes a retry safe: the same key
  with the same request answers the first answer again (\`Idempotent-Replayed: true\`) and never sends twice;
  with another request, 422. Keys are per user and kept 24 h by default.

When the plan has a rate limit, every authenticated answer carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and
\`RateLimit-Reset\` (seconds); past it, 429 \`Too many requests: …\` with \`Retry-After\`. Each API token has its own
budget; the dashboard's sessions share one per user.

Every answer is an envelope: \`{status, ok: true, message, data}\` on success, \`{status, ok: false, message,
errors: [{field, message}]}\` on failure, with \`status\` equal to the HTTP status.

| status | when |
|---|---|
| 400 | a body that does not parse |
| 401 | missing or unknown token (\`Unauthenticated.\`), or a wrong wallet password (a Tron send or staking call answers that 422 \`Validate signature error: …\`, as Chaingateway documents) |
| 402 | the account's plan has lapsed |
| 403 | a session's change without its CSRF token, a route only a session may call, or sign-up is closed |
| 404 | unknown path, unknown chain (\`Unsupported blockchain\`), or the named thing does not exist |
| 405 | known path, other method (\`Allow\` lists the methods) |
| 409 | a request with the same \`Idempotency-Key\` is still running (\`Retry-After\`), or its outcome is unknown after a restart |
| 411 | a body without a length |
| 413 | body over the size limit |
| 415 | a body that is not JSON, form-urlencoded or multipart; on sign-in and sign-up, one that is not JSON |
| 422 | \`Data validation failed\`, one item per field in \`errors\`; a full quota; or a refusal by the chain |
| 429 | over the plan's rate limit for this token, request quota exhausted, too many wrong passwords, too many sign-ins or sign-ups from one address, or too many key operations waiting (\`Retry-After\`) |
| 502, 503 | the chain's node refused the request, or none is reachable |`;

/** `info.version` is this package's; the compatible Chaingateway version is an extension of its own. */
const documentInfo = () => ({
  title: 'Switchyard API',
  version: packageJson.version,
  description: apiDescription(),
  'x-chaingateway-version': CHAINGATEWAY_VERSION,
});

/** Where Swagger UI serves the reference; its files come from the installed package, never a CDN. */
export const DOCS_PREFIX = '/docs';

/** Where Swagger UI reads the document it shows. */
const DOCS_DOCUMENT = `${DOCS_PREFIX}/json`;

/** Where each section of the document is served: `/openapi/tron.json`, `/openapi/general.json`... */
export const sectionUrl = (name: string) => `/openapi/${name}.json`;

/**
 * The document as served: @fastify/swagger's (`app.swagger()`, every schema inline as the routes declare
 * it) with its repeated parts as components, serialized once; and its sections, split from it once when
 * the first is asked for. Neither can change once the routes are registered, so one Buffer answers every
 * request (and its compressed forms are kept with it).
 */
function servedDocuments(app: FastifyInstance): { whole: () => Buffer; section: (name: string) => Buffer } {
  let shared: ReturnType<typeof shareRepeatedParts> | undefined;
  let body: Buffer | undefined;
  let sections: Map<string, Buffer> | undefined;
  const sharedDocument = () =>
    (shared ??= shareRepeatedParts(app.swagger(), { familyOf: (chain) => familyOf(chain)?.name }));
  return {
    whole: () => (body ??= Buffer.from(JSON.stringify(sharedDocument()))),
    section: (name) => {
      sections ??= new Map(
        splitIntoSections(sharedDocument(), servedChains()).map((part) => [
          part.name,
          Buffer.from(JSON.stringify(part.document)),
        ]),
      );
      const section = sections.get(name);
      if (section === undefined) throw new Error(`no section ${name} in the OpenAPI document`);
      return section;
    },
  };
}

/** Swagger UI's settings; `urls.primaryName` (the section shown first) is a flat key its types omit. */
function docsPageConfig(sections: string[]): FastifySwaggerUiConfigOptions & { 'urls.primaryName': string } {
  return {
    // The top bar holds the section selector (a select, no box for other documents' URLs); its Swagger
    // logo is hidden by the theme's style.
    layout: 'StandaloneLayout',
    urls: sections.map((name) => ({ url: sectionUrl(name), name: sectionTitle(name) })),
    'urls.primaryName': sectionTitle(sections[0]!),
    // Tags and operations start collapsed; each opens on its own and has a link of its own (within the
    // section shown; `?urls.primaryName=Tron` opens another).
    docExpansion: 'none',
    deepLinking: true,
    filter: true,
    displayRequestDuration: true,
    defaultModelsExpandDepth: -1,
    tryItOutEnabled: false,
  };
}

/**
 * OpenAPI 3.1 built from the route schemas, served as JSON at `/openapi.json` and as a navigable
 * reference (Swagger UI) at `/docs`, which reads it in sections (`/openapi/{section}.json`). All are public.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => documentBodyStatuses(route.method, route.schema));
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: documentInfo(),
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'API token (`swy_...`)' },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'swy_session',
            description: 'A dashboard sign-in (`POST /api/session`); changes also need `X-CSRF-Token`',
          },
        },
      },
    },
  });

  const documents = servedDocuments(app);
  const sendJson = (reply: FastifyReply, body: Buffer) =>
    reply.type('application/json; charset=utf-8').send(body);
  const sendDocument = (reply: FastifyReply) => sendJson(reply, documents.whole());
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async (_request, reply) =>
    sendDocument(reply),
  );
  // The reference loads one section at a time: Swagger UI takes seconds to read the whole document.
  const sections = sectionNames(servedChains());
  for (const name of sections) {
    app.get(sectionUrl(name), { schema: { hide: true }, config: { public: true } }, async (_request, reply) =>
      sendJson(reply, documents.section(name)),
    );
  }

  await app.register(async (docs) => {
    // The reference's pages and files need no token, like the document they show.
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true };
    });
    await docs.register(swaggerUi, {
      routePrefix: DOCS_PREFIX,
      theme: {
        title: 'Switchyard API reference',
        css: [
          { filename: 'switchyard.css', content: '.swagger-ui .topbar-wrapper > a.link { display: none; }' },
        ],
      },
      uiConfig: docsPageConfig(sections),
      // No badge fetched from validator.swagger.io: the page must work with no network.
      validatorUrl: false,
      // `/docs/json` (the page reads sections, not it) answers the same compact document as /openapi.json,
      // not the plugin's inline copy.
      uiHooks: {
        onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
          if (request.routeOptions.url === DOCS_DOCUMENT) return sendDocument(reply);
        },
      },
    });
  });
}
