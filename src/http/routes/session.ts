import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../accounts/password-hash.ts';
import { type SignIn, WRONG_SIGN_IN } from '../../accounts/sign-in.ts';
import { EMAIL_TAKEN } from '../../accounts/users.ts';
import type { AppContext } from '../../app-context.ts';
import type { PlanRate } from '../../config.ts';
import { webhookRules } from '../../webhooks/chain-rules.ts';
import { BODY_LIMITS } from '../body-limits.ts';
import { clientGoneSignal } from '../client-gone.ts';
import { sendOk } from '../envelope.ts';
import { routeSchema } from '../route-schema.ts';
import { clearSessionCookies, cookieOf, SESSION_COOKIE, setSessionCookies } from '../session-cookies.ts';
import {
  type AnonymousEntry,
  anonymousEntryGate,
  anonymousEntryRefusals,
  JSON_ONLY,
} from '../sign-in-gate.ts';

const tags = ['dashboard'];
/** An account entered (signed in or up), with the session opened for it. */
type Entered = Awaited<ReturnType<SignIn['signIn']>>;
const Email = Type.String({
  minLength: 3,
  maxLength: 254,
  description:
    'The account email (any case; spaces around it ignored): an email address, one @ between characters that are not spaces, else 422',
});
const Credentials = Type.Object({
  email: Email,
  password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
});
const NewAccount = Type.Object({
  email: Email,
  password: Type.String({
    minLength: PASSWORD_MIN_LENGTH,
    maxLength: PASSWORD_MAX_LENGTH,
    description: `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`,
  }),
});
const SignedIn = Type.Object({ email: Type.String() });
const SESSION_SET =
  'Sets the `swy_session` cookie (HttpOnly) and `swy_csrf`, whose value changes must send back in `X-CSRF-Token`.';
const JSON_BODY =
  'The body is JSON only (415 otherwise): a form posted from another site cannot sign a browser in to an account not its own.';
const KEY_QUEUE_FULL =
  'too many sign-ins and sign-ups waiting for a password check (`Too many key operations in progress`); `Retry-After` says when to come back';

