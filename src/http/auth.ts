import type { FastifyRequest } from 'fastify';
import type { UserDirectory } from '../accounts/users.ts';
import { ApiError } from '../errors.ts';

export const UNAUTHENTICATED = 'Unauthenticated.';

/** `Authorization: Bearer <token>` or the bare token, as Chaingateway accepts both. */
export function presentedToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  const value = header.trim();
  const bearer = /^bearer\s+(\S+)$/i.exec(value);
  if (bearer) return bearer[1]!;
  return /^\S+$/.test(value) ? value : null;
}

export async function authenticate(request: FastifyRequest, users: UserDirectory) {
  const token = presentedToken(request);
  const identity = token === null ? null : await users.authenticate(token);
  if (!identity) throw new ApiError(401, UNAUTHENTICATED);
  return identity;
}
