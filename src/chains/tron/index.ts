/** The Tron family module: everything Tron adds to the gateway, listed once in `chains/families.ts`. */
import { PrivateKey } from '../../custody/wallet-fields.ts';
import type { FamilyModule } from '../family.ts';
import { TRON_DEFAULT_ENDPOINTS, tronAdapterFactory } from './adapter.ts';
import { isTronAddress, toBase58Address } from './address.ts';
import { tronAddressForm } from './address-form.ts';
import { tronCustodyAnswers } from './custody-answers.ts';
import { generateTronKey, tronKeyFromPrivate } from './keys.ts';
import { tronParts } from './operations/index.ts';
import { tronHeadProbe, tronNetworkProbe } from './probe.ts';
import { tronReads } from './reads.ts';
import { tronSendWording } from './send-wording.ts';
import { TRON_SETTINGS, tronEndpointHeaders } from './settings.ts';
import { tronSettling } from './settling.ts';
import { TRX_DECIMALS } from './trx-amount.ts';
import { tronWebhookRules } from './webhook-rules.ts';

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
  // Staking rows carry TRX too; TRC10 and TRC20 amounts have their token's decimals.
  historyDecimals: (_chain, type) =>
    ['TRX', 'FREEZE', 'UNFREEZE', 'DELEGATE', 'UNDELEGATE'].includes(type)
      ? TRX_DECIMALS
      : type === 'TRC721'
        ? 0
        : null,
  sends: tronSendWording,
  settling: tronSettling,
  keyForms: {
    privateKey: PrivateKey,
    importDescription:
      'The key as 64 hex characters (0x prefix optional), as TronLink and tronweb export it.',
    exportDescription:
      'The key as 64 hex characters, the form TronLink and `new TronWeb({ privateKey })` take.',
    exportedKey: (privateKeyHex) => privateKeyHex,
  },
  createParts: tronParts,
  sandboxDevnets: async () => (await import('./sandbox-devnet.ts')).tronSandboxDevnets,
  webhookRules: () => tronWebhookRules,
  priceCoins: [
    {
      symbol: 'TRX',
      order: 30,
      coingeckoId: 'tron',
      binancePair: 'TRXUSDT',
      local: { usd: '0.12', driftBp: 100, periodMinutes: 523 },
    },
  ],
};
