import { Transaction, Wallet } from 'ethers';
import { encodeFunctionData, getAddress, parseAbi, parseTransaction } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  type ClientTransaction,
  clientTransaction,
  type EvmTxFields,
  type UnsignedEvmTransaction,
  unsignedTransaction,
} from '../../../src/chains/evm/transactions.ts';
import { decodeTransferCall } from '../../../src/chains/evm/transfer-calls.ts';

/** The transaction a build hands out, signed as JSON by ethers v6 and viem, without a node. */
const KEY = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
const FROM = privateKeyToAccount(KEY).address;
const TO = getAddress('0x00000000000000000000000000000000deadbeef');
const TOKEN_ABI = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
]);

/** Fields without their two parties, one fee model at a time (Omit alone would merge the models). */
type WithoutParties<Fields> = Fields extends unknown ? Omit<Fields, 'from' | 'to'> : never;

/** A build from FROM to TO with the given fields, as the gateway makes it. */
const builtTransfer = (fields: WithoutParties<EvmTxFields>) =>
  unsignedTransaction({ from: FROM, to: TO, ...fields });

/**
 * Both libraries' signatures of `tx` as it comes out of JSON: they must be the same bytes, and sign what
 * the build serialized.
 */
async function signedByBoth(tx: ClientTransaction, built: UnsignedEvmTransaction) {
  const json = JSON.parse(JSON.stringify(tx));
  const [byEthers, byViem] = await Promise.all([
    new Wallet(KEY).signTransaction(json),
    privateKeyToAccount(KEY).signTransaction(json),
  ]);
  expect(byEthers).toBe(byViem);
  expect(Transaction.from(byEthers).unsignedSerialized).toBe(built.serialized);
  return byViem;
}

describe('clientTransaction', () => {
  it('keeps wei above 2^53 exact and signs into the serialized EIP-1559 transaction, zeros included', async () => {
    const built = await builtTransfer({
      chainId: 42161,
      nonce: 0,
      value: 2n ** 70n + 1n,
      data: '0x',
      gas: 21_000n,
      type: 'eip1559',
      maxFeePerGas: 20_000_000n,
      maxPriorityFeePerGas: 0n,
    });
    const tx = clientTransaction(built);
    expect(tx).toEqual({
      chainId: 42161,
      nonce: 0,
      from: FROM,
      to: TO,
      value: (2n ** 70n + 1n).toString(),
      data: '0x',
      gas: '21000',
      gasLimit: '21000',
      maxFeePerGas: '20000000',
      maxPriorityFeePerGas: 0,
    });
    await signedByBoth(tx, built);
  });

  it('marks a legacy transaction type 0, so ethers does not sign it as EIP-2930; a zero price stays 0', async () => {
    const built = await builtTransfer({
      chainId: 56,
      nonce: 7,
      value: 0n,
      data: '0xcafe',
      gas: 60_000n,
      type: 'legacy',
      gasPrice: 0n,
    });
    const tx = clientTransaction(built);
    expect(tx).toMatchObject({ type: 0, value: 0, gasPrice: 0 });
    const signed = await signedByBoth(tx, built);
    expect(Transaction.from(signed).type).toBe(0);
    expect(parseTransaction(signed).chainId).toBe(56);
  });
});

describe('decodeTransferCall', () => {
  it('reads an ERC20 transfer, a memo after it changing nothing', () => {
    const call = encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [TO, 2n ** 80n] });
    const expected = { standard: 'fungible', to: TO, units: 2n ** 80n };
    expect(decodeTransferCall(call)).toEqual(expected);
    expect(decodeTransferCall(`${call}cafe`)).toEqual(expected);
    expect(decodeTransferCall(call.slice(0, -2))).toBeNull();
  });

  it('reads an ERC721 safeTransferFrom with data, checksumming the parties', () => {
    const call = encodeFunctionData({
      abi: TOKEN_ABI,
      functionName: 'safeTransferFrom',
      args: [FROM, TO, 42n, '0x01'],
    });
    expect(decodeTransferCall(call.toUpperCase().replace('0X', '0x'))).toEqual({
      standard: 'nft',
      from: FROM,
      to: TO,
      tokenId: 42n,
    });
  });

  it('reads nothing into a plain payment or another call', () => {
    expect(decodeTransferCall('0x')).toBeNull();
    expect(decodeTransferCall('0x095ea7b3')).toBeNull();
    expect(decodeTransferCall('not hex')).toBeNull();
  });
});
