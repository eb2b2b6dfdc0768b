/**
 * The id of a send: the normalized hash of its external message (TEP-467). The hash of the message as
 * sent changes with fields a relay may rewrite (the source, the import fee, the state init); the
 * normalized form keeps only the destination and the body, so the id is known before broadcasting and is
 * the one toncenter answers (`message_hash_norm`) and finds transactions by.
 *
 * The caller hands in an empty builder (`beginCell()`), so the follower, which loads @ton/core only when
 * it first reads a body, can use this module without loading the library at start.
 */
import type { Address, Builder, Cell, Message } from '@ton/core';

/** The normalized hash of an external-in message to `destination` with `body`, as 64 lower-case hex. */
export function normalizedHash(empty: Builder, destination: Address, body: Cell): string {
  return empty
    .storeUint(2, 2) // ext_in_msg_info$10
    .storeUint(0, 2) // src: addr_none
    .storeAddress(destination)
    .storeCoins(0) // import_fee
    .storeBit(false) // no state init
    .storeBit(true) // the body in a reference
    .storeRef(body)
    .endCell()
    .hash()
    .toString('hex');
}

/** The normalized hash of an external-in message, as 64 lower-case hex; throws for any other message. */
export function normalizedMessageHash(message: Message, empty: Builder): string {
  if (message.info.type !== 'external-in')
    throw new Error('only an external-in message has a normalized hash');
  return normalizedHash(empty, message.info.dest, message.body);
}
