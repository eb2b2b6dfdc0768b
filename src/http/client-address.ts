import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a per-client budget is counted under, from the request's address (`request.ip`: the socket's
 * peer, or the client a trusted proxy names in X-Forwarded-For when TRUST_PROXY is set). An IPv4 address
 * counts alone; an IPv6 client counts by its /64, the block one subscriber is given, so that walking through
 * the addresses of one's own prefix buys no fresh budget. An IPv4 address written as IPv6 (`::ffff:a.b.c.d`,
 * a dual-stack listener's form) counts as the IPv4 address.
 */
export function clientKeyOf(ip: string): string {
  const address = ip.split('%')[0] ?? ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  if (!isIPv6(address)) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address as lowercase hex without leading zeros (a dotted tail converted). */
function ipv6Groups(address: string): string[] {
  let text = address.toLowerCase();
  const tailAt = text.lastIndexOf(':') + 1;
  const tail = text.slice(tailAt);
  if (tail.includes('.')) {
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, tailAt)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
  return [...headGroups, ...Array<string>(zeros).fill('0'), ...restGroups].map((group) =>
    Number.parseInt(group, 16).toString(16),
  );
}
