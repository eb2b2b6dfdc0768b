import { BlockList, isIP } from 'node:net';

// Apart from url-guard.ts so that reading the configuration (WEBHOOK_ALLOW_CIDRS) loads no HTTP client:
// the admin CLI reads it at every command.

/** CIDRs (or bare addresses) an operator opens for webhooks, e.g. `127.0.0.0/8` in the sandbox. */
export type IpAllowlist = readonly string[];

const compiled = new WeakMap<IpAllowlist, BlockList>();

/** Validates allowlist entries; throws naming the bad entry (used by config and at construction). */
export function compileAllowlist(allow: IpAllowlist): BlockList {
  const cached = compiled.get(allow);
  if (cached !== undefined) return cached;
  const list = new BlockList();
  for (const entry of allow) {
    const [address = '', prefixText, extra] = entry.trim().split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (family === 0 || extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
      throw new Error(`"${entry}" in the webhook IP allowlist is not an address or CIDR`);
    }
    list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  compiled.set(allow, list);
  return list;
}

/** Parses the comma- or space-separated allowlist text of a configuration value. */
export function parseIpAllowlist(text: string): IpAllowlist {
  const entries = text.split(/[\s,]+/).filter((entry) => entry !== '');
  compileAllowlist(entries);
  return entries;
}
