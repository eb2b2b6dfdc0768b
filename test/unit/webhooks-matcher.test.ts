import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type MatchableWebhook, WebhookMatcher } from '../../src/webhooks/matcher.ts';

const hook = (id: string, filter: Partial<MatchableWebhook>): MatchableWebhook => ({
  id,
  userId: 'u',
  from: null,
  to: null,
  contract: null,
  tokenId: null,
  comment: null,
  type: null,
  confirmations: 0,
  notifyReverted: false,
  notifyPending: false,
  ...filter,
});
const transfer = (
  t: Partial<{
    from: string;
    to: string;
    contractAddress: string;
    tokenId: string;
    type: string;
    comment: string | null;
  }>,
) => ({
  from: t.from ?? 'F',
  to: t.to ?? 'T',
  contractAddress: t.contractAddress ?? null,
  tokenId: t.tokenId ?? null,
  type: t.type ?? 'TRX',
  comment: t.comment ?? null,
});

describe('WebhookMatcher', () => {
  it('ANDs every filter a subscription sets', () => {
    const m = new WebhookMatcher();
    m.upsert(hook('to', { to: 'A' }));
    m.upsert(hook('to+contract', { to: 'A', contract: 'USDT' }));
    m.upsert(hook('from', { from: 'A' }));
    m.upsert(hook('contract', { contract: 'USDT' }));
    m.upsert(hook('typed', { to: 'A', type: 'TRC20' }));
    m.upsert(hook('token', { tokenId: '7', contract: 'NFT' }));
    const ids = (t: ReturnType<typeof transfer>) =>
      m
        .match(t)
        .map((w) => w.id)
        .sort();
    expect(ids(transfer({ to: 'A' }))).toEqual(['to']);
    expect(ids(transfer({ to: 'A', contractAddress: 'USDT', type: 'TRC20' }))).toEqual([
      'contract',
      'to',
      'to+contract',
      'typed',
    ]);
    expect(ids(transfer({ from: 'A', to: 'B' }))).toEqual(['from']);
    expect(ids(transfer({ to: 'B', contractAddress: 'USDT', type: 'TRC20' }))).toEqual(['contract']);
    expect(ids(transfer({ to: 'B', contractAddress: 'NFT', tokenId: '7', type: 'TRC721' }))).toEqual([
      'token',
    ]);
    expect(ids(transfer({ to: 'B', contractAddress: 'NFT', tokenId: '8', type: 'TRC721' }))).toEqual([]);
    // A transfer from A to A matches each subscription once.
    expect(ids(transfer({ from: 'A', to: 'A' }))).toEqual(['from', 'to']);
  });

  it('a comment filter takes only transfers carrying that exact comment, with or without an address', () => {
    const m = new WebhookMatcher();
    m.upsert(hook('to+comment', { to: 'A', comment: 'order 42' }));
    m.upsert(hook('comment', { comment: 'order 42' }));
    m.upsert(hook('to', { to: 'A' }));
    const ids = (t: ReturnType<typeof transfer>) =>
      m
        .match(t)
        .map((w) => w.id)
        .sort();
    expect(ids(transfer({ to: 'A', comment: 'order 42' }))).toEqual(['comment', 'to', 'to+comment']);
    expect(ids(transfer({ to: 'B', comment: 'order 42' }))).toEqual(['comment']);
    expect(ids(transfer({ to: 'A', comment: 'Order 42' }))).toEqual(['to']);
    expect(ids(transfer({ to: 'A' }))).toEqual(['to']);
    expect(m.match(transfer({ comment: 'order 42' }))[0]?.comment).toBe('order 42');
  });

  it('replaces on upsert and forgets on remove', () => {
    const m = new WebhookMatcher();
    m.upsert(hook('w', { to: 'A' }));
    m.upsert(hook('w', { to: 'B' }));
    expect(m.match(transfer({ to: 'A' }))).toEqual([]);
    expect(m.match(transfer({ to: 'B' })).map((w) => w.id)).toEqual(['w']);
    m.upsert(hook('v', { to: 'B' }));
    m.remove('w');
    expect(m.match(transfer({ to: 'B' })).map((w) => w.id)).toEqual(['v']);
    expect(m.size).toBe(1);
    m.remove('v');
    m.remove('missing');
    expect(m.size).toBe(0);
  });
});

