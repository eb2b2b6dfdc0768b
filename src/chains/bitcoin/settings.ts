import { type Env, oneOf, setting } from '../../config/setting.ts';
import type { Network } from '../types.ts';

const BACKENDS = ['esplora', 'core'] as const;
export type BitcoinBackendKind = (typeof BACKENDS)[number];

/** Which Bitcoin network the gateway's `testnet` is; `mainnet` is always Bitcoin's main network. */
const TESTNETS = ['testnet', 'testnet4', 'signet', 'regtest'] as const;
export type BitcoinTestnet = (typeof TESTNETS)[number];

/**
 * Bitcoin's own settings. `config check` validates them and the README's Configuration table and
 * `.env.example` list them with the gateway's (config/settings.ts).
 */
export const BITCOIN_SETTINGS = {
  BITCOIN_TESTNET_NETWORK: setting({
    default: 'testnet',
    meaning:
      'the Bitcoin network the gateway serves as `testnet`: `testnet` (testnet3), `testnet4`, `signet` or `regtest` (addresses `tb1…`, or `bcrt1…` on regtest)',
    parse: oneOf(TESTNETS),
  }),
  BITCOIN_MAINNET_BACKEND: setting({
    default: 'esplora',
    meaning:
      'what `BITCOIN_MAINNET_URLS` are: `esplora` (Blockstream, mempool.space, electrs REST) or `core` (Bitcoin Core JSON-RPC, `http://user:pass@host:8332`)',
    parse: oneOf(BACKENDS),
  }),
  BITCOIN_TESTNET_BACKEND: setting({
    default: 'esplora',
    meaning: 'what `BITCOIN_TESTNET_URLS` are: `esplora` or `core`, as for mainnet',
    parse: oneOf(BACKENDS),
  }),
} as const;

export function bitcoinTestnet(settings: Env): BitcoinTestnet {
  return BITCOIN_SETTINGS.BITCOIN_TESTNET_NETWORK.read(settings, 'BITCOIN_TESTNET_NETWORK');
}

export function bitcoinBackendKind(settings: Env, network: Network): BitcoinBackendKind {
  return network === 'mainnet'
    ? BITCOIN_SETTINGS.BITCOIN_MAINNET_BACKEND.read(settings, 'BITCOIN_MAINNET_BACKEND')
    : BITCOIN_SETTINGS.BITCOIN_TESTNET_BACKEND.read(settings, 'BITCOIN_TESTNET_BACKEND');
}
