// Messages as the indexer sees them: the exact cells a transaction holds (their hashes are the message
// hashes), the normalized hash of an external message (TEP-467), op codes and text comments.
import { Address, beginCell, type Cell, Dictionary, type Message } from '@ton/core';

/** The in_msg and out_msgs cells of a transaction cell, as stored (re-serializing could change their hashes). */
export function messageCells(txCell: Cell): { inMsg: Cell | null; outMsgs: Cell[] } {
  const ref = txCell.refs[0];
  if (!ref) return { inMsg: null, outMsgs: [] };
  const s = ref.beginParse();
  const inMsg = s.loadMaybeRef();
  const outs = s.loadDict(Dictionary.Keys.Uint(15), Dictionary.Values.Cell());
  return { inMsg, outMsgs: outs.keys().flatMap((k) => outs.get(k) ?? []) };
}

/**
 * TEP-467: the hash of an external-in message with its source and import fee cleared, no state init, and
 * the body in a reference; what wallets and explorers track a sent message by, since it does not change
 * with how the sender laid the message out.
 */
export function normalizedExternalHash(message: Message): Buffer | null {
  if (message.info.type !== 'external-in') return null;
  return beginCell()
    .storeUint(0b10, 2) // ext_in_msg_info$10
    .storeUint(0, 2) // src: addr_none
    .storeAddress(message.info.dest)
    .storeCoins(0) // import_fee
    .storeBit(false) // init: nothing
    .storeBit(true) // body: in a reference
    .storeRef(message.body)
    .endCell()
    .hash();
}

/** The body's leading 32-bit op code as the indexer writes it ("0x0f8a7ea5"), or null when shorter. */
export function opcodeOf(body: Cell): string | null {
  const s = body.beginParse();
  if (s.remainingBits < 32) return null;
  return `0x${s.loadUint(32).toString(16).padStart(8, '0')}`;
}

/** A text comment (op 0, then UTF-8 in snake cells), or null when the body is not one. */
export function textComment(body: Cell): string | null {
  const s = body.beginParse();
  if (s.remainingBits < 32 || s.loadUint(32) !== 0) return null;
  const chunks: Buffer[] = [];
  let part = s;
  for (;;) {
    if (part.remainingBits % 8 !== 0) return null;
    chunks.push(part.loadBuffer(part.remainingBits / 8));
    if (part.remainingRefs === 0) break;
    part = part.loadRef().beginParse();
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    return null;
  }
}

/** A raw address as the indexer writes it: "0:ABCD…", upper-case hex. */
export function rawAddress(address: Address): string {
  return `${address.workChain}:${address.hash.toString('hex').toUpperCase()}`;
}

/** Any address form the API takes (raw, bounceable, non-bounceable, base64url), or null. */
export function parseAnyAddress(text: string): Address | null {
  try {
    return Address.parse(text.trim());
  } catch {
    return null;
  }
}
