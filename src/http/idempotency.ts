import { KindGuard, Type } from '@sinclair/typebox';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onResponseHookHandler,
  preValidationHookHandler,
  RouteOptions,
} from 'fastify';
import type { AppContext } from '../app-context.ts';
import type { SendAttempt } from '../chains/ports.ts';
import { ApiError } from '../errors.ts';
import { type Claim, IdempotencyKeys, LEASE_MS, type StoredAnswer } from '../services/idempotency-keys.ts';
import { NOT_SENT_MESSAGE, NOT_SENT_STATUS } from '../services/send-settler.ts';
import { canonicalRequest } from './request-fingerprint.ts';
import { addRouteHook } from './route-hooks.ts';
import { errorResponse } from './route-schema.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const KEY_IN_PROGRESS = 'A request with this Idempotency-Key is in progress';
export const KEY_OUTCOME_UNKNOWN =
  'The request with this Idempotency-Key was cut short after its transaction went to the node, and its outcome is unknown: look for it in the history or on chain before sending again with a new key';
export const KEY_UNSETTLED =
  'The request with this Idempotency-Key was cut short after its transaction was signed, and the gateway is asking the chain how it ended: ask again after Retry-After';
/** Seconds to wait for the settler, which looks at unsettled sends every 5 s. */
const UNSETTLED_RETRY_AFTER = '5';
export const KEY_OTHER_REQUEST = 'This Idempotency-Key was used with another request';
/** 1 to 255 visible ASCII characters, as Stripe and the IETF draft allow. */
const KEY_FORM = /^[\x21-\x7e]{1,255}$/;

/**
 * POSTs that only read, though they carry a body: builds (an unsigned transaction, nothing sent), exports
 * (a key, which must not be kept to be given again) and the paymaster's estimates. Every other
 * authenticated POST sends, broadcasts, creates or changes something, and takes the header.
 */
const READS_BY_POST = /\/(build|export|estimate)(\/|$)/;

declare module 'fastify' {
  interface FastifyRequest {
    /** The key this request holds while it runs, when it came with an Idempotency-Key. */
    idempotencyClaim: HeldKey | null;
    /** For the send pipeline: the key a send runs under. */
    sendAttempt: SendAttempt | null;
  }
  interface FastifyContextConfig {
    /** Takes an Idempotency-Key (set for every authenticated POST but the reads, see READS_BY_POST). */
    idempotent?: boolean;
  }
}

interface HeldKey {
  claim: Claim;
  sendStarted: boolean;
  settled: boolean;
  renewal: NodeJS.Timeout;
}

/** Whether a route takes the header: an authenticated POST that is not a read. */
export function takesIdempotencyKey(route: Pick<RouteOptions, 'method' | 'url' | 'config'>): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const isPublic = route.config !== undefined && 'public' in route.config && route.config.public === true;
  return methods.includes('POST') && !isPublic && !READS_BY_POST.test(route.url);
}

const HEADER_DOC = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[!-~]+$',
  description:
    'Optional, 1 to 255 visible ASCII characters, your own per request (a UUID). The same key with the same request answers the first answer again (with `Idempotent-Replayed: true`) and never sends twice; with another request it answers 422; while the first still runs, 409 with `Retry-After`. Keys are per user and kept IDEMPOTENCY_KEY_HOURS (24 h).',
});

const NOT_SENT_DOC =
  'Only for a send, answered again for its Idempotency-Key: its request was cut short by a restart after its transaction was signed, and the transaction never reached the chain (the gateway settled it from the chain); nothing was spent';

const IN_PROGRESS_DOC =
  'A request with the same Idempotency-Key is still running, or was cut short by a restart and its send is being settled from the chain (`Retry-After` says when to ask again), or was cut short after it started sending and before its transaction was signed, and its outcome is unknown';

/**
 * Marks and documents, as routes are added, the ones that take the header: the header beside X-Network
 * and the 409. Registered before the routes and the OpenAPI document.
 */
export function documentIdempotencyKeys(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!takesIdempotencyKey(route)) return;
    route.config = { ...route.config, idempotent: true };
    const schema = route.schema;
    if (schema === undefined) return;
    const headers = KindGuard.IsObject(schema.headers) ? schema.headers.properties : {};
    schema.headers = Type.Object(
      { ...headers, [IDEMPOTENCY_HEADER]: Type.Optional(HEADER_DOC) },
      { additionalProperties: true },
    );
    const response = schema.response;
    if (typeof response === 'object' && response !== null && !(409 in response)) {
      Object.assign(response, {
        409: errorResponse(409, IN_PROGRESS_DOC, undefined, { exampleMessage: KEY_IN_PROGRESS }),
      });
    }
    if (typeof response === 'object' && response !== null && !(NOT_SENT_STATUS in response)) {
      Object.assign(response, {
        [NOT_SENT_STATUS]: errorResponse(NOT_SENT_STATUS, NOT_SENT_DOC, undefined, {
          exampleMessage: NOT_SENT_MESSAGE,
        }),
      });
    }
  });
}

/**
 * The Idempotency-Key flow on the routes that take it: the key's form is checked before the body is
 * validated; once it is, the key is claimed (or the stored answer given again, or 409/422); the answer is
 * stored when it is sent.
 *
 * What is stored: every answer but a 429 or a 5xx, which may go better on a second try and free the key,
 * unless the request had started sending: then whatever it answered is kept, as a second try could send
 * twice. A request refused before its body validated (422) leaves nothing.
 */
