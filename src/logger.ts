import pino, { type Logger } from 'pino';

export type { Logger };

/** Field names whose values are secrets wherever they appear in a log line. */
const SECRET_FIELD =
  /(authorization|password|passphrase|secret|private_?key|privatekey|api_?key|token|mnemonic|seed|cookie)/i;

/** Secret-looking text inside any string: API tokens, webhook secrets, bearer credentials. */
const SECRET_TEXT = [/\bswy_[A-Za-z0-9_-]{8,}/g, /\bwhsec_[A-Za-z0-9+/=_-]{8,}/g, /\bBearer\s+[^\s"']+/gi];

const REDACTED = '[redacted]';

export function scrubString(text: string): string {
  let out = text;
  for (const pattern of SECRET_TEXT) out = out.replace(pattern, REDACTED);
  return out;
}

/** Copies `value` with secret fields replaced and secret-looking text masked. */
export function scrubSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) return value.map((item) => scrubSecrets(item, depth + 1));
  if (value instanceof Error) {
    return { type: value.name, message: scrubString(value.message), stack: scrubString(value.stack ?? '') };
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_FIELD.test(key) ? REDACTED : scrubSecrets(item, depth + 1);
  }
  return out;
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'switchyard' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: REDACTED },
      hooks: {
        // Every argument of every log call passes through here, messages included.
        logMethod(args, method) {
          method.apply(this, args.map((arg) => scrubSecrets(arg)) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
