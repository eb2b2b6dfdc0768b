import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { tokenPrefix } from '../../accounts/tokens.ts';
import type { AppContext } from '../../app-context.ts';
import { ApiError } from '../../errors.ts';
import { sendOk } from '../envelope.ts';
import { routeSchema } from '../route-schema.ts';

const tags = ['account'];
const ONLY_SESSION =
  'Only a dashboard session may call it (403 with a token): a leaked token cannot mint or revoke tokens.';
const TokenInfo = Type.Object({
  id: Type.String({ description: 'The public id, the part after `swy_` in the prefix' }),
  prefix: Type.String({ description: '`swy_<id>`: how the token starts, to recognise it' }),
  name: Type.String(),
  created_at: Type.String(),
  last_used_at: Type.Union([Type.String(), Type.Null()], { description: 'Updated at most once a minute' }),
});

/** The caller's API tokens, managed from the dashboard (the admin CLI does the same for any user). */
export const apiTokenRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const config = { sessionOnly: true, whileLapsed: true };

  app.get(
    '/api/account/tokens',
    {
      config,
      schema: routeSchema({
        summary: 'Your live API tokens (never their secrets)',
        description: ONLY_SESSION,
        tags,
        data: Type.Array(TokenInfo),
        whileLapsed: true,
        sessionOnly: true,
      }),
    },
    async (request, reply) => {
      const tokens = await ctx.users.listTokens(request.userId);
      const live = tokens
        .filter((t) => t.revokedAt === null)
        .map((t) => ({
          id: t.id,
          prefix: t.prefix,
          name: t.name,
          created_at: t.createdAt,
          last_used_at: t.lastUsedAt,
        }));
      return sendOk(reply, live, 'Tokens fetched');
    },
  );

  app.post(
    '/api/account/tokens',
    {
      config,
      schema: routeSchema({
        summary: 'A new API token, shown this once',
        description: `Only its SHA-256 is stored: the token in this answer cannot be shown again. ${ONLY_SESSION}`,
        tags,
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' }) }),
        data: Type.Intersect([TokenInfo, Type.Object({ token: Type.String({ description: 'swy_...' }) })]),
        status: 201,
        whileLapsed: true,
        sessionOnly: true,
      }),
    },
    async (request, reply) => {
      const name = request.body.name.trim();
      const { id, token, createdAt } = await ctx.users.createToken(request.userId, name);
      const created = { id, prefix: tokenPrefix(id), name, created_at: createdAt, last_used_at: null, token };
      return sendOk(reply, created, 'Token created', 201);
    },
  );

  app.delete(
    '/api/account/tokens/:id',
    {
      config,
      schema: routeSchema({
        summary: 'Revoke one of your tokens: it answers 401 from now on',
        description: ONLY_SESSION,
        tags,
        params: Type.Object({ id: Type.String({ pattern: '^(swy_)?[0-9a-f]{12}$' }) }),
        data: Type.Array(Type.Never()),
        whileLapsed: true,
        sessionOnly: true,
        errors: [404],
      }),
    },
    async (request, reply) => {
      if (!(await ctx.users.revokeToken(request.params.id, request.userId)))
        throw new ApiError(404, 'No live token with this id');
      return sendOk(reply, [], 'Token revoked');
    },
  );
};