/** Subscriptions that set no address, contract or token id are not kept. */
const setsAFilter = (w: MatchableWebhook) =>
  w.to !== null || w.from !== null || w.tokenId !== null || w.contract !== null || w.comment !== null;

/** What the matcher must answer, by a scan of every subscription: each filter it sets agrees. */
function scan(hooks: Map<string, MatchableWebhook>, t: ReturnType<typeof transfer>): MatchableWebhook[] {
  return [...hooks.values()].filter(
    (w) =>
      setsAFilter(w) &&
      (w.to === null || w.to === t.to) &&
      (w.from === null || w.from === t.from) &&
      (w.tokenId === null || w.tokenId === t.tokenId) &&
      (w.contract === null || w.contract === t.contractAddress) &&
      (w.comment === null || w.comment === t.comment) &&
      (w.type === null || w.type === t.type),
  );
}

const byId = (a: MatchableWebhook, b: MatchableWebhook) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe('WebhookMatcher against a scan of every subscription', () => {
  // Few values, so that subscriptions share addresses, buckets and fields; enough ids to grow its arrays.
  const value = (values: string[]) => fc.option(fc.constantFrom(...values), { nil: null });
  const address = value(['A', 'B', 'C', '0xé']);
  const webhook = fc.record({
    id: fc.integer({ min: 0, max: 299 }).map((n) => `w${n}`),
    userId: fc.constantFrom('u1', 'u2'),
    from: address,
    to: address,
    contract: value(['USDT', 'NFT']),
    tokenId: value(['1', '2']),
    comment: value(['A', 'paid']),
    type: value(['TRC20', 'TRX']),
    confirmations: fc.integer({ min: 0, max: 100 }),
    notifyReverted: fc.boolean(),
    notifyPending: fc.boolean(),
  });
  const change = fc.oneof(
    { weight: 4, arbitrary: webhook.map((w) => ({ upsert: w })) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 299 }).map((n) => ({ remove: `w${n}` })) },
  );
  const probe = fc.record({
    from: fc.constantFrom('A', 'B', 'C', '0xé', 'D'),
    to: fc.constantFrom('A', 'B', 'C', '0xé', 'D'),
    contractAddress: value(['USDT', 'NFT', 'OTHER']),
    tokenId: value(['1', '2', '3']),
    comment: value(['A', 'paid', 'other']),
    type: fc.constantFrom('TRC20', 'TRX', 'TRC721'),
  });

  it('finds exactly the subscriptions a scan finds, whole, after any upserts and removals', () => {
    fc.assert(
      fc.property(
        fc.array(change, { minLength: 100, maxLength: 600 }),
        fc.array(probe, { maxLength: 30 }),
        (changes, probes) => {
          const m = new WebhookMatcher();
          const hooks = new Map<string, MatchableWebhook>();
          for (const c of changes) {
            if ('upsert' in c) {
              m.upsert(c.upsert);
              hooks.set(c.upsert.id, c.upsert);
            } else {
              m.remove(c.remove);
              hooks.delete(c.remove);
            }
          }
          expect(m.size).toBe([...hooks.values()].filter(setsAFilter).length);
          for (const t of probes) expect(m.match(t).sort(byId)).toEqual(scan(hooks, t).sort(byId));
          const pending = [...hooks.values()]
            .filter((w) => w.notifyPending)
            .flatMap((w) => [w.to, w.from])
            .filter((a): a is string => a !== null);
          expect(m.pendingAddresses().sort()).toEqual([...new Set(pending)].sort());
        },
      ),
      { numRuns: 200 },
    );
  });
});
