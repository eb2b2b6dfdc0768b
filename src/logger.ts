import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';

export type { Logger };

/** `json`: one JSON object a line, for collectors; `pretty`: coloured text for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

/** Field names whose values are secrets wherever they appear in a log line. */
const SECRET_FIELD =
  /(authorization|password|passphrase|secret|private_?key|privatekey|api_?key|token|mnemonic|seed|cookie)/i;

/** Secret-looking text inside any string: API tokens, webhook secrets, bearer credentials. */
const SECRET_TEXT = [/\bswy_[A-Za-z0-9_-]{8,}/g, /\bwhsec_[A-Za-z0-9+/=_-]{8,}/g, /\bBearer\s+[^\s"']+/gi];

const REDACTED = '[redacted]';

/**
 * A log call copies at most this much of what it is given: a request can make the gateway log an object
 * graph of any size (a parser error holding every part it read), and walking it must stay cheap.
 */
const LIMITS = { depth: 4, nodes: 100, keys: 30, string: 2_048 };

export function scrubString(text: string): string {
  const short = text.length > LIMITS.string ? `${text.slice(0, LIMITS.string)}…[truncated]` : text;
  let out = short;
  for (const pattern of SECRET_TEXT) out = out.replace(pattern, REDACTED);
  return out;
}

/** Copies `value` with secret fields replaced and secret-looking text masked, bounded by LIMITS. */
export function scrubSecrets(value: unknown): unknown {
  return boundedCopy(value, 0, { nodes: LIMITS.nodes });
}

function boundedCopy(value: unknown, depth: number, budget: { nodes: number }): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return serializeError(value);
  if (depth >= LIMITS.depth || budget.nodes <= 0) return '[…]';
  budget.nodes--;
  if (Array.isArray(value)) {
    const items = value.slice(0, LIMITS.keys).map((item) => boundedCopy(item, depth + 1, budget));
    if (value.length > LIMITS.keys) items.push(`…${value.length - LIMITS.keys} more`);
    return items;
  }
  return copyObject(value, depth, budget);
}

/** `passThrough` keys keep their value as it is: pino's serializers reduce them afterwards. */
function copyObject(
  value: object,
  depth: number,
  budget: { nodes: number },
  passThrough: ReadonlySet<string> = NONE,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let kept = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (kept++ >= LIMITS.keys) {
      out['…'] = 'more keys left out';
      break;
    }
    const item = (value as Record<string, unknown>)[key];
    if (passThrough.has(key)) out[key] = item;
    else out[key] = SECRET_FIELD.test(key) ? REDACTED : boundedCopy(item, depth + 1, budget);
  }
  return out;
}

const NONE: ReadonlySet<string> = new Set();

/** What a log line keeps of an error: never its own enumerable fields, which may hold anything. */
export function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: scrubString(String(error)) };
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  return {
    type: error.name,
    message: scrubString(error.message),
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof statusCode === 'number' ? { statusCode } : {}),
    stack: scrubString(error.stack ?? ''),
    ...(error.cause instanceof Error ? { cause: scrubString(error.cause.message) } : {}),
  };
}

/** Keys pino hands to the serializers below; the log hook leaves them to those. */
const SERIALIZED = new Set(['req', 'res', 'err']);

const serializers = {
  req: (request: { method?: string; url?: string; id?: string; ip?: string }) => ({
    method: request.method,
    url: scrubString(String(request.url ?? '').slice(0, 512)),
    id: request.id,
    remoteAddress: request.ip,
  }),
  res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
  err: serializeError,
};

function scrubArgument(arg: unknown): unknown {
  if (arg === null || typeof arg !== 'object' || arg instanceof Error || Array.isArray(arg)) {
    return arg instanceof Error ? arg : scrubSecrets(arg);
  }
  return copyObject(arg, 0, { nodes: LIMITS.nodes }, SERIALIZED);
}

/** Formats each JSON line as text for a person, in this thread, before it reaches `destination`. */
function prettyStream(destination: pino.DestinationStream): pino.DestinationStream {
  // Required here, not imported at the top: JSON logs (the default, and every server) never load it.
  const { prettyFactory }: typeof PinoPretty = createRequire(import.meta.url)('pino-pretty');
  const format = prettyFactory({
    colorize: destination === process.stdout && process.stdout.isTTY === true,
    ignore: 'pid,hostname,service',
    translateTime: 'SYS:HH:MM:ss.l',
  });
  return { write: (line: string) => destination.write(format(line)) };
}

/**
 * The process's logger. Lines go to `destination` (stdout by default); `pretty` formats them for a terminal
 * in this thread (no worker), after the same scrubbing as JSON lines.
 */
let lastMs = Number.NaN;
let lastTime = '';

/**
 * pino's ISO timestamp (`,"time":"…"`), formatted once per millisecond: a busy API writes tens of lines
 * (one per request) in each.
 */
export function isoTimeOncePerMillisecond(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

/** Bytes of log lines gathered at most before they are written together. */
const FLUSH_BYTES = 64 * 1_024;
/** How long a line waits for others before it is written. */
const FLUSH_MS = 50;

/**
 * Standard output, written in blocks: the lines of up to FLUSH_MS (or FLUSH_BYTES) go to pino's
 * asynchronous writer as one string. A busy API writes a request line per request, and a write each, even
 * one per turn of the event loop, cost a cached read a good part of its throughput. What is left is
 * written synchronously when the process exits.
 */
function bufferedStdout(): pino.DestinationStream {
  const stdout = pino.destination({ dest: process.stdout.fd, sync: false });
  let lines: string[] = [];
  let bytes = 0;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (lines.length === 0) return;
    stdout.write(lines.join(''));
    lines = [];
    bytes = 0;
  };
  process.on('exit', () => {
    flush();
    stdout.flushSync();
  });
  return {
    write(line: string) {
      lines.push(line);
      bytes += line.length;
      if (bytes >= FLUSH_BYTES) flush();
      else if (timer === null) {
        timer = setTimeout(flush, FLUSH_MS);
        timer.unref();
      }
    },
  };
}

export function createLogger(
  level: string,
  destination?: pino.DestinationStream,
  format: LogFormat = 'json',
): Logger {
  const output =
    format === 'pretty' ? prettyStream(destination ?? process.stdout) : (destination ?? bufferedStdout());
  return pino(
    {
      level,
      base: { service: 'switchyard' },
      timestamp: isoTimeOncePerMillisecond,
      serializers,
      hooks: {
        // Every argument of every log call passes through here, messages included.
        logMethod(args, method) {
          method.apply(this, args.map(scrubArgument) as Parameters<typeof method>);
        },
      },
    },
    output,
  );
}
