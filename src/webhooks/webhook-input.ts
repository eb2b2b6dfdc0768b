import { type Static, Type } from '@sinclair/typebox';
import { ADDRESS_MARK, ADDRESS_OF_THE_CHAIN } from '../chains/family.ts';

export const MAX_CONFIRMATIONS = 1_000;
export const MAX_URL_LENGTH = 2048;
/** A comment filter's longest text: longer than any payment reference, short enough to index. */
export const MAX_COMMENT_LENGTH = 256;

/** Optional fields may also be sent empty, which means not given (as form posts send them). */
const EMPTY_MEANS_ABSENT = 'Empty means not given.';
/** A flag as JSON or a form sends it. */
const FLAG_TEXTS = ['true', 'false', '1', '0', ''];

/** Marked as an address of the request's chain: checked as the chain's address routes check theirs. */
const filterAddress = (role: string) =>
  Type.Optional(
    Type.String({
      maxLength: 128,
      description: `${role}, an address of the chain and network, its checksum verified (EVM: 0x, EIP-55 when mixed case; Bitcoin: of the network X-Network names). ${EMPTY_MEANS_ABSENT}`,
      [ADDRESS_MARK]: ADDRESS_OF_THE_CHAIN,
    }),
  );

/**
 * A subscription as the API takes it (POST and PUT take the same body): the route validates it against
 * this schema, and the service reads it as the type the schema gives. `typesByChain` describes the
 * transfer types each served chain's `type` filter takes.
 */
export function webhookInputSchema(typesByChain: readonly string[]) {
  return Type.Object({
    url: Type.String({
      minLength: 1,
      maxLength: MAX_URL_LENGTH,
      description: 'http(s) URL that receives the notifications; private and local addresses are refused',
    }),
    from: filterAddress('Sender'),
    to: filterAddress('Receiver'),
    contractaddress: filterAddress('Token contract'),
    token_id: Type.Optional(
      Type.Union([Type.String({ pattern: '^[0-9A-Za-z._-]{0,80}$' }), Type.Integer({ minimum: 0 })], {
        description: `Token id (TRC10 asset id, NFT id). ${EMPTY_MEANS_ABSENT}`,
      }),
    ),
    comment: Type.Optional(
      Type.String({
        maxLength: MAX_COMMENT_LENGTH,
        description: `The comment a transfer must carry, exactly (case and spaces count), on chains whose transfers carry one (TON; elsewhere 422): how payments to one address are told apart. ${EMPTY_MEANS_ABSENT}`,
      }),
    ),
    type: Type.Optional(
      Type.String({
        maxLength: 16,
        description: `Transfer type, any case, per chain: ${typesByChain.join('; ')}. ${EMPTY_MEANS_ABSENT}`,
      }),
    ),
    confirmations: Type.Optional(
      Type.Union(
        [
          Type.Integer({ minimum: 0, maximum: MAX_CONFIRMATIONS }),
          Type.String({ pattern: `^([0-9]{0,3}|${MAX_CONFIRMATIONS})$` }),
        ],
        { description: `Blocks deep before notifying, 0 to ${MAX_CONFIRMATIONS} (default 0: on inclusion)` },
      ),
    ),
    notify_reverted: Type.Optional(
      Type.Union([Type.Boolean(), Type.String({ enum: FLAG_TEXTS })], {
        description: 'Also notify when a notified transfer leaves the chain in a reorg (default false)',
      }),
    ),
    notify_pending: Type.Optional(
      Type.Union([Type.Boolean(), Type.String({ enum: FLAG_TEXTS })], {
        description:
          'Also notify (event `pending`, `blocknumber` null) when a matching transfer is first seen unconfirmed, on chains with a mempool (Bitcoin); the `transfer` notification follows once it confirms. Default false; elsewhere 422.',
      }),
    ),
    retry: Type.Optional(
      Type.String({
        enum: ['none', 'backoff', ''],
        description:
          '`none` (default, as Chaingateway: a failed notification waits for a manual retry) or `backoff` (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; `Retry-After` honoured)',
      }),
    ),
  });
}

export type WebhookInput = Static<ReturnType<typeof webhookInputSchema>>;
