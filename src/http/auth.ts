import type { FastifyRequest } from 'fastify';
import type { SessionStore } from '../accounts/sessions.ts';
import type { Identity, UserDirectory } from '../accounts/users.ts';
import { ApiError } from '../errors.ts';
import { type MaybePromise, thenOrNow } from '../maybe-promise.ts';
import { CSRF_HEADER, cookieOf, SESSION_COOKIE } from './session-cookies.ts';

export const UNAUTHENTICATED = 'Unauthenticated.';
export const WRONG_CSRF = 'Missing or wrong CSRF token';

/** How the caller proved who they are: an API token, or a dashboard session cookie. */
export type AuthenticatedBy = 'token' | 'session';

/** The caller, with how they proved it and the token they used (null for a session). */
export interface AuthenticatedCaller {
  identity: Identity;
  by: AuthenticatedBy;
  tokenId: string | null;
}

/** `Authorization: Bearer <token>` or the bare token, as Chaingateway accepts both. */
export function presentedToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  // The usual form first, without a regular expression: every authenticated request passes here.
  if (header.startsWith('Bearer ')) {
    const token = header.slice(7);
    if (token !== '' && !/\s/.test(token)) return token;
  }
  const value = header.trim();
  const bearer = /^bearer\s+(\S+)$/i.exec(value);
  if (bearer) return bearer[1]!;
  return /^\S+$/.test(value) ? value : null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * An Authorization header decides alone (a wrong token is 401 whatever cookie comes with it). Without
 * one, the dashboard's session cookie is read, and a change (any method but GET/HEAD/OPTIONS) must carry
 * the session's CSRF token in X-CSRF-Token: a cross-site page can make the browser send the cookie, not
 * read the token. A token whose row is cached answers without a promise.
 */
export function authenticate(
  request: FastifyRequest,
  users: UserDirectory,
  sessions: SessionStore,
): MaybePromise<AuthenticatedCaller> {
  if (request.headers.authorization !== undefined) {
    const token = presentedToken(request.headers.authorization);
    if (token === null) throw new ApiError(401, UNAUTHENTICATED);
    return thenOrNow(users.authenticate(token), (found): AuthenticatedCaller => {
      if (!found) throw new ApiError(401, UNAUTHENTICATED);
      return { identity: found.identity, by: 'token', tokenId: found.tokenId };
    });
  }
  return sessionCaller(request, sessions);
}

async function sessionCaller(request: FastifyRequest, sessions: SessionStore): Promise<AuthenticatedCaller> {
  const secret = cookieOf(request, SESSION_COOKIE);
  const session = secret === null ? null : await sessions.resolve(secret);
  if (!session) throw new ApiError(401, UNAUTHENTICATED);
  if (!SAFE_METHODS.has(request.method)) {
    const csrf = request.headers[CSRF_HEADER];
    if (typeof csrf !== 'string' || !session.csrfMatches(csrf)) throw new ApiError(403, WRONG_CSRF);
  }
  const { userId, plan, terms, billing } = session;
  return { identity: { userId, plan, terms, billing }, by: 'session', tokenId: null };
}
