/**
 * The id of a send: the normalized hash of its external message (TEP-467). The hash of the message as
 * sent changes with fields a relay may rewrite (the source, the import fee, the state init); the
 * normalized form keeps only the destination and the body, so the id is known before broadcasting and is
 * the one toncenter answers (`message_hash_norm`) and finds transactions by.
 */
import { beginCell, type Message } from '@ton/core';

/** The normalized hash of an external-in message, as 64 lower-case hex; throws for any other message. */
export function normalizedMessageHash(message: Message): string {
  if (message.info.type !== 'external-in')
    throw new Error('only an external-in message has a normalized hash');
  return beginCell()
    .storeUint(2, 2) // ext_in_msg_info$10
    .storeUint(0, 2) // src: addr_none
    .storeAddress(message.info.dest)
    .storeCoins(0) // import_fee
    .storeBit(false) // no state init
    .storeBit(true) // the body in a reference
    .storeRef(message.body)
    .endCell()
    .hash()
    .toString('hex');
}
