import * as core from '@ton/core';
import { Address, beginCell, comment } from '@ton/core';
import { describe, expect, it } from 'vitest';
import {
  addressInSlice,
  addressSlice,
  bodyComment,
  JETTON_OPS,
  jettonInternalTransfer,
} from '../../src/chains/ton/message-bodies.ts';

const SENDER = '0:9e88a7a0cd2fa9a4a0d83f41daa773364b295d2855394419314df2ea91fee8fe';
const RESPONSE = '0:1111111111111111111111111111111111111111111111111111111111111111';
const boc = (cell: core.Cell) => cell.toBoc().toString('base64');

function internalTransfer(payload: (builder: core.Builder) => core.Builder): string {
  const head = beginCell()
    .storeUint(JETTON_OPS.internalTransfer, 32)
    .storeUint(7, 64)
    .storeCoins(1_500_000n)
    .storeAddress(Address.parseRaw(SENDER))
    .storeAddress(Address.parseRaw(RESPONSE))
    .storeCoins(1n);
  return boc(payload(head).endCell());
}

describe('TON message bodies', () => {
  it('reads a text comment, long ones across snake cells, and nothing else', () => {
    expect(bodyComment(core, boc(comment('order 42')))).toBe('order 42');
    const long = 'ü'.repeat(300);
    expect(bodyComment(core, boc(comment(long)))).toBe(long);
    expect(bodyComment(core, boc(beginCell().storeUint(0x12345678, 32).endCell()))).toBeNull();
    expect(bodyComment(core, boc(beginCell().endCell()))).toBeNull();
    expect(bodyComment(core, 'not a boc')).toBeNull();
    expect(bodyComment(core, null)).toBeNull();
  });

  it("reads an internal_transfer with its forward payload's comment, in place or in a reference", () => {
    const inReference = internalTransfer((b) => b.storeBit(1).storeRef(comment('invoice 9')));
    expect(jettonInternalTransfer(core, inReference)).toEqual({
      queryId: 7n,
      amount: 1_500_000n,
      from: SENDER,
      responseAddress: RESPONSE,
      forwardTonAmount: 1n,
      comment: 'invoice 9',
    });
    const inPlace = internalTransfer((b) => b.storeBit(0).storeUint(0, 32).storeStringTail('inline'));
    expect(jettonInternalTransfer(core, inPlace)?.comment).toBe('inline');
    const noPayload = internalTransfer((b) => b.storeBit(0));
    expect(jettonInternalTransfer(core, noPayload)?.comment).toBeNull();
    expect(jettonInternalTransfer(core, noPayload)?.amount).toBe(1_500_000n);
  });

  it('takes another op, or a body cut short, as no internal_transfer', () => {
    expect(jettonInternalTransfer(core, boc(comment('hi')))).toBeNull();
    const cut = boc(beginCell().storeUint(JETTON_OPS.internalTransfer, 32).storeUint(1, 8).endCell());
    expect(jettonInternalTransfer(core, cut)).toBeNull();
  });

  it('carries addresses in and out of get-method slices', () => {
    expect(addressInSlice(core, addressSlice(core, SENDER))).toBe(SENDER);
    expect(addressInSlice(core, boc(beginCell().storeUint(0, 2).endCell()))).toBeNull();
  });
});
