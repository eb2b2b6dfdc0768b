import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { routeSchema } from '../../src/http/route-schema.ts';

const params = Type.Object({ chain: Type.String() });

describe('routeSchema', () => {
  it("shares one answer per error status among the routes that describe it alike, and keeps a route's own", () => {
    const first = routeSchema({ summary: 'One', tags: ['t'], params, data: Type.String() });
    const second = routeSchema({ summary: 'Two', tags: ['t'], params, data: Type.Integer() });
    const own = routeSchema({
      summary: 'Three',
      tags: ['t'],
      params,
      data: Type.String(),
      because: { 404: 'No such wallet' },
    });
    for (const status of [401, 402, 404, 422, 429])
      expect(second.response[status]).toBe(first.response[status]);
    expect(own.response[404]).not.toBe(first.response[404]);
    expect(own.response[404]).toMatchObject({ description: 'No such wallet' });
    expect(own.response[401]).toBe(first.response[401]);
    expect(first.response[429]).toHaveProperty('headers');
  });
});
