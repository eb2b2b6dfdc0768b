import { describe, expect, it } from 'vitest';
import { clientKeyOf } from '../../src/http/client-address.ts';

describe('the client address a budget counts under', () => {
  it('is an IPv4 address itself, written as IPv6 or not', () => {
    expect(clientKeyOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKeyOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKeyOf('::FFFF:127.0.0.2')).toBe('127.0.0.2');
  });

  it("is an IPv6 client's /64, however the address is written", () => {
    const key = '2001:db8:0:12::/64';
    expect(clientKeyOf('2001:db8:0:12::1')).toBe(key);
    expect(clientKeyOf('2001:0DB8:0000:0012:ffff:ffff:ffff:fffe')).toBe(key);
    expect(clientKeyOf('2001:db8::12:0:0:0:1')).toBe(key);
    expect(clientKeyOf('2001:db8:0:13::1')).not.toBe(key);
    expect(clientKeyOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKeyOf('::1')).toBe('0:0:0:0::/64');
    expect(clientKeyOf('64:ff9b::203.0.113.7')).toBe('64:ff9b:0:0::/64');
  });
});
