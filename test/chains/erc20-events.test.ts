import { keccak256, toHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { TRANSFER_TOPIC, TRANSFER_TOPIC_HEX } from '../../src/chains/erc20-events.ts';

describe('Transfer event topic', () => {
  it('is the hash of the event signature, 0x-prefixed for EVM nodes and bare for java-tron', () => {
    expect(TRANSFER_TOPIC).toBe(keccak256(toHex('Transfer(address,address,uint256)')));
    expect(TRANSFER_TOPIC_HEX).toBe(TRANSFER_TOPIC.slice(2));
  });
});
