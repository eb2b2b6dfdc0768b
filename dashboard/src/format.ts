/** Display helpers. Amounts are never formatted here: they are shown as the gateway's strings. */

/** A timestamp from the API in the reader's locale, or a dash for none. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A whole count with group separators (quotas are integers). */
export function formatCount(value: number): string {
  return value.toLocaleString('en');
}

/** A long hash or address cut in the middle for narrow cells; the full text goes in a title. */
export function shorten(text: string | null | undefined, keep = 10): string {
  if (!text) return '—';
  return text.length <= keep * 2 + 1 ? text : `${text.slice(0, keep)}…${text.slice(-keep + 2)}`;
}