/** The dashboard's sign-up, sign-in and sign-out: the session every other route then accepts beside tokens. */
export const sessionRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { signInRate, signUpRate } = ctx.config.dashboard;
  const refusals = anonymousEntryRefusals(ctx.metrics);
  const per = (rate: PlanRate) => `${rate.requests} per ${rate.seconds} s`;
  /** Sign-in and sign-up: public, and held to a rate per client address before the body is read. */
  const entryOptions = (entry: AnonymousEntry, rate: PlanRate) => ({
    config: { public: true },
    onRequest: anonymousEntryGate(ctx.rateLimiter, rate, entry, refusals),
    bodyLimit: BODY_LIMITS.signIn,
  });
  /** The browser keeps the session the account was entered with; the answer names the account. */
  const signedInAs = (request: FastifyRequest, reply: FastifyReply, { user, session }: Entered) => {
    setSessionCookies(request, reply, session);
    return { email: user.email };
  };
  app.get(
    '/api/session',
    {
      config: { public: true },
      schema: routeSchema({
        summary: 'Who is signed in here, whether sign-up is open, the chains served and their webhook types',
        tags,
        public: true,
        data: Type.Object({
          signed_in: Type.Boolean(),
          email: Type.Union([Type.String(), Type.Null()]),
          signup_open: Type.Boolean(),
          chains: Type.Array(Type.String()),
          webhook_types: Type.Record(Type.String(), Type.Array(Type.String()), {
            description: "Per chain served, the transfer types its webhooks' `type` filter takes",
          }),
          used_chains: Type.Array(Type.String(), {
            description:
              'The chains the signed-in user has addresses or webhooks on (any network), the first used first; empty when signed out',
          }),
          pending_chains: Type.Array(Type.String(), {
            description:
              'The chains served whose webhooks take `notify_pending` (a mempool to see transfers in)',
          }),
          comment_chains: Type.Array(Type.String(), {
            description:
              'The chains served whose webhooks take a `comment` filter (their transfers carry one: TON)',
          }),
        }),
      }),
    },
    async (request, reply) => {
      const secret = cookieOf(request, SESSION_COOKIE);
      const session = secret === null ? null : await ctx.sessions.resolve(secret);
      const user = session === null ? null : await ctx.users.findById(session.userId);
      const chains = ctx.registry.chains();
      return sendOk(
        reply,
        {
          signed_in: user !== null,
          email: user?.email ?? null,
          signup_open: ctx.signIn.signupOpen,
          chains,
          webhook_types: Object.fromEntries(chains.map((chain) => [chain, [...webhookRules(chain).types]])),
          used_chains: user === null ? [] : await usedChains(ctx, user.id, chains),
          pending_chains: chains.filter((chain) => webhookRules(chain).hasMempool),
          comment_chains: chains.filter((chain) => webhookRules(chain).hasComments === true),
        },
        'Session fetched',
      );
    },
  );

  app.post(
    '/api/session',
    {
      ...entryOptions('sign-in', signInRate),
      schema: routeSchema({
        summary: 'Sign in to the dashboard',
        description: `${SESSION_SET} ${JSON_BODY} Five wrong passwords for an email within 15 minutes lock its sign-in (429 with Retry-After), as wallet passwords are. One client address may sign in ${per(signInRate)} (SIGN_IN_RATE_PER_CLIENT).`,
        tags,
        public: true,
        body: Credentials,
        data: SignedIn,
        errors: [401, 415, 429],
        because: {
          401: WRONG_SIGN_IN,
          415: JSON_ONLY,
          429: `Too many wrong passwords for this account (\`Too many wrong passwords for this account; …\`), too many sign-ins from this client address (\`Too many sign-ins from this address; …\`), or ${KEY_QUEUE_FULL}`,
        },
      }),
    },
    async (request, reply) => {
      const entered = await ctx.signIn.signIn(
        request.body.email,
        request.body.password,
        clientGoneSignal(reply),
      );
      return sendOk(reply, signedInAs(request, reply, entered), 'Signed in');
    },
  );

  app.post(
    '/api/session/signup',
    {
      ...entryOptions('sign-up', signUpRate),
      schema: routeSchema({
        summary: 'Create a dashboard account and sign in',
        description: `Open when DASHBOARD_SIGNUP=open (the sandbox); closed by default. The account gets the default plan. ${SESSION_SET} ${JSON_BODY} One client address may sign up ${per(signUpRate)} (SIGN_UP_RATE_PER_CLIENT).`,
        tags,
        public: true,
        body: NewAccount,
        data: SignedIn,
        status: 201,
        errors: [403, 409, 415, 429],
        because: {
          403: 'Sign-up is closed: an administrator creates accounts',
          409: EMAIL_TAKEN,
          415: JSON_ONLY,
          429: `Too many sign-ups from this client address (\`Too many sign-ups from this address; …\`), or ${KEY_QUEUE_FULL}`,
        },
      }),
    },
    async (request, reply) => {
      const entered = await ctx.signIn.signUp(
        request.body.email,
        request.body.password,
        clientGoneSignal(reply),
      );
      return sendOk(reply, signedInAs(request, reply, entered), 'Signed up', 201);
    },
  );

  app.delete(
    '/api/session',
    {
      config: { sessionOnly: true, whileLapsed: true },
      schema: routeSchema({
        summary: 'Sign out: the session ends here and its cookies are cleared',
        tags,
        data: Type.Array(Type.Never()),
        whileLapsed: true,
        sessionOnly: true,
      }),
    },
    async (request, reply) => {
      const secret = cookieOf(request, SESSION_COOKIE);
      if (secret !== null) await ctx.sessions.close(secret);
      clearSessionCookies(request, reply);
      return sendOk(reply, [], 'Signed out');
    },
  );
};

/** The served chains a user has addresses or webhooks on, by when each was first used (the dashboard opens there). */
async function usedChains(ctx: AppContext, userId: string, served: readonly string[]): Promise<string[]> {
  const { db } = ctx.store;
  const firstUse = (table: 'addresses' | 'webhooks') =>
    db
      .selectFrom(table)
      .select(['chain', (eb) => eb.fn.min('created_at').as('first')])
      .where('user_id', '=', userId)
      .groupBy('chain')
      .execute();
  const rows = [...(await firstUse('addresses')), ...(await firstUse('webhooks'))];
  rows.sort((a, b) => (String(a.first) < String(b.first) ? -1 : 1));
  return [...new Set(rows.map((row) => row.chain))].filter((chain) => served.includes(chain));
}
