/**
 * An error's reason in one line. Some have no message of their own: pg's connection failure is an
 * AggregateError (one inner error per address tried) with an empty message.
 */
export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    const inner = [...new Set(error.errors.map(describeError))];
    return inner.join('; ') || 'unknown error';
  }
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return error.message || code || error.name;
  }
  return String(error);
}
