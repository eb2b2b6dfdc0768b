import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OpenedSession } from '../accounts/sessions.ts';

/** The dashboard's cookies: the session (HttpOnly) and its CSRF token, which the page reads to send back. */
export const SESSION_COOKIE = 'swy_session';
export const CSRF_COOKIE = 'swy_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** One cookie's value from the Cookie header, or null. Both cookies' values are base64url: nothing to decode. */
export function cookieOf(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (header === undefined) return null;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return null;
}

/** SameSite=Lax keeps the cookies off cross-site posts; Secure whenever the page came over https. */
function attributes(request: FastifyRequest, maxAgeSeconds: number, httpOnly: boolean): string {
  return [
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    'SameSite=Lax',
    ...(httpOnly ? ['HttpOnly'] : []),
    ...(request.protocol === 'https' ? ['Secure'] : []),
  ].join('; ');
}

export function setSessionCookies(
  request: FastifyRequest,
  reply: FastifyReply,
  session: OpenedSession,
): void {
  const maxAge = Math.max(0, Math.round((session.expiresAt.getTime() - Date.now()) / 1000));
  reply.header('set-cookie', [
    `${SESSION_COOKIE}=${session.secret}; ${attributes(request, maxAge, true)}`,
    `${CSRF_COOKIE}=${session.csrf}; ${attributes(request, maxAge, false)}`,
  ]);
}

export function clearSessionCookies(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', [
    `${SESSION_COOKIE}=; ${attributes(request, 0, true)}`,
    `${CSRF_COOKIE}=; ${attributes(request, 0, false)}`,
  ]);
}
