/** A command given wrong (a missing flag, an unknown name): its message, then the usage, exit 2. */
export class UsageError extends Error {}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${flag} is required`);
  return value;
}

/** Rows as an aligned text table, one header line; `(none)` for no rows. */
export function table(rows: object[]): string {
  if (rows.length === 0) return '(none)\n';
  const records = rows as Record<string, unknown>[];
  const keys = Object.keys(records[0]!);
  const cell = (r: Record<string, unknown>, k: string) => String(r[k] ?? '-');
  const widths = keys.map((k) => Math.max(k.length, ...records.map((r) => cell(r, k).length)));
  const line = (cells: string[]) =>
    `${cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`.trimEnd() + '\n';
  return line(keys) + records.map((r) => line(keys.map((k) => cell(r, k)))).join('');
}
