import { describe, expect, it } from 'vitest';
import { hasAccess, type SubscriptionTerms, standingOf } from '../../src/accounts/lifecycle.ts';

const DAY = 86_400_000;

describe('hasAccess', () => {
  const grace = 3 * DAY;
  const terms: SubscriptionTerms[] = [
    { plan: 'pro', status: 'active', endsAt: null, updatedAt: '2026-01-01T00:00:00.000Z' },
    {
      plan: 'pro',
      status: 'active',
      endsAt: '2026-06-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    },
    { plan: 'pro', status: 'active', endsAt: '2026-06-01', updatedAt: '2026-01-01T00:00:00.000Z' },
    {
      plan: 'pro',
      status: 'cancelled',
      endsAt: '2026-06-01T12:30:00Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    },
    { plan: 'pro', status: 'cancelled', endsAt: null, updatedAt: '2026-01-01T00:00:00.000Z' },
    { plan: 'pro', status: 'active', endsAt: 'not a date', updatedAt: '2026-01-01T00:00:00.000Z' },
  ];
  const around = (at: number) => [-DAY, -1_001, -1_000, -1, 0, 1, 1_000, DAY].map((d) => at + d);
  const instants = [
    ...around(Date.parse('2026-06-01T00:00:00.000Z')),
    ...around(Date.parse('2026-06-01T00:00:00.000Z') + grace),
    ...around(Date.parse('2026-06-01T12:30:00.000Z')),
  ];

  it('agrees with standingOf at every instant around the ends of access, asked in any order', () => {
    for (const t of terms)
      for (const at of [...instants, ...instants.reverse()])
        expect(hasAccess(t, at, grace), `${JSON.stringify(t)} at ${new Date(at).toISOString()}`).toBe(
          standingOf(t, new Date(at), grace).active,
        );
  });

  it('follows a change of the grace period for the same terms', () => {
    const ended = terms[1]!;
    const at = Date.parse('2026-06-02T00:00:00.000Z');
    expect(hasAccess(ended, at, grace)).toBe(true);
    expect(hasAccess(ended, at, 0)).toBe(false);
  });
});
