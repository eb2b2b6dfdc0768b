/**
 * Whether an error means the database could not be reached (down, restarting, the connection cut), as
 * opposed to a query that failed: the request may succeed if tried again, so it is answered 503.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth++) {
    const code = 'code' in cause && typeof cause.code === 'string' ? cause.code : '';
    if (CONNECTION_CODES.has(code) || code.startsWith('08')) return true;
    // node-postgres reports a connection the server closed by words alone.
    if (/^Connection terminated/.test(cause.message)) return true;
  }
  return false;
}

/** Socket errors, and Postgres's shutdown codes (SQLSTATE class 08 is every connection exception). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, in recovery)
]);
