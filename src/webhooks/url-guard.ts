import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP, isIPv4, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { compileAllowlist, type IpAllowlist } from './ip-allowlist.ts';

/**
 * Keeps webhook deliveries away from the gateway's own network (SSRF): a subscriber's URL may only
 * reach public unicast addresses. The check runs when a URL is accepted and again, on the addresses
 * actually dialled, every time the delivery agent opens a connection, so a DNS answer that changes in
 * between (rebinding) is refused too.
 */

export { compileAllowlist, type IpAllowlist, parseIpAllowlist } from './ip-allowlist.ts';

/** Resolves a host name to all its addresses; replaceable so tests can stage a rebinding. */
export type LookupAll = (hostname: string) => Promise<LookupAddress[]>;

export interface UrlGuardOptions {
  lookup?: LookupAll;
}

/** Thrown (or passed to a connect callback) when an address or URL may not be contacted. */
export class WebhookUrlRefusedError extends Error {
  readonly code = 'WEBHOOK_URL_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'WebhookUrlRefusedError';
  }
}

const defaultLookup: LookupAll = (hostname) => dns.lookup(hostname, { all: true });

type Family = 'ipv4' | 'ipv6';
type Ranges = [cidr: string, what: string][];

// Order matters only for the wording: the narrower range comes first.
const REFUSED_V4: Ranges = [
  ['0.0.0.0/8', 'a this-network (reserved) address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local (cloud metadata) address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'an IETF protocol assignment address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a 6to4 relay anycast address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['255.255.255.255/32', 'the broadcast address'],
  ['240.0.0.0/4', 'a reserved address'],
];

const REFUSED_V6: Ranges = [
  ['::/128', 'the unspecified address'],
  ['::1/128', 'a loopback address'],
  ['::/96', 'an IPv4-compatible (deprecated) address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address'],
  ['100::/64', 'a discard-only address'],
  ['2001::/32', 'a Teredo tunnel address'],
  ['2001:db8::/32', 'a documentation address'],
  ['2001::/23', 'an IETF protocol assignment address'],
  ['3fff::/20', 'a documentation address'],
  ['fc00::/7', 'a unique local (private) address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local (deprecated) address'],
  ['ff00::/8', 'a multicast address'],
];

function rangeLists(ranges: Ranges, family: Family): [BlockList, string][] {
  return ranges.map(([cidr, what]) => {
    const list = new BlockList();
    const [network, prefix] = cidr.split('/') as [string, string];
    list.addSubnet(network, Number(prefix), family);
    return [list, what];
  });
}

const REFUSED_V4_LISTS = rangeLists(REFUSED_V4, 'ipv4');
const REFUSED_V6_LISTS = rangeLists(REFUSED_V6, 'ipv6');
/** Global unicast: the only IPv6 space a public server can have (embeddings are handled first). */
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');

/**
 * Why an IP address may not be contacted ("a loopback address"), or null when it may. Addresses that
 * embed an IPv4 address (mapped, NAT64, 6to4) are judged by the embedded one.
 */
export function addressRefusal(ip: string, allow: IpAllowlist | BlockList = []): string | null {
  const allowList = allow instanceof BlockList ? allow : compileAllowlist(allow);
  const address = ip.replace(/%.*$/, '');
  if (isIPv4(address)) {
    if (allowList.check(address, 'ipv4')) return null;
    const hit = REFUSED_V4_LISTS.find(([list]) => list.check(address, 'ipv4'));
    return hit === undefined ? null : hit[1];
  }
  const words = ipv6Words(address);
  if (words === null) return 'not an IP address';
  if (allowList.check(address, 'ipv6')) return null;
  const embedded = embeddedIpv4(words);
  if (embedded !== null) {
    const inner = addressRefusal(embedded.ipv4, allowList);
    if (inner !== null) return `${embedded.kind} form of ${embedded.ipv4}, ${inner}`;
    // A 6to4 address is also an IPv6 address in its own right; the others are judged by the IPv4 one.
    if (embedded.kind !== 'a 6to4') return null;
  }
  const hit = REFUSED_V6_LISTS.find(([list]) => list.check(address, 'ipv6'));
  if (hit !== undefined) return hit[1];
  return GLOBAL_UNICAST_V6.check(address, 'ipv6') ? null : 'not a global unicast address';
}

/** The authority of a URL as written: what follows `scheme://` up to the path, query or fragment. */
const WRITTEN_AUTHORITY = /^https?:\/\/([^/?#]*)/i;

/**
 * The checks that need no DNS: how the URL is written, scheme, credentials, and an IP-literal host.
 *
 * Parsers disagree on a backslash (WHATWG reads `http://a\@b/` as host `a`, others as user `a\` at host
 * `b`) and on an `@` in the authority. The guard and the delivery client share one parser today; refusing
 * both forms keeps any other reader (a proxy, a log viewer, a future client) from seeing another host.
 */
export function staticUrlRefusal(url: string, allow: IpAllowlist | BlockList = []): string | null {
  if (url.includes('\\')) return 'must not contain a backslash';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must use http or https';
  // WHATWG also reads `http:host` and ` http://host` (spaces, tabs and newlines dropped); others may not.
  const authority = WRITTEN_AUTHORITY.exec(url)?.[1];
  if (authority === undefined) return 'must begin with http:// or https://';
  if (authority.includes('@') || parsed.username !== '' || parsed.password !== '') {
    return 'must not contain a user name or password';
  }
  const host = bareHost(parsed.hostname);
  if (host === '') return 'has no host';
  if (isIP(host) !== 0) {
    const refusal = addressRefusal(host, allow);
    if (refusal !== null) return `points at ${host}, ${refusal}`;
  }
  return null;
}

/**
 * Why a webhook URL is refused, or null when it is fine. The host (name or numeric form, which the URL
 * parser normalises: `2130706433`, `0x7f.1`, `[::ffff:7f00:1]`) must resolve only to public addresses.
 */
export async function checkWebhookUrl(
  url: string,
  allow: IpAllowlist,
  options: UrlGuardOptions = {},
): Promise<string | null> {
  const refusal = staticUrlRefusal(url, allow);
  if (refusal !== null) return refusal;
  const host = bareHost(new URL(url).hostname);
  if (isIP(host) !== 0) return null;
  try {
    await resolvePublic(host, compileAllowlist(allow), options.lookup ?? defaultLookup);
    return null;
  } catch (error) {
    return error instanceof WebhookUrlRefusedError ? error.message : `host ${host} does not resolve`;
  }
}

/**
 * The agent every webhook is sent through. Its connector refuses IP-literal hosts that are not public
 * and resolves names itself, dialling only addresses that pass the check at that moment. It never
 * follows redirects (undici's Agent only does so with an interceptor, which is not installed).
 */
export function guardedDispatcher(
  allow: IpAllowlist,
  options: UrlGuardOptions & { connectTimeoutMs?: number; connectionsPerOrigin?: number } = {},
): Agent {
  const allowList = compileAllowlist(allow);
  const lookup = guardedLookup(allowList, options.lookup ?? defaultLookup);
  const dial = buildConnector({ lookup, timeout: options.connectTimeoutMs ?? 10_000 });
  const connect: buildConnector.connector = (connectOptions, callback) => {
    const host = bareHost(connectOptions.hostname);
    const refusal = isIP(host) === 0 ? null : addressRefusal(host, allowList);
    if (refusal !== null) {
      callback(new WebhookUrlRefusedError(`${host} is ${refusal}`), null);
      return;
    }
    dial(connectOptions, callback);
  };
  return new Agent({ connect, connections: options.connectionsPerOrigin ?? null });
}

function guardedLookup(allow: BlockList, lookupAll: LookupAll): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolvePublic(hostname, allow, lookupAll).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = wanted === 0 ? addresses : addresses.filter((a) => a.family === wanted);
        const first = usable[0];
        if (first === undefined) {
          callback(Object.assign(new Error(`${hostname} has no usable address`), { code: 'ENOTFOUND' }), '');
        } else if (options.all === true) {
          callback(null, usable);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

/** All addresses of `hostname`, or a refusal naming the first one that is not public. */
async function resolvePublic(
  hostname: string,
  allow: BlockList,
  lookupAll: LookupAll,
): Promise<LookupAddress[]> {
  const addresses = await lookupAll(hostname);
  if (addresses.length === 0)
    throw Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' });
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, allow);
    if (refusal !== null) throw new WebhookUrlRefusedError(`${hostname} resolves to ${address}, ${refusal}`);
  }
  return addresses;
}

function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail allowed), or null. */
function ipv6Words(ip: string): number[] | null {
  if (isIP(ip) !== 6) return null;
  let text = ip.toLowerCase();
  const tailStart = text.lastIndexOf(':') + 1;
  const tail = text.slice(tailStart);
  if (tail.includes('.')) {
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, tailStart)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const headWords = head === '' ? [] : head.split(':');
  const restWords = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? 0 : 8 - headWords.length - restWords.length;
  return [...headWords, ...Array<string>(zeros).fill('0'), ...restWords].map((word) =>
    Number.parseInt(word, 16),
  );
}

function embeddedIpv4(words: number[]): { kind: string; ipv4: string } | null {
  const ipv4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const [w0, w1, w2, w3, w4, w5, w6, w7] = words as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (w0 === 0 && w1 === 0 && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0xffff) {
    return { kind: 'an IPv4-mapped', ipv4: ipv4(w6, w7) };
  }
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0) {
    return { kind: 'a NAT64', ipv4: ipv4(w6, w7) };
  }
  if (w0 === 0x2002) return { kind: 'a 6to4', ipv4: ipv4(w1, w2) };
  return null;
}
