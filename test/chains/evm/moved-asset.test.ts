import { encodeFunctionData, getAddress, parseAbi } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  historyType,
  lookupAmount,
  movedAsset,
  nodeTransactionFields,
} from '../../../src/chains/evm/moved-asset.ts';

const FROM = getAddress('0x1111111111111111111111111111111111111111');
const TO = getAddress('0x2222222222222222222222222222222222222222');
const TOKEN = getAddress('0x3333333333333333333333333333333333333333');
const abi = parseAbi([
  'function transfer(address to, uint256 amount)',
  'function safeTransferFrom(address from, address to, uint256 id)',
]);

describe('movedAsset', () => {
  it('reads a coin payment, a token transfer and an NFT transfer, in the chain names', async () => {
    const noDecimals = async () => null;
    const payment = nodeTransactionFields({
      from: FROM.toLowerCase(),
      to: TO,
      value: '0xde0b6b3a7640000',
      input: '0x',
    });
    const coin = await movedAsset('bsc', payment, noDecimals);
    expect(coin).toMatchObject({ kind: 'native', type: 'BNB', from: FROM, to: TO, units: 10n ** 18n });
    expect(lookupAmount(coin)).toBe('1.000000000000000000');
    expect(historyType(coin)).toBe('default');

    const input = encodeFunctionData({ abi, functionName: 'transfer', args: [TO, 2_500_000n] });
    const token = await movedAsset('ethereum', { from: FROM, to: TOKEN, value: 0n, input }, async () => 6);
    expect(token).toMatchObject({
      kind: 'fungible',
      type: 'ERC20',
      from: FROM,
      to: TO,
      contract: TOKEN,
      decimals: 6,
    });
    expect(lookupAmount(token)).toBe('2.500000');
    const unknown = await movedAsset('ethereum', { from: FROM, to: TOKEN, value: 0n, input }, noDecimals);
    expect(lookupAmount(unknown)).toBe('2500000');

    const nftInput = encodeFunctionData({ abi, functionName: 'safeTransferFrom', args: [FROM, TO, 7n] });
    const nft = await movedAsset('ethereum', { from: TO, to: TOKEN, value: 0n, input: nftInput }, noDecimals);
    expect(nft).toMatchObject({ kind: 'nft', type: 'ERC721', from: FROM, to: TO, tokenId: 7n, units: 1n });

    const call = await movedAsset(
      'ethereum',
      { from: FROM, to: TOKEN, value: 5n, input: '0xdeadbeef' },
      noDecimals,
    );
    expect(call).toMatchObject({ kind: 'other', units: 5n });
    expect(historyType(call)).toBe('raw');
  });
});
