/**
 * What the gateway reads in a message body: a text comment, and the TEP-74 jetton messages. Bodies
 * arrive as base64 BOCs; the caller hands in the loaded @ton/core (ton-core.ts), so this module loads
 * nothing itself. A body that does not parse as the op it starts with reads as null: it is simply not
 * that message.
 */
import type { Cell, Slice } from '@ton/core';
import type { TonCore } from './ton-core.ts';

/** TEP-74's op codes, and the text comment's op 0. */
export const JETTON_OPS = {
  transfer: 0x0f8a7ea5,
  internalTransfer: 0x178d4519,
  transferNotification: 0x7362d09c,
  excesses: 0xd53276db,
  burn: 0x595f07bc,
  burnNotification: 0x7bdd97de,
} as const;
export const TEXT_COMMENT_OP = 0;

/** The jetton messages that carry TON only as gas or change: never a TON payment by themselves. */
export const JETTON_PLUMBING: ReadonlySet<number> = new Set(Object.values(JETTON_OPS));

/** An internal_transfer's fields: the jettons a wallet receives. */
export interface JettonInternalTransfer {
  queryId: bigint;
  amount: bigint;
  /** The sending owner's raw address; null where none is written (a mint may name none). */
  from: string | null;
  responseAddress: string | null;
  forwardTonAmount: bigint;
  /** The forward payload's text comment, where it holds one. */
  comment: string | null;
}

/** A transfer request a jetton wallet's owner sends it (op `transfer`): the jettons to send on. */
export interface JettonTransferRequest {
  queryId: bigint;
  amount: bigint;
  /** The receiving owner's raw address. */
  destination: string | null;
  responseDestination: string | null;
  forwardTonAmount: bigint;
  comment: string | null;
}

/** A base64 BOC's root cell; null when it does not parse. */
export function cellOf(core: TonCore, boc: string): Cell | null {
  try {
    return core.Cell.fromBase64(boc);
  } catch {
    return null;
  }
}

/** Runs a read of a slice; a read past its end (a body that is not this message) is null. */
function attempt<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/** The text of a comment slice: op 0 then UTF-8 in snake cells; null for any other body. */
function commentOf(slice: Slice): string | null {
  if (slice.remainingBits < 32 || slice.loadUint(32) !== TEXT_COMMENT_OP) return null;
  return slice.loadStringTail();
}

/** The text comment of a body (base64 BOC), or null. */
export function bodyComment(core: TonCore, boc: string | null): string | null {
  if (boc === null) return null;
  const cell = cellOf(core, boc);
  return cell === null ? null : attempt(() => commentOf(cell.beginParse()));
}

/** The raw address a slice holds next (`addr_std`); null for `addr_none`. */
function loadRaw(slice: Slice): string | null {
  const address = slice.loadMaybeAddress();
  return address === null ? null : address.toRawString();
}

/** An internal_transfer body (base64 BOC) read; null for any other body. */
export function jettonInternalTransfer(core: TonCore, boc: string | null): JettonInternalTransfer | null {
  if (boc === null) return null;
  const cell = cellOf(core, boc);
  if (cell === null) return null;
  return attempt(() => {
    const slice = cell.beginParse();
    if (slice.loadUint(32) !== JETTON_OPS.internalTransfer) return null;
    const queryId = slice.loadUintBig(64);
    const amount = slice.loadCoins();
    const from = loadRaw(slice);
    const responseAddress = loadRaw(slice);
    const forwardTonAmount = slice.loadCoins();
    return { queryId, amount, from, responseAddress, forwardTonAmount, comment: forwardComment(slice) };
  });
}

/** A jetton `transfer` body (base64 BOC) read; null for any other body. */
export function jettonTransferRequest(core: TonCore, boc: string | null): JettonTransferRequest | null {
  if (boc === null) return null;
  const cell = cellOf(core, boc);
  if (cell === null) return null;
  return attempt(() => {
    const slice = cell.beginParse();
    if (slice.loadUint(32) !== JETTON_OPS.transfer) return null;
    const queryId = slice.loadUintBig(64);
    const amount = slice.loadCoins();
    const destination = loadRaw(slice);
    const responseDestination = loadRaw(slice);
    slice.loadMaybeRef();
    const forwardTonAmount = slice.loadCoins();
    return {
      queryId,
      amount,
      destination,
      responseDestination,
      forwardTonAmount,
      comment: forwardComment(slice),
    };
  });
}

/** The comment of a forward payload (`Either Cell ^Cell`): in place, or in the reference it names. */
function forwardComment(slice: Slice): string | null {
  if (slice.remainingBits === 0) return null;
  const inReference = slice.loadBit();
  const payload = inReference ? slice.loadRef().beginParse() : slice;
  return attempt(() => commentOf(payload));
}

/** A get-method's address answer (a slice as a base64 BOC) as a raw address; null when it holds none. */
export function addressInSlice(core: TonCore, boc: string): string | null {
  const cell = cellOf(core, boc);
  return cell === null ? null : attempt(() => loadRaw(cell.beginParse()));
}

/** An address as a get-method argument: a slice holding it, as a base64 BOC. */
export function addressSlice(core: TonCore, raw: string): string {
  return core.beginCell().storeAddress(core.Address.parseRaw(raw)).endCell().toBoc().toString('base64');
}
