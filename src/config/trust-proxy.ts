import { isIP } from 'node:net';
import { ConfigError } from './error.ts';
import { yesOrNo } from './setting.ts';

/**
 * TRUST_PROXY: `false` (the socket's peer is the client), `true` (every hop is trusted: the client is the
 * first address of X-Forwarded-For, which a client can write itself when its proxy appends to the header),
 * or the proxies' addresses and CIDRs, comma-separated: the client is the last address of the chain that
 * is not one of them, which no client can forge. Fastify takes any of the three as its `trustProxy`.
 */
export function trustProxySetting(raw: string, name: string): boolean | string[] {
  if (/^(true|false|yes|no|on|off|1|0)$/i.test(raw.trim())) return yesOrNo(raw.trim(), name);
  const entries = raw.split(/[\s,]+/).filter((entry) => entry !== '');
  const bad = entries.filter((entry) => !isAddressOrCidr(entry));
  if (entries.length === 0 || bad.length > 0) {
    throw new ConfigError(name, 'must be true, false, or proxy addresses and CIDRs, comma-separated');
  }
  return entries;
}

function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
