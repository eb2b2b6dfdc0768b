import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { renderDocsPage } from './docs-page.ts';

export const API_DESCRIPTION = [
  'Switchyard is a self-hosted multi-chain blockchain gateway whose REST API is compatible with Chaingateway v2.',
  '',
  'Every `/api/v2/...` path also answers under `/v2/...`. Authenticate with `Authorization: Bearer <token>`',
  '(the bare token is accepted too). `X-Network: testnet | mainnet` (any case, default mainnet) selects the',
  'network; any other value answers 422. Bodies may be JSON, form-urlencoded or multipart/form-data.',
  '',
  'Every answer is an envelope: `{status, ok: true, message, data}` on success, `{status, ok: false, message,',
  'errors: [{field, message}]}` on failure. Validation failures answer 422 `Data validation failed`; unknown',
  'paths 404; a wrong method 405; a body over the limit 413; an unknown blockchain 404 `Unsupported blockchain`;',
  'a missing or unknown token 401 `Unauthenticated.`; an exhausted request quota 429 with `Retry-After`.',
  "Amounts are decimal strings or numbers in the asset's units; numbers keep their exact written digits.",
].join('\n');

/** OpenAPI 3.1 built from the route schemas, served as JSON and as a readable page. */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Switchyard API', version, description: API_DESCRIPTION },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'API token (swy_...)' },
        },
      },
    },
  });

  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());

  let page: string | undefined;
  app.get('/docs', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    page ??= renderDocsPage(app.swagger() as unknown as Parameters<typeof renderDocsPage>[0]);
    return reply.type('text/html; charset=utf-8').send(page);
  });
}
