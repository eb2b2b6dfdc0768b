// A payment's id on TON is its trace's: the normalized hash of the external message the trace began with.
// These cover what the devnet never answers: a first transaction without `hash_norm`, one that is not in
// the block, one the indexer does not have, and a trace that began without an external message.
import { Address, beginCell, external } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { normalizedMessageHash } from '../../src/chains/ton/message-hash.ts';
import type { TonMessage, TonTransaction } from '../../src/chains/ton/toncenter.ts';
import { TraceIds } from '../../src/chains/ton/trace-ids.ts';

const WALLET = Address.parseRaw(`0:${'11'.repeat(32)}`);
const RECEIVER = `0:${'22'.repeat(32).toUpperCase()}`;
const BODY = beginCell().storeUint(0x7369676e, 32).storeUint(7, 64).endCell();

/** A hash (base64, as the indexer writes it) made of one byte repeated. */
const hash = (byte: number) => Buffer.alloc(32, byte).toString('base64');
const hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');

function message(fields: Partial<TonMessage>): TonMessage {
  return {
    hash: hash(0xee),
    hashNorm: null,
    source: null,
    destination: null,
    value: null,
    fwdFee: null,
    createdLt: null,
    createdAt: null,
    opcode: null,
    bounce: null,
    bounced: null,
    body: null,
    comment: null,
    ...fields,
  };
}

function transaction(fields: Partial<TonTransaction>): TonTransaction {
  return {
    account: WALLET.toRawString().toUpperCase(),
    hash: hash(1),
    traceId: null,
    lt: 1n,
    now: 1_700_000_000,
    mcBlockSeqno: 5,
    origStatus: 'active',
    endStatus: 'active',
    totalFees: 0n,
    aborted: false,
    computeSuccess: true,
    computeSkipped: false,
    exitCode: 0,
    actionSuccess: true,
    actionResultCode: 0,
    bouncePhase: false,
    blockRef: null,
    inMsg: null,
    outMsgs: [],
    raw: {},
    ...fields,
  };
}

/** The sender wallet's transaction: the trace's first, on the external message. */
const root = (inMsg: TonMessage | null) => transaction({ hash: hash(1), traceId: hash(1), inMsg });
/** The receiver's transaction in the same trace. */
const payment = transaction({
  account: RECEIVER,
  hash: hash(2),
  traceId: hash(1),
  inMsg: message({ source: WALLET.toRawString(), destination: RECEIVER, value: 5n }),
});

/** An indexer that has `known` transactions by hash, counting the reads. */
function indexer(known: TonTransaction[]) {
  const asked: string[] = [];
  return {
    asked,
    transactionByHash: async (wanted: string) => {
      asked.push(wanted);
      return known.find((tx) => hex(tx.hash) === wanted) ?? null;
    },
  };
}

describe("a TON payment's trace id", () => {
  it("is the first transaction's external message's normalized hash, for it and for the payment", async () => {
    const first = root(message({ destination: WALLET.toRawString(), hashNorm: hash(9), body: null }));
    const node = indexer([]);
    const traces = new TraceIds(node);
    expect(await traces.of(first)).toBe(hex(hash(9)));
    expect(await traces.of(payment, new Map([[hex(first.hash), first]]))).toBe(hex(hash(9)));
    expect(node.asked).toEqual([]);
  });

  it('is computed from the body where the indexer gives no hash_norm, as a send computes its txid', async () => {
    const sent = external({ to: WALLET, body: BODY });
    const first = root(message({ destination: WALLET.toRawString(), body: BODY.toBoc().toString('base64') }));
    expect(await new TraceIds(indexer([])).of(first)).toBe(normalizedMessageHash(sent, beginCell()));
  });

  it('asks the indexer for a first transaction in another block once, then remembers it', async () => {
    const first = root(message({ destination: WALLET.toRawString(), hashNorm: hash(9) }));
    const node = indexer([first]);
    const traces = new TraceIds(node);
    expect(await traces.of(payment)).toBe(hex(hash(9)));
    expect(await traces.of(payment)).toBe(hex(hash(9)));
    expect(node.asked).toEqual([hex(hash(1))]);
  });

  it("falls back to the payment's own hash for a trace that began without an external message", async () => {
    const tickTock = root(null);
    const internalFirst = root(message({ source: RECEIVER, destination: WALLET.toRawString(), value: 1n }));
    for (const first of [tickTock, internalFirst]) {
      const traces = new TraceIds(indexer([first]));
      expect(await traces.of(payment)).toBe(hex(payment.hash));
    }
    expect(await new TraceIds(indexer([])).of({ ...payment, traceId: null })).toBe(hex(payment.hash));
  });

  it('falls back to its own hash while the indexer lacks the first transaction, and asks again later', async () => {
    const node = indexer([]);
    const traces = new TraceIds(node);
    expect(await traces.of(payment)).toBe(hex(payment.hash));
    expect(await traces.of(payment)).toBe(hex(payment.hash));
    expect(node.asked).toHaveLength(2);
  });
});
