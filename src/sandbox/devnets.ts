import { FAMILIES } from '../chains/families.ts';
import type { DevnetStarters } from '../chains/sandbox-devnet.ts';

/** The devnets the sandbox runs, one per chain, each started once per network: every family names its own. */
export async function devnetStarters(): Promise<DevnetStarters> {
  const starters: DevnetStarters = {};
  for (const family of FAMILIES) Object.assign(starters, await family.sandboxDevnets());
  return starters;
}
