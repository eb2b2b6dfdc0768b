import { describe, expect, it } from 'vitest';
import { NodeUnavailableError } from '../../src/chains/node-client.ts';
import { TroubleLog } from '../../src/health/trouble-log.ts';
import { loggerToLines } from '../helpers/log-lines.ts';

const down = new NodeUnavailableError('tron', 'mainnet', ['127.0.0.1:9 failed: connect ECONNREFUSED'], null);

function setup() {
  const { lines, logger } = loggerToLines();
  let now = 0;
  const log = new TroubleLog({ summaryMs: 300_000, now: () => now });
  /** The node failing once a second for `seconds` seconds. */
  const failEverySecondFor = (seconds: number) => {
    for (let i = 0; i < seconds; i++) {
      log.failed('node', logger, { chain: 'tron' }, down, 'node call failed');
      now += 1_000;
    }
  };
  return { lines, logger, log, failEverySecondFor };
}

describe('trouble log', () => {
  it('writes one line when a thing starts failing, a summary every period, and one when it recovers', () => {
    const { lines, logger, log, failEverySecondFor } = setup();
    failEverySecondFor(100);
    // 100 failures over 100 s: the first line only.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: 'node call failed',
      reason: '127.0.0.1:9 failed: connect ECONNREFUSED',
    });
    failEverySecondFor(250);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      level: 40,
      msg: 'node call failed: still failing',
      failingForSeconds: 300,
    });
    expect(lines[1]!['failuresSinceLastLine']).toBe(300);
    log.recovered('node', logger, { chain: 'tron' }, 'node calls answer again');
    log.recovered('node', logger, { chain: 'tron' }, 'node calls answer again');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatchObject({ level: 30, msg: 'node calls answer again', failedForSeconds: 350 });
    expect(log.isFailing('node')).toBe(false);
  });

  it('keeps each key apart and scrubs secrets from reasons', () => {
    const { lines, logger, log } = setup();
    log.failed('a', logger, {}, new Error('token swy_abcdefghijklmnop refused'), 'a failed');
    log.failed('b', logger, {}, new Error('b'), 'b failed');
    log.failed('a', logger, {}, new Error('again'), 'a failed');
    expect(lines.map((line) => line['msg'])).toEqual(['a failed', 'b failed']);
    expect(lines[0]!['reason']).toBe('token [redacted] refused');
  });
});
