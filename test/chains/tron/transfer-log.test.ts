import { describe, expect, it } from 'vitest';
import { toHexAddress } from '../../../src/chains/tron/address.ts';
import { decodeTransferLogs, readTransferLog } from '../../../src/chains/tron/transfer-log.ts';

const FROM = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const TO = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
const TOKEN = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** A topic holding an address, as java-tron logs it: 20 bytes, left-padded, bare hex. */
const topic = (address: string) => toHexAddress(address).slice(2).padStart(64, '0');
const uint = (value: bigint) => value.toString(16).padStart(64, '0');
const address = toHexAddress(TOKEN).slice(2);

describe('Tron Transfer logs', () => {
  it('reads TRC20 (value in data) and TRC721 (id indexed) Transfer logs, and nothing else', () => {
    const trc20 = { address, topics: [TOPIC, topic(FROM), topic(TO)], data: uint(5n) };
    const trc721 = { address, topics: [TOPIC, topic(FROM), topic(TO), uint(42n)], data: '' };
    const other = { address, topics: ['00'.repeat(32), topic(FROM), topic(TO)], data: uint(5n) };
    expect(readTransferLog(trc20)).toEqual({
      contract: TOKEN,
      from: FROM,
      to: TO,
      tokenId: null,
      data: uint(5n),
    });
    expect(readTransferLog(trc721)).toMatchObject({ tokenId: 42n });
    expect(readTransferLog(other)).toBeNull();
    expect(decodeTransferLogs({ log: [trc20, other, trc721] })).toEqual([
      { contractaddress: TOKEN, from: FROM, to: TO, value: '5' },
      { contractaddress: TOKEN, from: FROM, to: TO, value: '42' },
    ]);
    expect(decodeTransferLogs({})).toEqual([]);
  });
});
