/** The Bitcoin family module: everything Bitcoin adds to the gateway, listed once in `chains/families.ts`. */
import type { FamilyModule } from '../family.ts';
import { BITCOIN_DEFAULT_ENDPOINTS, bitcoinAdapterFactory } from './adapter.ts';
import { bitcoinAddressForm } from './address-form.ts';
import { bitcoinCustodyAnswers } from './custody-answers.ts';
import { bip84Keys } from './hd-keys.ts';
import { bitcoinKeyCodec } from './keys.ts';
import { bitcoinNetworkOf } from './networks.ts';
import { bitcoinHeadProbe, bitcoinNetworkProbe } from './probe.ts';
import { bitcoinReads } from './reads.ts';
import { bitcoinParts } from './routes.ts';
import { bitcoinSendWording } from './send-wording.ts';
import { BITCOIN_SETTINGS } from './settings.ts';

export const bitcoinFamily: FamilyModule = {
  name: 'bitcoin',
  chains: {
    bitcoin: {
      factory: bitcoinAdapterFactory,
      defaults: BITCOIN_DEFAULT_ENDPOINTS,
      probe: bitcoinHeadProbe,
      identify: bitcoinNetworkProbe,
    },
  },
  settings: BITCOIN_SETTINGS,
  keys: (network, settings) => bitcoinKeyCodec(bitcoinNetworkOf(network, settings)),
  hdKeys: (network, settings) => bip84Keys(bitcoinNetworkOf(network, settings)),
  address: bitcoinAddressForm,
  custody: bitcoinCustodyAnswers,
  reads: bitcoinReads,
  transferTypes: () => ({ native: 'BTC', fungible: 'BTC', nft: 'BTC' }),
  historyTypes: () => ['BTC'],
  sends: bitcoinSendWording,
  createParts: bitcoinParts,
  sandboxDevnets: async () => (await import('./sandbox-devnet.ts')).bitcoinSandboxDevnets,
};
