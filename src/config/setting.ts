import { ConfigError } from './error.ts';

export type Env = Record<string, string | undefined>;

/** One setting the gateway reads: how a user writes its default, what it means, and how it is read. */
export interface Setting<T> {
  /** The default as a user would write it; absent when the setting is unset by default or worked out. */
  default?: string;
  /** The default in words when it is worked out from other settings (shown instead of `default`). */
  computed?: string;
  /** One line: what the setting does. */
  meaning: string;
  /** Never printed (`config check` shows only whether it is set). */
  secret?: boolean;
  /** Reads and validates the setting; throws ConfigError naming `name`. */
  read(env: Env, name: string): T;
}

interface Spec<T> {
  default?: string;
  computed?: string;
  meaning: string;
  secret?: boolean;
  parse(raw: string, name: string): T;
}

/** A setting read from its one variable; without a default, an unset variable reads as undefined. */
export function setting<T>(spec: Spec<T> & { default: string }): Setting<T>;
export function setting<T>(spec: Spec<T>): Setting<T | undefined>;
export function setting<T>(spec: Spec<T>): Setting<T | undefined> {
  const { parse, ...described } = spec;
  return {
    ...described,
    read: (env, name) => {
      const raw = env[name] ?? spec.default;
      return raw === undefined ? undefined : parse(raw, name);
    },
  };
}

export function wholeNumber(min: number, max: number) {
  return (raw: string, name: string): number => {
    if (!/^\d+$/.test(raw)) throw new ConfigError(name, `"${raw}" is not a whole number`);
    const value = Number(raw);
    if (value < min || value > max) throw new ConfigError(name, `${value} is outside ${min}..${max}`);
    return value;
  };
}

/** Seconds with an optional fraction, from 0 to `max`. */
export function seconds(max: number) {
  return (raw: string, name: string): number => {
    if (!/^\d+(\.\d+)?$/.test(raw)) throw new ConfigError(name, `"${raw}" is not a number of seconds`);
    const value = Number(raw);
    if (value > max) throw new ConfigError(name, `${value} is outside 0..${max}`);
    return value;
  };
}

export function yesOrNo(raw: string, name: string): boolean {
  const value = raw.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new ConfigError(name, `"${raw}" is not a boolean (true or false)`);
}

export function oneOf<T extends string>(allowed: readonly T[]) {
  return (raw: string, name: string): T => {
    const found = allowed.find((value) => value === raw);
    if (found === undefined) throw new ConfigError(name, `"${raw}" is not one of ${allowed.join(', ')}`);
    return found;
  };
}

export function text(raw: string): string {
  return raw;
}

/** "a, b,c" -> ['a', 'b', 'c']. */
export function list(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export function httpUrl(raw: string, name: string): string {
  if (!isHttpUrl(raw)) throw new ConfigError(name, `"${redactUrl(raw)}" is not an http(s) URL`);
  return raw;
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** URLs may embed API keys or passwords; keep only scheme and host in messages. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}/…`;
  } catch {
    return '(unparseable URL)';
  }
}

/** An empty variable counts as unset, as a shell's `VAR=` means "no value". */
export function withoutEmpty(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== '') out[key] = value;
  return out;
}
