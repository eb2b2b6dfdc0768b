import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from './api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => Promise<void>;
}

/**
 * Runs `load` when the page shows and whenever `deps` change; `reload` runs it again (after a change).
 * An answer that arrives after a newer request started is dropped.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const reload = useCallback(async () => {
    const ticket = ++latest.current;
    setLoading(true);
    try {
      const value = await load();
      if (ticket !== latest.current) return;
      setData(value);
      setError(null);
    } catch (caught) {
      if (ticket !== latest.current) return;
      setError(messageOf(caught));
    } finally {
      if (ticket === latest.current) setLoading(false);
    }
  }, deps);
  useEffect(() => {
    void reload();
    return () => {
      latest.current++;
    };
  }, [reload]);
  return { data, error, loading, reload };
}

/** Sets the document title for a page. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Switchyard`;
  }, [title]);
}
