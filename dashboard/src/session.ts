/**
 * Who is signed in, as the gateway says (GET /api/session). The session itself is an HttpOnly cookie the
 * page never sees; this only mirrors its state for the header and the redirects.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';

export interface Session {
  signed_in: boolean;
  email: string | null;
  signup_open: boolean;
  chains: string[];
  /** Per chain, the transfer types its webhooks filter on. */
  webhook_types: Record<string, string[]>;
  /** The chains the user has addresses or webhooks on, the first used first: where the pickers start. */
  used_chains: string[];
  /** The chains whose webhooks take `notify_pending` (they have a mempool). */
  pending_chains: string[];
  /** The chains whose webhooks take a `comment` filter (TON). */
  comment_chains: string[];
}

let session: Session | null = null;
const listeners = new Set<(session: Session | null) => void>();

function publish(next: Session): void {
  session = next;
  for (const listener of listeners) listener(next);
}

export async function loadSession(): Promise<Session> {
  const next = await api.get<Session>('/api/session');
  publish(next);
  return next;
}

export async function signIn(email: string, password: string): Promise<void> {
  await api.post('/api/session', { email, password });
  await loadSession();
}

export async function signUp(email: string, password: string): Promise<void> {
  await api.post('/api/session/signup', { email, password });
  await loadSession();
}

export async function signOut(): Promise<void> {
  try {
    await api.delete('/api/session');
  } finally {
    await loadSession().catch(() => {
      if (session) publish({ ...session, signed_in: false, email: null });
    });
  }
}

/** Marks the session ended (a 401 from any route) without asking the gateway again. */
export function sessionEnded(): void {
  if (session?.signed_in) publish({ ...session, signed_in: false, email: null });
}

/** The session, or null while the first GET /api/session is on its way. */
export function useSession(): Session | null {
  const [value, setValue] = useState(session);
  useEffect(() => {
    listeners.add(setValue);
    setValue(session);
    return () => {
      listeners.delete(setValue);
    };
  }, []);
  return value;
}
