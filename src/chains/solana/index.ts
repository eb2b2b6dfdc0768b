/** The Solana family module: everything Solana adds to the gateway, listed once in `chains/families.ts`. */
import type { FamilyModule } from '../family.ts';
import { SOLANA_DEFAULT_ENDPOINTS, solanaAdapterFactory } from './adapter.ts';
import { solanaAddressForm } from './address-form.ts';
import { solanaCustodyAnswers } from './custody-answers.ts';
import { generateSolanaKey, solanaKeyFromPrivate } from './keys.ts';
import { solanaHeadProbe, solanaNetworkProbe } from './probe.ts';
import { solanaReads } from './reads.ts';
import { solanaParts } from './routes.ts';
import { solanaSendWording } from './send-wording.ts';

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
  sends: solanaSendWording,
  createParts: solanaParts,
  sandboxDevnets: async () => (await import('./sandbox-devnet.ts')).solanaSandboxDevnets,
};
