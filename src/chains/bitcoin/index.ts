/** The Bitcoin family module: everything Bitcoin adds to the gateway, listed once in `chains/families.ts`. */
import type { FamilyModule } from '../family.ts';
import { BITCOIN_DEFAULT_ENDPOINTS, bitcoinAdapterFactory } from './adapter.ts';
import { bitcoinAddressForm } from './address-form.ts';
import { BTC_DECIMALS } from './btc-amount.ts';
import { bitcoinCustodyAnswers, wifOfAddressKey } from './custody-answers.ts';
import { bip84Keys } from './hd-keys.ts';
import { BITCOIN_PRIVATE_KEY_FORM, bitcoinKeyCodec } from './keys.ts';
import { bitcoinMigrations } from './migrations/index.ts';
import { bitcoinNetworkOf } from './networks.ts';
import { BitcoinPrivateKey, bitcoinParts } from './operations.ts';
import { bitcoinHeadProbe, bitcoinNetworkProbe } from './probe.ts';
import { bitcoinReads } from './reads.ts';
import { bitcoinSendWording } from './send-wording.ts';
import { BITCOIN_SETTINGS } from './settings.ts';
import { bitcoinSettling } from './settling.ts';
import { bitcoinWebhookRules } from './webhook-rules.ts';

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
  historyDecimals: () => BTC_DECIMALS,
  sends: bitcoinSendWording,
  settling: bitcoinSettling,
  keyForms: {
    privateKey: BitcoinPrivateKey,
    importDescription: `The key as ${BITCOIN_PRIVATE_KEY_FORM}; a WIF of another network is refused. The address is its native segwit (P2WPKH) address.`,
    exportDescription:
      'The key as WIF (compressed), the form Electrum, Sparrow and `bitcoin-cli importprivkey` take.',
    exportedKeyDescription: 'WIF',
    exportedKey: wifOfAddressKey,
  },
  createParts: bitcoinParts,
  sandboxDevnets: async () => (await import('./sandbox-devnet.ts')).bitcoinSandboxDevnets,
  webhookRules: () => bitcoinWebhookRules,
  priceCoins: [
    {
      symbol: 'BTC',
      order: 10,
      coingeckoId: 'bitcoin',
      binancePair: 'BTCUSDT',
      local: { usd: '67000', driftBp: 100, periodMinutes: 397 },
    },
  ],
  migrations: bitcoinMigrations,
};
