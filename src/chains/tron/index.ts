/** The Tron family module: everything Tron adds to the gateway, listed once in `chains/families.ts`. */
import type { FamilyModule } from '../family.ts';
import { TRON_DEFAULT_ENDPOINTS, tronAdapterFactory } from './adapter.ts';
import { isTronAddress, toBase58Address } from './address.ts';
import { tronAddressForm } from './address-form.ts';
import { tronCustodyAnswers } from './custody-answers.ts';
import { generateTronKey, tronKeyFromPrivate } from './keys.ts';
import { tronHeadProbe, tronNetworkProbe } from './probe.ts';
import { tronReads } from './reads.ts';
import { tronParts } from './routes/index.ts';
import { tronSendWording } from './send-wording.ts';
import { TRON_SETTINGS, tronEndpointHeaders } from './settings.ts';

export const tronFamily: FamilyModule = {
  name: 'tron',
  chains: {
    tron: {
      factory: tronAdapterFactory,
      defaults: TRON_DEFAULT_ENDPOINTS,
      probe: tronHeadProbe,
      identify: tronNetworkProbe,
      endpointHeaders: tronEndpointHeaders,
    },
  },
  settings: TRON_SETTINGS,
  keys: () => ({
    generate: generateTronKey,
    fromPrivateKey: tronKeyFromPrivate,
    privateKeyForm: '64 hex characters',
    normalizeAddress: (address) => (isTronAddress(address) ? toBase58Address(address) : address),
  }),
  address: tronAddressForm,
  custody: tronCustodyAnswers,
  reads: tronReads,
  transferTypes: () => ({ native: 'TRX', fungible: 'TRC20', nft: 'TRC721' }),
  historyTypes: () => [
    'TRX',
    'TRC10',
    'TRC20',
    'TRC721',
    'FREEZE',
    'UNFREEZE',
    'DELEGATE',
    'UNDELEGATE',
    'CONTRACT',
    'VoteWitnessContract',
  ],
  sends: tronSendWording,
  createParts: tronParts,
  sandboxDevnets: async () => (await import('./sandbox-devnet.ts')).tronSandboxDevnets,
};
