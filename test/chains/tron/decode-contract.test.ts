import { describe, expect, it } from 'vitest';
import { toHexAddress } from '../../../src/chains/tron/address.ts';
import {
  contractStatus,
  decodeContract,
  decodeTransfer,
  MalformedContractError,
} from '../../../src/chains/tron/decode-contract.ts';

const OWNER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const RECEIVER = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
const OPERATOR = 'TTd9qHyjqiUkfTxe3gotbuTMpjU8LEbpkN';
const TOKEN = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

/** A transaction JSON with one contract, as java-tron prints it (hex addresses unless visible). */
function tx(type: string, value: Record<string, unknown>, visible = false) {
  return { visible, raw_data: { contract: [{ type, parameter: { value } }] } };
}

/** An ABI word holding an address: the 20 account bytes, left-padded (TronWeb writes the 41 byte in). */
const word = (address: string, prefix = '000000000000000000000000') =>
  prefix + toHexAddress(address).slice(2);
const uint = (value: bigint) => value.toString(16).padStart(64, '0');
const call = (owner: string, data: string) =>
  tx('TriggerSmartContract', {
    owner_address: toHexAddress(owner),
    contract_address: toHexAddress(TOKEN),
    data,
  });

function refusal(run: () => unknown): MalformedContractError {
  try {
    run();
  } catch (error) {
    if (error instanceof MalformedContractError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('decodeContract', () => {
  it('reads a TransferContract in sun, hex or base58 addresses', () => {
    const value = {
      owner_address: toHexAddress(OWNER),
      to_address: toHexAddress(RECEIVER),
      amount: 1_500_000,
    };
    expect(decodeContract(tx('TransferContract', value))).toEqual({
      type: 'TRX',
      from: OWNER,
      to: RECEIVER,
      amount: 1_500_000n,
    });
    const visible = { owner_address: OWNER, to_address: RECEIVER, amount: '9007199254740993' };
    expect(decodeContract(tx('TransferContract', visible, true))).toMatchObject({
      amount: 9_007_199_254_740_993n,
    });
  });

  it('reads a TransferAssetContract: the asset id is hex text, or plain text when visible', () => {
    const value = {
      owner_address: toHexAddress(OWNER),
      to_address: toHexAddress(RECEIVER),
      asset_name: Buffer.from('1004920').toString('hex'),
      amount: 42,
    };
    const expected = { type: 'TRC10', from: OWNER, to: RECEIVER, tokenId: '1004920', amount: 42n };
    expect(decodeContract(tx('TransferAssetContract', value))).toEqual(expected);
    const visible = { owner_address: OWNER, to_address: RECEIVER, asset_name: '1004920', amount: 42 };
    expect(decodeContract(tx('TransferAssetContract', visible, true))).toEqual(expected);
  });

  it('reads transfer(address,uint256) as a TRC20 transfer, whatever the address word carries above', () => {
    for (const prefix of ['000000000000000000000000', '000000000000000000000041']) {
      const data = `a9059cbb${word(RECEIVER, prefix)}${uint(2n ** 200n)}`;
      expect(decodeContract(call(OWNER, data))).toEqual({
        type: 'TRC20',
        from: OWNER,
        to: RECEIVER,
        contract: TOKEN,
        amount: 2n ** 200n,
      });
    }
  });

  it('reads transferFrom and both safeTransferFrom as TRC721: from is the token holder', () => {
    const args = `${word(OWNER)}${word(RECEIVER)}${uint(7n)}`;
    const bytesArg = `${uint(128n)}${uint(0n)}`;
    for (const data of [`23b872dd${args}`, `42842e0e${args}`, `b88d4fde${args}${bytesArg}`]) {
      expect(decodeContract(call(OPERATOR, data.toUpperCase()))).toEqual({
        type: 'TRC721',
        from: OWNER,
        to: RECEIVER,
        contract: TOKEN,
        tokenId: 7n,
      });
    }
  });

  it('leaves other calls, short call data and other contracts undecoded', () => {
    const other = { type: 'CONTRACT', from: OWNER, to: TOKEN, contract: TOKEN };
    expect(decodeContract(call(OWNER, `095ea7b3${word(RECEIVER)}${uint(1n)}`))).toEqual(other);
    expect(decodeContract(call(OWNER, `a9059cbb${word(RECEIVER)}`))).toEqual(other);
    expect(decodeContract(call(OWNER, 'not hex'))).toEqual(other);
    const freeze = tx('FreezeBalanceV2Contract', { owner_address: toHexAddress(OWNER), frozen_balance: 1 });
    expect(decodeContract(freeze)).toEqual({
      type: 'OTHER',
      contractType: 'FreezeBalanceV2Contract',
      from: OWNER,
      to: null,
    });
    expect(decodeContract({ raw_data: {} })).toEqual({
      type: 'OTHER',
      contractType: 'UNKNOWN',
      from: null,
      to: null,
    });
  });

  it('refuses an amount that is not a whole number, and a TRC10 id that is not one', () => {
    for (const amount of [undefined, null, 'null', 1.5, -1, '1e3', {}, '12345678901234567890']) {
      const trx = refusal(() => decodeContract(tx('TransferContract', { amount })));
      expect(trx.message).toBe('The TransferContract amount must be a whole number of sun.');
      const asset = { asset_name: Buffer.from('1004920').toString('hex'), amount };
      expect(refusal(() => decodeContract(tx('TransferAssetContract', asset))).message).toBe(
        'The TransferAssetContract amount must be a whole number.',
      );
    }
    for (const [name, visible] of [
      ['1004920', false],
      ['00', false],
      [Buffer.from('TRX').toString('hex'), false],
      ['BitTorrent', true],
    ] as const) {
      const asset = tx('TransferAssetContract', { asset_name: name, amount: 1 }, visible);
      expect(refusal(() => decodeContract(asset)).message, name).toBe(
        'The TransferAssetContract asset_name must be a TRC10 token id.',
      );
    }
  });
});

describe('decodeTransfer (the lookup of a transaction the node returned)', () => {
  it('names what the first contract moves, never refusing', () => {
    const trx = tx('TransferContract', {
      owner_address: toHexAddress(OWNER),
      to_address: toHexAddress(RECEIVER),
      amount: 1_500_000,
    });
    expect(decodeTransfer(trx)).toEqual({
      type: 'Tron',
      from: OWNER,
      to: RECEIVER,
      amount: 1_500_000n,
      contractaddress: null,
      tokenid: null,
    });
    const asset = tx('TransferAssetContract', {
      asset_name: Buffer.from('1004920').toString('hex'),
      amount: 7,
    });
    expect(decodeTransfer(asset)).toMatchObject({ type: 'TRC10', tokenid: '1004920', amount: 7n });
    const trc20 = call(OWNER, `a9059cbb${word(RECEIVER)}${uint(25n)}`);
    expect(decodeTransfer(trc20)).toMatchObject({
      type: 'TRC20',
      from: OWNER,
      to: RECEIVER,
      amount: 25n,
      contractaddress: TOKEN,
    });
    const nft = call(OPERATOR, `23b872dd${word(OWNER)}${word(RECEIVER)}${uint(9n)}`);
    expect(decodeTransfer(nft)).toMatchObject({
      type: 'TRC721',
      from: OWNER,
      to: RECEIVER,
      amount: 1n,
      tokenid: '9',
    });
    expect(decodeTransfer(call(OWNER, 'deadbeef'))).toMatchObject({
      type: 'CONTRACT',
      to: null,
      contractaddress: TOKEN,
    });
    expect(decodeTransfer(tx('FreezeBalanceV2Contract', {}))).toMatchObject({
      type: 'FreezeBalanceV2',
      from: null,
    });
    expect(decodeTransfer({})).toMatchObject({ type: 'UNKNOWN' });
  });
});

describe('contractStatus', () => {
  it("reads the node's contract result, PENDING before there is one", () => {
    expect(contractStatus({ ret: [{ contractRet: 'SUCCESS' }] })).toBe('SUCCESS');
    expect(contractStatus({ ret: [{ contractRet: 'REVERT' }] })).toBe('REVERT');
    expect(contractStatus({ ret: [{}] })).toBe('PENDING');
    expect(contractStatus({})).toBe('PENDING');
  });
});
