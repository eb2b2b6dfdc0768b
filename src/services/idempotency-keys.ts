import { randomUUID } from 'node:crypto';
import type { Kysely, Updateable } from 'kysely';
import type { MasterKey } from '../custody/master-key.ts';
import type { Database, IdempotencyKeysTable } from '../store/schema.ts';

/** How long a running request holds its key without renewing it; it renews a third of the way in. */
export const LEASE_MS = 30_000;
/** Expired rows deleted per new key, so the table stays as small as its live keys. */
const SWEEP_BATCH = 100;

/** One use of an Idempotency-Key: who, which key, and what request it was. */
export interface KeyedRequest {
  userId: string;
  key: string;
  method: string;
  route: string;
  /** `IdempotencyKeys.fingerprint` of the request. */
  fingerprint: string;
}

/** The request that holds a key while it runs. */
export interface Claim {
  readonly id: string;
  readonly token: string;
}

/** An answer to give again as it was, with the status it had. */
export interface StoredAnswer {
  status: number;
  body: string;
}

export type ClaimResult =
  /** This request holds the key: run it. */
  | { kind: 'claimed'; claim: Claim }
  /** The key's request has its answer: give it again. */
  | { kind: 'replay'; answer: StoredAnswer }
  /** The key was used for another request. */
  | { kind: 'other-request' }
  /** Another request holds the key and is running. */
  | { kind: 'in-progress' }
  /**
   * The key's request was cut short after its transaction was signed, and its history row has no answer
   * yet: the settler (send-settler.ts) is asking the chain.
   */
  | { kind: 'unsettled' }
  /** The key's request was cut short after it started sending, and left no trace in the history. */
  | { kind: 'outcome-unknown' };

/** The answer rebuilt from the history for a send whose request was cut short once the node had it. */
export const RECOVERED_MESSAGE = 'Sent before the gateway restarted: this answer is rebuilt from the history';
const RECOVERED_FAILURE = 'The send failed before the gateway restarted';

type Row = Pick<
  IdempotencyKeysTable,
  | 'id'
  | 'fingerprint'
  | 'method'
  | 'route'
  | 'state'
  | 'response_status'
  | 'response_sealed'
  | 'send_started_at'
  | 'lease_token'
  | 'locked_until'
  | 'expires_at'
>;

/**
 * The idempotency keys' rows. A key is claimed by inserting its row (the primary key makes one insert win
 * a race, on one instance or many); the winner runs the request under a lease it renews, and stores the
 * answer. A lease that lapses means the process died: if the request had not yet handed a transaction to
 * the node, another request takes the key over and runs; if it had, it is never run again, and is answered
 * from the history (or as an unknown outcome when the history has nothing).
 */
export class IdempotencyKeys {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly masterKey: MasterKey,
    private readonly keepMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The request's fingerprint: keyed, so a body's password cannot be guessed from it. */
  fingerprint(canonicalRequest: string): string {
    return this.masterKey.digest(canonicalRequest, 'idempotency-fingerprint');
  }

  async claim(request: KeyedRequest): Promise<ClaimResult> {
    // Each round either decides or removes what stood in the way (an expired row, a lapsed lease taken by
    // another): a few rounds settle any race.
    for (let round = 0; round < 5; round++) {
      const inserted = await this.insert(request);
      if (inserted !== null) return { kind: 'claimed', claim: inserted };
      const row = await this.db
        .selectFrom('idempotency_keys')
        .select([
          'id',
          'fingerprint',
          'method',
          'route',
          'state',
          'response_status',
          'response_sealed',
          'send_started_at',
          'lease_token',
          'locked_until',
          'expires_at',
        ])
        .where('user_id', '=', request.userId)
        .where('key', '=', request.key)
        .executeTakeFirst();
      if (row === undefined) continue;
      const decided = await this.decide(request, row);
      if (decided !== null) return decided;
    }
    return { kind: 'in-progress' };
  }

  /** Keeps the key while the request runs; false once another request has taken it over. */
  renew(claim: Claim): Promise<boolean> {
    return this.updateHeld(claim, { locked_until: this.at(LEASE_MS) });
  }

  /**
   * Marks the moment a transaction goes to the node: from then on no other request may take the key over.
   * False when one already has (this request's lease lapsed), and then this one must not send.
   */
  startSend(claim: Claim): Promise<boolean> {
    return this.updateHeld(claim, { send_started_at: this.at(0), locked_until: this.at(LEASE_MS) });
  }

  /** Stores the answer, sealed; false when this request no longer holds the key. */
  finish(claim: Claim, answer: StoredAnswer): Promise<boolean> {
    return this.updateHeld(claim, {
      state: 'done',
      response_status: answer.status,
      response_sealed: this.masterKey.seal(answer.body, sealContext(claim.id)),
      lease_token: null,
      locked_until: null,
    });
  }

  /**
   * Ends a request that failed (5xx) after it started sending, without an answer to keep: whether its
   * transaction reached the node is not known here. Its lease ends now, so the next request with the key
   * is answered from the history at once (or told the outcome is unknown), as after a crash.
   */
  async abandon(claim: Claim): Promise<void> {
    await this.updateHeld(claim, { lease_token: null, locked_until: null });
  }

