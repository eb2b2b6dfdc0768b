/** What EVM webhooks filter on, per chain: its coin and token standards, addresses compared in lower case. */
import type { ChainWebhookRules } from '../family.ts';
import type { ChainName } from '../types.ts';
import { evmTransferTypes } from './chains.ts';
import { checksumAddress, isEvmAddress } from './keys.ts';
import { evmNativeCoin } from './native-coins.ts';

const RULES = new Map<ChainName, ChainWebhookRules>();

/** The chain's rules, made once: every notification's addresses are shown through them. */
export function evmWebhookRules(chain: ChainName): ChainWebhookRules {
  let rules = RULES.get(chain);
  if (rules === undefined) {
    rules = chainRules(chain);
    RULES.set(chain, rules);
  }
  return rules;
}

function chainRules(chain: ChainName): ChainWebhookRules {
  const { native, fungible, nft } = evmTransferTypes(chain);
  const aliases: Record<string, string> = {};
  // A chain whose token standards have their own names (BSC: BEP20) takes Ethereum's names for them too.
  if (fungible !== 'ERC20') aliases['ERC20'] = fungible;
  if (nft !== 'ERC721') aliases['ERC721'] = nft;
  // A renamed coin is still filtered on by its old ticker (Polygon's MATIC).
  for (const former of evmNativeCoin(native)?.aliases ?? []) aliases[former] = native;
  return {
    types: [native, fungible, nft],
    ...(Object.keys(aliases).length > 0 ? { aliases } : {}),
    // 0x required; mixed case must carry a valid EIP-55 checksum, so a typo is refused, not watched.
    isAddress: (a) => a.startsWith('0x') && isEvmAddress(a),
    normalize: (a) => a.toLowerCase(),
    // EIP-55, as wallets and explorers write it; matching still compares the lower-case form.
    display: (a) => checksumAddress(a),
    hasContracts: true,
    hasMempool: false,
  };
}
