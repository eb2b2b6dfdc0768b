import type { AddressForm } from '../family.ts';
import { addressProblem, isTonAddress, parseTonAddress, rawAddress, walletAddress } from './address.ts';

/** Raw (`0:` or `-1:` and 64 hex) or user-friendly (48 characters of base64 or base64url). */
const PATTERN = '^((0|-1):[0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{48})$';

/**
 * A TON address in any form wallets write: raw, or user-friendly, bounceable or not. A user-friendly
 * address carries a checksum and says which network it is for (the test-only flag): a mistyped one, or
 * one of the other network, is refused naming the field.
 */
export const tonAddressForm: AddressForm = {
  family: 'ton',
  pattern: PATTERN,
  description:
    'TON address: raw (`0:<64 hex>`) or user-friendly (48 characters, base64 or base64url; bounceable `EQ…`/`kQ…` or not `UQ…`/`0Q…`). On testnet a user-friendly address must carry the test-only flag (`kQ…`, `0Q…`), on mainnet it must not.',
  example: 'UQCeiKegzS-ppKDYP0Hap3M2SyldKFU5RBkxTfLqkf7o_sHj',
  isValid: isTonAddress,
  fieldProblem: (field, value, network) => {
    switch (addressProblem(value, network)) {
      case null:
        return null;
      case 'checksum':
        return `The ${field} field is not a valid TON address: its checksum does not match (mistyped?).`;
      case 'network':
        return network === 'testnet'
          ? `The ${field} field is a mainnet address; on testnet a user-friendly address carries the test-only flag (kQ… or 0Q…).`
          : `The ${field} field is a testnet address (its test-only flag is set); mainnet takes EQ… or UQ….`;
      default:
        return `The ${field} field must be a TON address (raw 0:<64 hex>, or user-friendly in base64).`;
    }
  },
  // No network is given here: a user-friendly address keeps the network its flag names (the field check
  // has refused the other network's), shown as a wallet (non-bounceable); a raw one stays raw, which
  // every network reads alike.
  canonical: (address) => {
    const parsed = parseTonAddress(address);
    if (typeof parsed === 'string') return address;
    if (parsed.flags === null) return rawAddress(parsed.address);
    return walletAddress(parsed.address, parsed.flags.testOnly ? 'testnet' : 'mainnet');
  },
};
