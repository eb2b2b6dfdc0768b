/**
 * The one way the dashboard talks to the gateway: same-origin requests with the session cookie, the
 * chosen network in X-Network, the CSRF token on every change, and the gateway's envelope unwrapped.
 */
import { humanMessage } from './human-errors.ts';
import { currentNetwork } from './network.ts';

export interface FieldError {
  field: string;
  message: string;
}

/** A failed answer: its HTTP status, the envelope's message and its per-field errors. */
export class ApiError extends Error {
  readonly status: number;
  readonly errors: FieldError[];
  readonly retryAfter: number | null;

  constructor(status: number, message: string, errors: FieldError[] = [], retryAfter: number | null = null) {
    super(humanMessage(message));
    this.name = 'ApiError';
    this.status = status;
    this.errors = errors.map((error) => ({ field: error.field, message: humanMessage(error.message) }));
    this.retryAfter = retryAfter;
  }

  /** The message of one field's error, if the gateway named that field. */
  fieldMessage(field: string): string | undefined {
    return this.errors.find((error) => error.field === field)?.message;
  }
}

/** A paged answer: Laravel's paginator keys beside `data`. */
export interface Paged<T> {
  data: T[];
  current_page: number;
  last_page: number;
  total: number;
  per_page: number;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const CHANGES: readonly Method[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** Called on every 401: the session has ended (or never began), so the app goes to the sign-in page. */
let onUnauthenticated: () => void = () => {};
export function whenUnauthenticated(handler: () => void): void {
  onUnauthenticated = handler;
}

/** The value of a cookie readable by scripts (the CSRF token; the session cookie itself is HttpOnly). */
export function readCookie(name: string): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

/**
 * JSON.parse that keeps amounts exact: the gateway writes a notification's `amount` as a number literal
 * that may hold more digits than a double, so its source text is kept as a string.
 */
function parseExact(text: string): unknown {
  return JSON.parse(text, function (this: unknown, key: string, value: unknown, ...rest: unknown[]) {
    const context = rest[0] as { source?: string } | undefined;
    if (key === 'amount' && typeof value === 'number') return context?.source ?? String(value);
    return value;
  } as (key: string, value: unknown) => unknown);
}

interface Envelope {
  status: number;
  ok: boolean;
  message: string;
  data?: unknown;
  errors?: FieldError[];
}

/** Sends one request and answers the envelope (the whole body: pages keep their keys beside `data`). */
async function request(method: Method, path: string, body?: unknown): Promise<Envelope> {
  const headers: Record<string, string> = { Accept: 'application/json', 'X-Network': currentNetwork() };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (CHANGES.includes(method)) {
    const csrf = readCookie('swy_csrf');
    if (csrf) headers['X-CSRF-Token'] = csrf;
  }
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The gateway cannot be reached. Check your connection and try again.');
  }
  const text = await response.text();
  let envelope: Envelope | undefined;
  try {
    envelope = parseExact(text) as Envelope;
  } catch {
    envelope = undefined;
  }
  if (!response.ok || !envelope || envelope.ok !== true) {
    const retryAfter = Number(response.headers.get('Retry-After')) || null;
    const error = new ApiError(
      response.status,
      envelope?.message ?? `The gateway answered ${response.status}`,
      envelope?.errors ?? [],
      retryAfter,
    );
    if (response.status === 401 && !path.startsWith('/api/session')) onUnauthenticated();
    throw error;
  }
  return envelope;
}

export const api = {
  async get<T>(path: string): Promise<T> {
    return (await request('GET', path)).data as T;
  },
  async page<T>(path: string, page: number): Promise<Paged<T>> {
    const separator = path.includes('?') ? '&' : '?';
    return (await request('GET', `${path}${separator}page=${page}`)) as unknown as Paged<T>;
  },
  async post<T>(path: string, body?: unknown): Promise<T> {
    return (await request('POST', path, body)).data as T;
  },
  async put<T>(path: string, body: unknown): Promise<T> {
    return (await request('PUT', path, body)).data as T;
  },
  async delete<T>(path: string): Promise<T> {
    return (await request('DELETE', path)).data as T;
  },
};

/** The text to show for any error: the gateway's message, or a generic one for a bug in the page. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'Something went wrong in the dashboard. Reload the page and try again.';
}
