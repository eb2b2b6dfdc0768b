import { describe, expect, it } from 'vitest';
import { type MatchableWebhook, WebhookMatcher } from '../../src/webhooks/matcher.ts';

const hook = (id: string, filter: Partial<MatchableWebhook>): MatchableWebhook => ({
  id,
  userId: 'u',
  from: null,
  to: null,
  contract: null,
  tokenId: null,
  type: null,
  confirmations: 0,
  notifyReverted: false,
  notifyPending: false,
  ...filter,
});
const transfer = (
  t: Partial<{ from: string; to: string; contractAddress: string; tokenId: string; type: string }>,
) => ({
  from: t.from ?? 'F',
  to: t.to ?? 'T',
  contractAddress: t.contractAddress ?? null,
  tokenId: t.tokenId ?? null,
  type: t.type ?? 'TRX',
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
