import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../accounts/password-hash.ts';
import { WRONG_SIGN_IN } from '../../accounts/sign-in.ts';
import type { AppContext } from '../../app-context.ts';
import { WEBHOOK_RULES } from '../../webhooks/chain-rules.ts';
import { sendOk } from '../envelope.ts';
import { routeSchema } from '../route-schema.ts';
import { clearSessionCookies, cookieOf, SESSION_COOKIE, setSessionCookies } from '../session-cookies.ts';

const tags = ['dashboard'];
const Email = Type.String({ minLength: 3, maxLength: 254, description: 'The account email (any case)' });
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

/** The dashboard's sign-up, sign-in and sign-out: the session every other route then accepts beside tokens. */
export async function sessionRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
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
          webhook_types: Object.fromEntries(chains.map((chain) => [chain, [...WEBHOOK_RULES[chain].types]])),
        },
        'Session fetched',
      );
    },
  );

  app.post<{ Body: { email: string; password: string } }>(
    '/api/session',
    {
      config: { public: true },
      schema: routeSchema({
        summary: 'Sign in to the dashboard',
        description: `${SESSION_SET} Five wrong passwords for an email within 15 minutes lock its sign-in (429 with Retry-After), as wallet passwords are.`,
        tags,
        public: true,
        body: Credentials,
        data: SignedIn,
        errors: [401, 429],
        because: {
          401: WRONG_SIGN_IN,
          429: 'Too many wrong passwords for this account; Retry-After says when',
        },
      }),
    },
    async (request, reply) => {
      const { user, session } = await ctx.signIn.signIn(request.body.email, request.body.password);
      setSessionCookies(request, reply, session);
      return sendOk(reply, { email: user.email }, 'Signed in');
    },
  );

  app.post<{ Body: { email: string; password: string } }>(
    '/api/session/signup',
    {
      config: { public: true },
      schema: routeSchema({
        summary: 'Create a dashboard account and sign in',
        description: `Open when DASHBOARD_SIGNUP=open (the sandbox); closed by default. The account gets the default plan. ${SESSION_SET}`,
        tags,
        public: true,
        body: NewAccount,
        data: SignedIn,
        status: 201,
        errors: [403, 409],
        because: {
          403: 'Sign-up is closed: an administrator creates accounts',
          409: 'The email has an account',
        },
      }),
    },
    async (request, reply) => {
      const { user, session } = await ctx.signIn.signUp(request.body.email, request.body.password);
      setSessionCookies(request, reply, session);
      return sendOk(reply, { email: user.email }, 'Signed up', 201);
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
}
