import { describe, expect, it } from 'vitest';
import { TronBroadcastError, TronNodeError } from '../../../src/chains/tron/errors.ts';
import {
  decodeNodeText,
  nodeErrorFrom,
  readBroadcastResponse,
  stripJavaClass,
} from '../../../src/chains/tron/node-messages.ts';
import http from '../../vectors/tron_http_responses.json' with { type: 'json' };
import vectors from '../../vectors/tron_vectors.json' with { type: 'json' };

const broadcast = http.broadcasttransaction;
const TXID = 'ab'.repeat(32);

describe('broadcast answers', () => {
  it('real SIGERROR capture: hex message decoded to UTF-8', () => {
    const outcome = readBroadcastResponse(broadcast.sigerror_captured, broadcast.sigerror_captured.txid);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toBeInstanceOf(TronBroadcastError);
    expect(outcome.error.code).toBe('SIGERROR');
    expect(outcome.error.message).toBe(broadcast.sigerror_captured_decoded_message);
    expect(outcome.error.apiMessage).toBe('Validate signature error: miss sig or contract');
    expect(outcome.error.txid).toBe(broadcast.sigerror_captured.txid);
    expect(outcome.error.status).toBe(422);
  });

  it('insufficient balance: full text kept, documented short form as apiMessage', () => {
    const body = { ...broadcast.contract_validate_error_balance, txid: TXID };
    const outcome = readBroadcastResponse(body, TXID);
    if (outcome.ok) throw new Error('expected a failure');
    expect(outcome.error.code).toBe('CONTRACT_VALIDATE_ERROR');
    expect(outcome.error.message).toBe(broadcast.contract_validate_error_balance_decoded);
    expect(outcome.error.apiMessage).toBe('balance is not sufficient');
  });

  it('wrong-signer vector: SIGERROR with the "not contained of permission" text (visible=true plain text)', () => {
    const negative = vectors.signed.find((v) => v.name.startsWith('NEGATIVE'))!;
    const body = (negative as { expected_broadcast_response_visible_true: Record<string, string> })
      .expected_broadcast_response_visible_true;
    const outcome = readBroadcastResponse(body, negative.txID);
    if (outcome.ok) throw new Error('expected a failure');
    expect(outcome.error.code).toBe('SIGERROR');
    expect(outcome.error.apiMessage).toMatch(
      /^Validate signature error: [0-9a-f]+ is signed by TDzm1tCXM2YS1PDa3GoXSvxdy4AgwVbBPE but it is not contained of permission\.$/,
    );
  });

  it('success, as the node prints it and as the docs print it', () => {
    expect(readBroadcastResponse({ result: true, txid: TXID }, TXID)).toEqual({ ok: true, txid: TXID });
    expect(readBroadcastResponse(broadcast.success_as_docs_print, TXID)).toEqual({
      ok: true,
      txid: broadcast.success_as_docs_print.txid,
    });
  });

  it('DUP_TRANSACTION_ERROR for the transaction just sent counts as success; for another id it does not', () => {
    const dup = (txid: string) => ({
      code: 'DUP_TRANSACTION_ERROR',
      txid,
      message: Buffer.from('Dup transaction.').toString('hex'),
    });
    expect(readBroadcastResponse(dup(TXID), TXID)).toEqual({ ok: true, txid: TXID });
    const other = readBroadcastResponse(dup('cd'.repeat(32)), TXID);
    expect(other.ok).toBe(false);
    if (!other.ok) expect(other.error.message).toBe('Dup transaction.');
  });

  it('codes without a message and servlet errors', () => {
    const busy = readBroadcastResponse({ code: 'SERVER_BUSY', txid: TXID }, TXID);
    if (busy.ok) throw new Error('expected a failure');
    expect(busy.error.code).toBe('SERVER_BUSY');
    expect(busy.error.message).toBe('SERVER_BUSY');
    const servlet = readBroadcastResponse({ Error: 'class java.lang.NullPointerException : null' }, TXID);
    if (servlet.ok) throw new Error('expected a failure');
    expect(servlet.error.code).toBe('OTHER_ERROR');
    expect(servlet.error.message).toBe('NullPointerException');
  });

  it('every message template of Wallet.broadcastTransaction round-trips through hex', () => {
    for (const [code, text] of [
      ['TAPOS_ERROR', 'Tapos check error.'],
      ['TRANSACTION_EXPIRATION_ERROR', 'Transaction expired'],
      ['BANDWITH_ERROR', 'Account resource insufficient error.'],
      ['CONTRACT_EXE_ERROR', 'Contract execute error : REVERT opcode executed'],
    ] as const) {
      const outcome = readBroadcastResponse(
        { code, txid: TXID, message: Buffer.from(text).toString('hex') },
        TXID,
      );
      if (outcome.ok) throw new Error('expected a failure');
      expect([outcome.error.code, outcome.error.message]).toEqual([code, text]);
    }
  });
});

describe('builder and trigger errors', () => {
  it.each(Object.entries(http.createtransaction.errors))(
    'createtransaction %s: Java class removed',
    (_k, body) => {
      const error = nodeErrorFrom(body)!;
      expect(error).toBeInstanceOf(TronNodeError);
      expect(error.message).toBe(
        body.Error.replace('class org.tron.core.exception.ContractValidateException : ', ''),
      );
      expect(error.message).not.toMatch(/^class /);
    },
  );

  it('insufficient balance keeps the node text and gives the documented apiMessage', () => {
    const error = nodeErrorFrom(http.createtransaction.errors.insufficient_balance)!;
    expect(error.message).toBe('Validate TransferContract error, balance is not sufficient.');
    expect(error.apiMessage).toBe('balance is not sufficient');
  });

  it('real delegateresource and freezebalancev2 errors', () => {
    expect(nodeErrorFrom(http.delegateresource.real_error_response)!.message).toBe(
      'delegateBalance must be less than or equal to available FreezeEnergyV2 balance',
    );
    expect(nodeErrorFrom(http.freezebalancev2.errors.gt_balance)!.apiMessage).toBe(
      'frozenBalance must be less than or equal to accountBalance',
    );
  });

  it('TransactionExtention result errors, plain or hex, with the code kept', () => {
    const plain = nodeErrorFrom(http.triggersmartcontract.errors.no_contract)!;
    expect([plain.code, plain.message]).toEqual([
      'CONTRACT_VALIDATE_ERROR',
      'No contract or not a valid smart contract',
    ]);
    const missing = nodeErrorFrom(http.triggersmartcontract.errors.missing_owner)!;
    expect([missing.code, missing.message]).toEqual(['OTHER_ERROR', "owner_address isn't set."]);
    const hex = nodeErrorFrom({
      result: {
        code: 'CONTRACT_VALIDATE_ERROR',
        message: Buffer.from('Smart contract is not exist.').toString('hex'),
      },
    })!;
    expect(hex.message).toBe('Smart contract is not exist.');
  });

  it('no error in successful answers', () => {
    expect(nodeErrorFrom(http.createtransaction.response)).toBeNull();
    expect(nodeErrorFrom(http.triggersmartcontract.response)).toBeNull();
    expect(nodeErrorFrom(http.freezebalancev2.response)).toBeNull();
    expect(nodeErrorFrom({})).toBeNull();
  });

  it('decodes hex only when it is text', () => {
    expect(decodeNodeText('526576657274564d')).toBe('RevertVM');
    expect(decodeNodeText('0001')).toBe('0001');
    expect(decodeNodeText('REVERT opcode executed')).toBe('REVERT opcode executed');
    expect(stripJavaClass('class org.tron.core.exception.ContractValidateException : msg')).toBe('msg');
  });
});
