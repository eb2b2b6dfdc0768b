/**
 * The SQL text of the statements that record a batch of attempts, one per batch size and dialect, made
 * once and kept: built through kysely's `sql` fragments, a batch's fourteen values per attempt were
 * composed and compiled anew on every write, a large share of the allocations per delivery. The values
 * are bound per batch (delivery-queue.ts settle).
 */

/** Values per attempt row: id, notification_id, attempted_at, duration_ms, response_status, response_body, error. */
const ATTEMPT_VALUES = 7;
/** Values per notification state: id, status, response_status, response_body, next_attempt_at, delivered_at, updated_at. */
const STATE_VALUES = 7;

export interface RecordStatements {
  /** SQLite only: the attempt rows, inserted before the update. */
  insert: string | null;
  /** The new states (on Postgres with the attempts' insert as a data-modifying WITH); returns the ids settled. */
  update: string;
}

export type RecordDialect = 'sqlite' | 'postgres';

/** Batches are at most MAX_BATCH attempts (attempt-batches.ts); a few shapes per size. */
const MAX_KEPT = 600;
const kept = new Map<string, RecordStatements>();

/**
 * The statements for `count` attempts. `claimNext` (Postgres) turns bitmap scans off for the rest of the
 * transaction in the same statement, for the claim that follows it (delivery-queue.ts).
 */
export function recordStatements(
  dialect: RecordDialect,
  count: number,
  claimNext: boolean,
): RecordStatements {
  const key = `${dialect}:${count}:${claimNext}`;
  let statements = kept.get(key);
  if (statements === undefined) {
    statements = build(dialect, count, claimNext);
    if (kept.size >= MAX_KEPT) kept.clear();
    kept.set(key, statements);
  }
  return statements;
}

function build(dialect: RecordDialect, count: number, claimNext: boolean): RecordStatements {
  const postgres = dialect === 'postgres';
  let bound = 0;
  const next = () => (postgres ? `$${++bound}` : '?');
  const tuple = (width: number, cast?: number) =>
    `(${Array.from({ length: width }, (_, i) => (i === cast ? `cast(${next()} as integer)` : next())).join(', ')})`;
  const attemptRows = Array.from({ length: count }, () => tuple(ATTEMPT_VALUES)).join(', ');
  const insert = `insert into notification_attempts
      (id, notification_id, attempted_at, duration_ms, response_status, response_body, error)
      values ${attemptRows}`;
  // Cast: Postgres reads the untyped parameters of a VALUES list as text.
  const states = Array.from({ length: count }, () => tuple(STATE_VALUES, 2)).join(', ');
  // set_config's third argument keeps the setting to the transaction; a planner setting applies from the
  // next statement on, the claim.
  const planner =
    postgres && claimNext
      ? `cross join (select set_config('enable_bitmapscan', 'off', true)) as planner`
      : '';
  const update = `
      with ${postgres ? `inserted as (${insert}),` : ''}
        settled (id, status, response_status, response_body, next_attempt_at, delivered_at, updated_at)
        as (values ${states})
      update notifications set
        status = settled.status,
        attempts = notifications.attempts + 1,
        response_status = settled.response_status,
        response_body = settled.response_body,
        claimed_by = null,
        claim_expires_at = null,
        updated_at = settled.updated_at,
        next_attempt_at = coalesce(settled.next_attempt_at, notifications.next_attempt_at),
        delivered_at = coalesce(settled.delivered_at, notifications.delivered_at)
      from settled ${planner}
      where notifications.id = settled.id
        and notifications.claimed_by = ${next()}
        and notifications.status = 'delivering'
      returning notifications.id`;
  return { insert: postgres ? null : insert, update };
}
