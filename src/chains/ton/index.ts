/** The TON family module: everything TON adds to the gateway, listed once in `chains/families.ts`. */
import type { FamilyModule } from '../family.ts';
import { TON_DEFAULT_ENDPOINTS, tonAdapterFactory } from './adapter.ts';
import { tonAddressForm } from './address-form.ts';
import { NANOTON_DECIMALS } from './block-transfers.ts';
import { tonCustodyAnswers } from './custody-answers.ts';
import { tonKeyCodec } from './keys.ts';
import { tonMigrations } from './migrations/index.ts';
import { tonParts } from './operations.ts';
import { TonPrivateKey } from './private-key-field.ts';
import { tonHeadProbe, tonNetworkProbe } from './probe.ts';
import { tonReads } from './reads.ts';
import { tonSendWording } from './send-wording.ts';
import { TON_SETTINGS, tonEndpointHeaders } from './settings.ts';
import { tonSettling } from './settling.ts';
import { tonWebhookRules } from './webhook-rules.ts';

export const tonFamily: FamilyModule = {
  name: 'ton',
  chains: {
    ton: {
      factory: tonAdapterFactory,
      defaults: TON_DEFAULT_ENDPOINTS,
      probe: tonHeadProbe,
      identify: tonNetworkProbe,
      endpointHeaders: tonEndpointHeaders,
    },
  },
  settings: TON_SETTINGS,
  keys: (network) => tonKeyCodec(network),
  address: tonAddressForm,
  custody: tonCustodyAnswers,
  reads: tonReads,
  transferTypes: () => ({ native: 'TON', fungible: 'JETTON', nft: 'NFT' }),
  historyTypes: () => ['TON', 'JETTON', 'raw'],
  // A jetton row's decimals are its master's.
  historyDecimals: (_chain, type) => (type === 'TON' ? NANOTON_DECIMALS : null),
  sends: tonSendWording,
  settling: tonSettling,
  keyForms: {
    privateKey: TonPrivateKey,
    importDescription:
      "The wallet's 24-word mnemonic (as Tonkeeper and @ton/crypto's `mnemonicNew` make it; no password), or the 32-byte ed25519 seed in hex or base64. The address is the key's V5R1 wallet on the network.",
    exportDescription:
      "The 32-byte ed25519 seed in hex, the key custody holds (a mnemonic cannot be recovered from a key): `keyPairFromSeed(Buffer.from(seed, 'hex'))` in @ton/crypto, then `WalletContractV5R1.create({ workchain: 0, publicKey, walletId: { networkGlobalId } })` (-239 mainnet, -3 testnet).",
    exportedKeyDescription: 'The 32-byte ed25519 seed, hex',
    exportedKey: (seed) => seed,
  },
  createParts: tonParts,
  sandboxDevnets: async () => (await import('./sandbox-devnet.ts')).tonSandboxDevnets,
  webhookRules: () => tonWebhookRules,
  migrations: tonMigrations,
  priceCoins: [
    {
      symbol: 'TON',
      order: 45,
      coingeckoId: 'the-open-network',
      binancePair: 'TONUSDT',
      local: { usd: '5.5', driftBp: 100, periodMinutes: 613 },
    },
  ],
};
