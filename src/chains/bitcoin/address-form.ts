import type { Env } from '../../config/setting.ts';
import type { AddressForm } from '../family.ts';
import type { Network } from '../types.ts';
import { AddressNetworkError, canonicalAddress, isBitcoinAddress, outputScript } from './address.ts';
import { type BitcoinNetwork, bitcoinNetworkOf } from './networks.ts';

/**
 * Bech32(m) of mainnet, test networks and regtest in one case (lower or upper, as BIP-173 allows), or
 * base58 P2PKH/P2SH (1, 3; m, n, 2 off mainnet). The checksum and the network are fieldProblem's to check.
 */
const PATTERN =
  '^((bc|tb|bcrt)1[ac-hj-np-z02-9]{8,87}|(BC|TB|BCRT)1[AC-HJ-NP-Z02-9]{8,87}|[13mn2][1-9A-HJ-NP-Za-km-z]{25,34})$';
const SHAPE = new RegExp(PATTERN);

/**
 * What is wrong with a Bitcoin address field on `network`: not an address's shape, a checksum that does
 * not verify (a mistyped character; bech32 where the witness version needs bech32m, or the reverse), or a
 * valid address of another network, which would pay coins no one there can spend.
 */
export function bitcoinAddressProblem(field: string, value: string, network: BitcoinNetwork): string | null {
  if (!SHAPE.test(value)) {
    return `The ${field} field must be a Bitcoin address: bech32 (bc1…, tb1…, bcrt1…) or base58 (1…, 3…, m…, n…, 2…).`;
  }
  if (!isBitcoinAddress(value)) return `The ${field} field must be a Bitcoin address with a valid checksum.`;
  try {
    outputScript(value, network);
    return null;
  } catch (error) {
    if (error instanceof AddressNetworkError) {
      return `The ${field} field is a Bitcoin ${error.addressNetworks} address, not one of ${network.name}.`;
    }
    return `The ${field} field must be a Bitcoin address this gateway can pay to.`;
  }
}

/** A Bitcoin address of any type: P2WPKH, P2WSH, P2TR, P2PKH or P2SH. */
export const bitcoinAddressForm: AddressForm = {
  family: 'bitcoin',
  pattern: PATTERN,
  description:
    'Bitcoin address of the network the request names: bech32 (bc1… on mainnet; tb1…, or bcrt1… on regtest, on testnet) or base58 (1…, 3… on mainnet; m…, n…, 2… on testnet), its checksum verified',
  example: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
  isValid: isBitcoinAddress,
  fieldProblem: (field: string, value: string, network: Network, settings: Env) =>
    bitcoinAddressProblem(field, value, bitcoinNetworkOf(network, settings)),
  canonical: canonicalAddress,
};
