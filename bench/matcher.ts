import { randomBytes } from 'node:crypto';
import { WebhookMatcher } from '../src/webhooks/matcher.ts';
import type { Benchmark } from './types.ts';

const CONTRACTS = Array.from({ length: 20 }, () => `0x${randomBytes(20).toString('hex')}`);
const address = () => `0x${randomBytes(20).toString('hex')}`;

/**
 * A matcher holding `count` subscriptions: by recipient (most also by token), some by sender, and a fixed
 * ten by token contract alone, so every transfer has as many true matches at 1k as at 1M subscriptions.
 */
function filled(count: number): { matcher: WebhookMatcher; watched: string[] } {
  const matcher = new WebhookMatcher();
  const watched: string[] = [];
  for (let i = 0; i < count; i++) {
    const to = address();
    const kind = i % 100;
    watched.push(to);
    matcher.upsert({
      id: `w${i}`,
      userId: `u${i % 5000}`,
      to: kind < 90 ? to : null,
      from: kind >= 90 ? to : null,
      contract: kind < 50 ? CONTRACTS[i % CONTRACTS.length]! : null,
      tokenId: null,
      comment: null,
      type: null,
      confirmations: 0,
      notifyReverted: false,
      notifyPending: false,
    });
  }
  for (let i = 0; i < 10; i++) {
    const base = {
      userId: 'u',
      to: null,
      from: null,
      tokenId: null,
      comment: null,
      type: null,
      confirmations: 0,
      notifyReverted: false,
      notifyPending: false,
    };
    matcher.upsert({ ...base, id: `c${i}`, contract: CONTRACTS[i]! });
  }
  return { matcher, watched };
}

/** Transfers like a busy block's: one in ten to a watched address, the rest to strangers. */
function transfers(watched: string[], count: number) {
  return Array.from({ length: count }, (_, i) => ({
    from: address(),
    to: i % 10 === 0 ? watched[(i * 7919) % watched.length]! : address(),
    contractAddress: i % 2 === 0 ? CONTRACTS[i % CONTRACTS.length]! : null,
    tokenId: null,
    type: i % 2 === 0 ? 'ERC20' : 'ETH',
  }));
}

function transfersPerSecond(
  matcher: WebhookMatcher,
  batch: ReturnType<typeof transfers>,
  durationMs: number,
) {
  let matched = 0;
  let done = 0;
  const started = performance.now();
  while (performance.now() - started < durationMs) {
    for (const transfer of batch) matched += matcher.match(transfer).length;
    done += batch.length;
  }
  if (matched === 0) throw new Error('the benchmark matched nothing: it would measure the wrong thing');
  return done / ((performance.now() - started) / 1000);
}

/** Matching cost per transfer must not grow with the number of subscriptions: 1M against 1k. */
export const matcherAtScale: Benchmark = {
  name: 'webhook matcher: transfers/s at 1,000,000 subscriptions vs 1,000',
  async run() {
    const small = filled(1_000);
    const large = filled(1_000_000);
    const smallBatch = transfers(small.watched, 10_000);
    const largeBatch = transfers(large.watched, 10_000);
    transfersPerSecond(small.matcher, smallBatch, 300);
    transfersPerSecond(large.matcher, largeBatch, 300);
    const baseline = transfersPerSecond(small.matcher, smallBatch, 2_000);
    const measured = transfersPerSecond(large.matcher, largeBatch, 2_000);
    return [
      {
        what: 'matcher transfers/s at 1,000,000 subscriptions, one core',
        unit: 'transfers/s',
        measured,
        baseline: { what: 'the same matcher at 1,000 subscriptions', value: baseline },
        goal: { on: 'value', op: '>=', value: 200_000 },
      },
    ];
  },
};
