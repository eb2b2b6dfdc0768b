import { createHash } from 'node:crypto';
import { utils } from 'tronweb';
import { describe, expect, it } from 'vitest';
import { DistinctTransactions } from '../../../src/chains/tron/distinct-transactions.ts';
import type { TronTransaction } from '../../../src/chains/tron/types.ts';
import http from '../../vectors/tron_http_responses.json' with { type: 'json' };

const built: TronTransaction = http.createtransaction.response;

describe('identical transfers built in the same millisecond', () => {
  it('become distinct transactions, each a valid one a millisecond later than the last', async () => {
    const distinct = new DistinctTransactions(() => built.raw_data.timestamp);
    // All three at once, as concurrent sends ask.
    const [first, second, third] = await Promise.all(
      [built, built, built].map((tx) => distinct.distinct(tx)),
    );
    expect(first).toEqual(built);
    expect(new Set([first!.txID, second!.txID, third!.txID]).size).toBe(3);
    expect(third!.raw_data.timestamp).toBe(built.raw_data.timestamp + 2);
    for (const tx of [second!, third!]) {
      expect(utils.transaction.txCheck(tx)).toBe(true);
      expect(tx.txID).toBe(createHash('sha256').update(Buffer.from(tx.raw_data_hex, 'hex')).digest('hex'));
      expect({ ...tx.raw_data, timestamp: 0 }).toEqual({ ...built.raw_data, timestamp: 0 });
    }
  });

  it('keep their own id once the first has expired', async () => {
    let now = built.raw_data.timestamp;
    const distinct = new DistinctTransactions(() => now);
    await distinct.distinct(built);
    now = built.raw_data.expiration + 1;
    expect((await distinct.distinct(built)).txID).toBe(built.txID);
  });
});
