/** The Solana family module: everything Solana adds to the gateway, listed once in `chains/families.ts`. */
import type { FamilyModule } from '../family.ts';
import { LAMPORTS_DECIMALS, SOLANA_DEFAULT_ENDPOINTS, solanaAdapterFactory } from './adapter.ts';
import { solanaAddressForm } from './address-form.ts';
import { solanaCustodyAnswers } from './custody-answers.ts';
import { generateSolanaKey, solanaKeyFromPrivate, walletSecretKey } from './keys.ts';
import { SolanaPrivateKey, solanaParts } from './operations.ts';
import { solanaHeadProbe, solanaNetworkProbe } from './probe.ts';
import { solanaReads } from './reads.ts';
import { solanaSendWording } from './send-wording.ts';
import { solanaSettling } from './settling.ts';
import { solanaWebhookRules } from './webhook-rules.ts';

export const solanaFamily: FamilyModule = {
  name: 'solana',
  chains: {
    solana: {
      factory: solanaAdapterFactory,
      defaults: SOLANA_DEFAULT_ENDPOINTS,
      probe: solanaHeadProbe,
      identify: solanaNetworkProbe,
      headSubscription: true,
    },
  },
  settings: {},
  keys: () => ({
    generate: generateSolanaKey,
    fromPrivateKey: solanaKeyFromPrivate,
    privateKeyForm:
      'a 64-byte secret key in base58 or as a JSON byte array, or a 32-byte seed in hex or base58',
    normalizeAddress: (address) => address,
  }),
  address: solanaAddressForm,
  custody: solanaCustodyAnswers,
  reads: solanaReads,
  transferTypes: () => ({ native: 'SOL', fungible: 'SPL', nft: 'SPL' }),
  historyTypes: () => ['SOL', 'SPL', 'raw'],
  // An SPL row's decimals are its mint's.
  historyDecimals: (_chain, type) => (type === 'SOL' ? LAMPORTS_DECIMALS : null),
  sends: solanaSendWording,
  settling: solanaSettling,
  keyForms: {
    privateKey: SolanaPrivateKey,
    importDescription:
      'The key as wallets export it (64-byte secret key in base58), as a CLI keypair file (JSON array of 64 bytes) or as the 32-byte seed (hex or base58).',
    exportDescription:
      'The 64-byte secret key in base58, the form Phantom, Solflare and `Keypair.fromSecretKey(bs58.decode(…))` import.',
    exportedKey: (seed) => walletSecretKey(seed),
  },
  createParts: solanaParts,
  sandboxDevnets: async () => (await import('./sandbox-devnet.ts')).solanaSandboxDevnets,
  webhookRules: () => solanaWebhookRules,
  priceCoins: [
    {
      symbol: 'SOL',
      order: 40,
      coingeckoId: 'solana',
      binancePair: 'SOLUSDT',
      local: { usd: '150', driftBp: 100, periodMinutes: 587 },
    },
  ],
};