export function registerIdempotency(app: FastifyInstance, ctx: AppContext): void {
  const keys = new IdempotencyKeys(ctx.store.db, ctx.masterKey, ctx.config.idempotencyKeyMs);
  app.decorateRequest('idempotencyClaim', null);
  app.decorateRequest('sendAttempt', null);

  // The key is read and claimed only on the routes that take it (marked by documentIdempotencyKeys, whose
  // onRoute runs first): a GET pays for neither hook.
  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent !== true) return;
    addRouteHook(route, 'preValidation', checkIdempotencyKeyForm);
    addRouteHook(route, 'preHandler', claimIdempotencyKey);
    addRouteHook(route, 'onResponse', stopRenewal);
  });

  // Whatever ends the request, the lease stops being renewed.
  const stopRenewal: onResponseHookHandler = (request, _reply, done) => {
    const held = request.idempotencyClaim;
    if (held !== null) clearInterval(held.renewal);
    done();
  };

  const checkIdempotencyKeyForm: preValidationHookHandler = (request, _reply, done) => {
    try {
      keyOf(request);
    } catch (error) {
      return done(error instanceof Error ? error : new Error(String(error)));
    }
    done();
  };

  const claimIdempotencyKey = async (request: FastifyRequest, reply: FastifyReply) => {
    const key = keyOf(request);
    if (key === null) return;
    const result = await keys.claim({
      userId: request.userId,
      key,
      method: request.method,
      route: request.routeOptions.url ?? '',
      fingerprint: keys.fingerprint(canonicalRequest(request)),
    });
    switch (result.kind) {
      case 'claimed':
        return hold(request, keys, result.claim);
      case 'replay':
        return replay(reply, result.answer);
      case 'other-request':
        throw new ApiError(422, KEY_OTHER_REQUEST, [
          { field: 'Idempotency-Key', message: `${KEY_OTHER_REQUEST}: use a new key for a new request.` },
        ]);
      case 'in-progress':
        throw new ApiError(409, KEY_IN_PROGRESS, [], { 'Retry-After': '1' });
      case 'unsettled':
        throw new ApiError(409, KEY_UNSETTLED, [], { 'Retry-After': UNSETTLED_RETRY_AFTER });
      case 'outcome-unknown':
        throw new ApiError(409, KEY_OUTCOME_UNKNOWN);
    }
  };

  // Callbacks: a request that holds no key (every GET, most POSTs) passes on without a promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    // Routes registered before this plugin (the reference page's) have no such property: `?? null`.
    const held = request.idempotencyClaim ?? null;
    if (held === null || held.settled) return done(null, payload);
    storeAnswer(request, reply, payload, held).then(
      () => done(null, payload),
      (error: Error) => done(error),
    );
  });

  const storeAnswer = async (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    held: HeldKey,
  ) => {
    held.settled = true;
    clearInterval(held.renewal);
    const status = reply.statusCode;
    try {
      const body =
        typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : null;
      const retryable = status === 429 || status >= 500;
      if (body !== null && !retryable) {
        if (!(await keys.finish(held.claim, { status, body }))) {
          request.log.warn({ status }, 'idempotency key taken over before its answer was stored');
        }
      } else if (held.sendStarted) {
        // A failure once sending began (the database or the node gone mid-send): kept, its 503 would be
        // replayed for ever; the history tells what happened, or the answer is that nobody knows.
        await keys.abandon(held.claim);
      } else {
        await keys.release(held.claim);
      }
    } catch (error) {
      // The answer goes out anyway; the key's lease lapses and a retry is settled as after a restart.
      request.log.error({ err: error }, 'idempotency key answer not stored');
    }
  };
}

/** The header's value, checked: null without one; 422 on `Idempotency-Key` for a malformed one. */
function keyOf(request: FastifyRequest): string | null {
  const value = request.headers[IDEMPOTENCY_HEADER];
  if (value === undefined) return null;
  if (typeof value !== 'string' || !KEY_FORM.test(value)) {
    throw new ApiError(422, 'Data validation failed', [
      {
        field: 'Idempotency-Key',
        message: 'The Idempotency-Key header must be 1 to 255 visible ASCII characters, given once.',
      },
    ]);
  }
  return value;
}

/** Holds the key for this request: renews its lease while it runs, and lets a send mark its start. */
function hold(request: FastifyRequest, keys: IdempotencyKeys, claim: Claim): void {
  const renewal = setInterval(() => {
    keys
      .renew(claim)
      .catch((error: unknown) => request.log.warn({ err: error }, 'idempotency lease not renewed'));
  }, LEASE_MS / 3);
  renewal.unref();
  const held: HeldKey = { claim, sendStarted: false, settled: false, renewal };
  request.idempotencyClaim = held;
  request.sendAttempt = {
    id: claim.id,
    starting: async () => {
      if (!(await keys.startSend(claim)))
        throw new ApiError(409, KEY_IN_PROGRESS, [], { 'Retry-After': '1' });
      held.sendStarted = true;
    },
  };
}

function replay(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  return reply
    .code(answer.status)
    .header('content-type', 'application/json; charset=utf-8')
    .header(REPLAYED_HEADER, 'true')
    .send(answer.body);
}