  /** Frees the key for another try: only a request that sent nothing. */
  async release(claim: Claim): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('id', '=', claim.id)
      .where('lease_token', '=', claim.token)
      .where('send_started_at', 'is', null)
      .execute();
  }

  /** Changes the key's row while this request still holds it (its lease token, still running); true when it did. */
  private async updateHeld(claim: Claim, changes: Updateable<IdempotencyKeysTable>): Promise<boolean> {
    const result = await this.db
      .updateTable('idempotency_keys')
      .set(changes)
      .where('id', '=', claim.id)
      .where('lease_token', '=', claim.token)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  private async insert(request: KeyedRequest): Promise<Claim | null> {
    const claim = { id: randomUUID(), token: randomUUID() };
    const result = await this.db
      .insertInto('idempotency_keys')
      .values({
        user_id: request.userId,
        key: request.key,
        id: claim.id,
        method: request.method,
        route: request.route,
        fingerprint: request.fingerprint,
        state: 'running',
        response_status: null,
        response_sealed: null,
        send_started_at: null,
        lease_token: claim.token,
        locked_until: this.at(LEASE_MS),
        created_at: this.at(0),
        expires_at: this.at(this.keepMs),
      })
      .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0n) !== 1) return null;
    await this.sweepExpired();
    return claim;
  }

  /** What an existing row means for this request; null when it was cleared away and the key is free again. */
  private async decide(request: KeyedRequest, row: Row): Promise<ClaimResult | null> {
    const now = this.at(0);
    if (row.expires_at <= now) {
      // An expired key is as good as unused: its row goes, and this request may claim the key.
      await this.db.deleteFrom('idempotency_keys').where('id', '=', row.id).execute();
      return null;
    }
    if (
      row.fingerprint !== request.fingerprint ||
      row.method !== request.method ||
      row.route !== request.route
    ) {
      return { kind: 'other-request' };
    }
    if (row.state === 'done' && row.response_status !== null && row.response_sealed !== null) {
      const body = this.masterKey.open(row.response_sealed, sealContext(row.id));
      return { kind: 'replay', answer: { status: row.response_status, body } };
    }
    if (row.locked_until !== null && row.locked_until > now) return { kind: 'in-progress' };
    // The lease lapsed: the process that held the key stopped without an answer.
    if (row.send_started_at !== null) return this.fromHistory(row.id);
    const token = randomUUID();
    const takeover = await this.db
      .updateTable('idempotency_keys')
      .set({ lease_token: token, locked_until: this.at(LEASE_MS) })
      .where('id', '=', row.id)
      .where('state', '=', 'running')
      .where('send_started_at', 'is', null)
      .where((eb) =>
        row.lease_token === null ? eb('lease_token', 'is', null) : eb('lease_token', '=', row.lease_token),
      )
      .executeTakeFirst();
    if (Number(takeover.numUpdatedRows) === 1) return { kind: 'claimed', claim: { id: row.id, token } };
    return null;
  }

  /**
   * A send cut short once it started sending: its history row (written with the txid before the node got
   * the transaction, answered when the node or, after a restart, the chain told how it ended) gives the
   * answer; one without an answer yet is being settled; with none, the outcome is unknown (the request
   * died before its transaction was signed), and it is never sent again.
   */
  private async fromHistory(id: string): Promise<ClaimResult> {
    const entry = await this.db
      .selectFrom('transactions')
      .select(['txid', 'http_status', 'response_json'])
      .where('idempotency_id', '=', id)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    if (entry === undefined) return { kind: 'outcome-unknown' };
    if (entry.http_status === null) return { kind: 'unsettled' };
    const status = entry.http_status;
    const body =
      status < 300
        ? { status, ok: true, message: RECOVERED_MESSAGE, data: { txid: entry.txid } }
        : { status, ok: false, message: failureMessage(entry.response_json), errors: [] };
    return { kind: 'replay', answer: { status, body: JSON.stringify(body) } };
  }

  private async sweepExpired(): Promise<void> {
    const now = this.at(0);
    await this.db
      .deleteFrom('idempotency_keys')
      .where('id', 'in', (eb) =>
        eb.selectFrom('idempotency_keys').select('id').where('expires_at', '<=', now).limit(SWEEP_BATCH),
      )
      .execute();
  }

  private at(offsetMs: number): string {
    return new Date(this.now().getTime() + offsetMs).toISOString();
  }
}

function sealContext(id: string): string {
  return `idempotency:${id}`;
}

/** The refusal's words as the history kept them (`{"error": "…"}`, Tron's `{"message": "…"}`), else a general one. */
function failureMessage(responseJson: string | null): string {
  if (responseJson === null) return RECOVERED_FAILURE;
  try {
    const parsed: unknown = JSON.parse(responseJson);
    if (typeof parsed === 'object' && parsed !== null) {
      if ('error' in parsed && typeof parsed.error === 'string') return parsed.error;
      if ('message' in parsed && typeof parsed.message === 'string') return parsed.message;
    }
  } catch {
    // not JSON: the general message
  }
  return RECOVERED_FAILURE;
}
