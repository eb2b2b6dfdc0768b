import { encodeFunctionData, pad, parseAbi, toHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { TRANSFER_TOPIC } from '../../../src/chains/erc20-events.ts';
import { expectedTransfer, transactionOutcome } from '../../../src/chains/evm/outcome.ts';

const ABI = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 value)',
  'function safeTransferFrom(address from, address to, uint256 tokenId)',
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
  'function approve(address spender, uint256 value) returns (bool)',
]);

const token = '0x00000000000000000000000000000000000000aa';
const sender = '0x00000000000000000000000000000000000000a1';
const holder = '0x00000000000000000000000000000000000000b2';
const receiver = '0x00000000000000000000000000000000000000c3';
const topic = (address: string) => pad(address as `0x${string}`, { size: 32 });

const tx = (input: string, to: string | null = token) => ({ from: sender, to, input, value: '0x0' });
const mined = (logs: unknown[], status = '0x1') => ({ status, logs });
const transferLog = (from: string, to: string, tokenId?: bigint, address = token) => ({
  address,
  topics: [
    TRANSFER_TOPIC,
    topic(from),
    topic(to),
    ...(tokenId === undefined ? [] : [toHex(tokenId, { size: 32 })]),
  ],
  data: tokenId === undefined ? toHex(5n, { size: 32 }) : '0x',
});

const erc20Transfer = encodeFunctionData({ abi: ABI, functionName: 'transfer', args: [receiver, 5n] });
const transferFrom = encodeFunctionData({
  abi: ABI,
  functionName: 'transferFrom',
  args: [holder, receiver, 9n],
});
const safeTransfer = encodeFunctionData({
  abi: ABI,
  functionName: 'safeTransferFrom',
  args: [holder, receiver, 9n],
});
const safeTransferWithData = encodeFunctionData({
  abi: ABI,
  functionName: 'safeTransferFrom',
  args: [holder, receiver, 9n, '0xbeef'],
});

describe('transactionOutcome', () => {
  it('is PENDING without a receipt and FAILED when reverted', () => {
    expect(transactionOutcome(tx('0x'), null)).toEqual({ status: 'PENDING', reason: null });
    expect(transactionOutcome(tx('0x'), mined([], '0x0'))).toEqual({ status: 'FAILED', reason: 'reverted' });
    // Pre-Byzantium: a state root, no status.
    expect(transactionOutcome(tx('0x'), { root: '0x12', logs: [] }).status).toBe('SUCCESS');
  });

  it('needs the Transfer event of the called contract for ERC20 transfer', () => {
    expect(transactionOutcome(tx(erc20Transfer), mined([transferLog(sender, receiver)])).status).toBe(
      'SUCCESS',
    );
    expect(transactionOutcome(tx(erc20Transfer), mined([])).status).toBe('FAILED');
    // Another contract's event, or one naming someone else, is not this transfer.
    const elsewhere = transferLog(sender, receiver, undefined, '0x00000000000000000000000000000000000000dd');
    expect(transactionOutcome(tx(erc20Transfer), mined([elsewhere])).status).toBe('FAILED');
    expect(transactionOutcome(tx(erc20Transfer), mined([transferLog(sender, holder)])).status).toBe('FAILED');
    expect(transactionOutcome(tx(erc20Transfer), mined([transferLog(sender, receiver, 5n)])).status).toBe(
      'FAILED',
    );
  });

  it('needs the token id for ERC721 and accepts either shape for transferFrom', () => {
    for (const input of [safeTransfer, safeTransferWithData]) {
      expect(transactionOutcome(tx(input), mined([transferLog(holder, receiver, 9n)])).status).toBe(
        'SUCCESS',
      );
      expect(transactionOutcome(tx(input), mined([transferLog(holder, receiver, 8n)])).status).toBe('FAILED');
      expect(transactionOutcome(tx(input), mined([transferLog(holder, receiver)])).status).toBe('FAILED');
    }
    expect(transactionOutcome(tx(transferFrom), mined([transferLog(holder, receiver, 9n)])).status).toBe(
      'SUCCESS',
    );
    expect(transactionOutcome(tx(transferFrom), mined([transferLog(holder, receiver)])).status).toBe(
      'SUCCESS',
    );
    expect(transactionOutcome(tx(transferFrom), mined([])).status).toBe('FAILED');
  });

  it('leaves other transactions to the receipt status', () => {
    const approve = encodeFunctionData({ abi: ABI, functionName: 'approve', args: [receiver, 5n] });
    expect(expectedTransfer(tx(approve))).toBeNull();
    expect(expectedTransfer(tx('0x'))).toBeNull();
    expect(expectedTransfer(tx(erc20Transfer, null))).toBeNull();
    expect(expectedTransfer(tx(erc20Transfer.slice(0, 74)))).toBeNull();
    expect(transactionOutcome(tx(approve), mined([])).status).toBe('SUCCESS');
    expect(transactionOutcome(null, mined([])).status).toBe('SUCCESS');
  });
});
