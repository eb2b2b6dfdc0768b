import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { RequestLogger } from './request-logger.ts';

/** The request line's own fields, each of a known shape (see request-log.ts). */
export interface RequestLineFields {
  method: string;
  route: string;
  status: number;
  durationMs: number;
  userId: string;
}

const {
  chindingsSym,
  endSym,
  formattersSym,
  hooksSym,
  lsCacheSym,
  mixinSym,
  needsMetadataGsym,
  nestedKeySym,
  streamSym,
  timeSym,
} = pino.symbols;

/** Pino's level number for `info`. */
const INFO = 30;

/**
 * Writes the request line as pino would write `log.info(fields, 'request')`, byte for byte (level, time,
 * the logger's bindings with the request id, the fields, the message), straight into the logger's
 * destination: a line a request costs a few concatenations, where pino's generic path copies and walks
 * the object twice (the scrubbing hook, then its serializer). The fields need no scrubbing: the method
 * is one Node's parser knows, the route a pattern of the code or a path request-log.ts has scrubbed, the
 * user id the database's. Returns false, having written nothing, for a logger set up in a way this does
 * not reproduce (a mixin, a log formatter, a nested key, a stream that wants metadata or a write hook):
 * the caller then logs the generic way. True when the line is written, or the logger's level leaves it out.
 */
export function writeRequestLine(requestLog: FastifyBaseLogger, fields: RequestLineFields): boolean {
  // A request logger not made into a child yet: its parent's bindings and its own, as the child's would be.
  const lazy = requestLog instanceof RequestLogger;
  const log = lazy ? requestLog.parent : requestLog;
  const parentChindings = Reflect.get(log, chindingsSym);
  const chindings =
    lazy && typeof parentChindings === 'string' ? parentChindings + requestLog.boundText : parentChindings;
  const time = Reflect.get(log, timeSym);
  const levels = Reflect.get(log, lsCacheSym);
  const end = Reflect.get(log, endSym);
  const stream = Reflect.get(log, streamSym);
  if (
    typeof chindings !== 'string' ||
    typeof time !== 'function' ||
    typeof end !== 'string' ||
    !isPlain(log, stream)
  )
    return false;
  const threshold = Reflect.get(log, 'levelVal');
  if (typeof threshold !== 'number') return false;
  // Below the logger's level: pino would write nothing either.
  if (threshold > INFO) return true;
  const level = typeof levels === 'object' && levels !== null ? Reflect.get(levels, INFO) : undefined;
  if (typeof level !== 'string') return false;
  const user = fields.userId === '' ? '' : `,"userId":${JSON.stringify(fields.userId)}`;
  stream.write(
    `${level}${time()}${chindings},"method":${JSON.stringify(fields.method)},"route":${JSON.stringify(fields.route)},"status":${fields.status},"durationMs":${finite(fields.durationMs)}${user},"msg":"request"${end}`,
  );
  return true;
}

/** A stream to write to, and no option that would change the line pino writes. */
function isPlain(log: FastifyBaseLogger, stream: unknown): stream is { write(line: string): unknown } {
  if (typeof stream !== 'object' || stream === null || !('write' in stream)) return false;
  if (typeof stream.write !== 'function' || Reflect.get(stream, needsMetadataGsym) === true) return false;
  const formatters = Reflect.get(log, formattersSym);
  const hooks = Reflect.get(log, hooksSym);
  return (
    !Reflect.get(log, mixinSym) &&
    !Reflect.get(log, nestedKeySym) &&
    (formatters === undefined || !Reflect.get(formatters, 'log')) &&
    (hooks === undefined || !Reflect.get(hooks, 'streamWrite'))
  );
}

/** As pino writes a number: a non-finite one as null. */
function finite(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}
