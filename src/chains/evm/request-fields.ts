/** The fields of an EVM request read as the chain needs them; a malformed one is a 422 field error. */

import { invalidField } from '../../errors.ts';
import { parseAmount } from '../amount.ts';
import { boundedAmountField } from '../amount-field.ts';
import type { EvmTxOverrides } from './adapter.ts';
import { evmAddressFieldMessage } from './keys.ts';
import { GWEI_DECIMALS } from './units.ts';

/** The largest uint256: amounts in base units and ERC-721 token ids are one. */
const UINT256_MAX = 2n ** 256n - 1n;

/** The optional fields every EVM send accepts; gas prices in gwei (as `gasprice` answers), gas in units. */
export interface EvmSendOptions {
  gas?: unknown;
  gasprice?: unknown;
  maxFeePerGas?: unknown;
  maxPriorityFeePerGas?: unknown;
  nonce?: unknown;
  data?: unknown;
}

/** The address in `field`, or a 422 field error: not an address, or a mixed-case typo (EIP-55). */
export function requiredAddress(field: string, address: unknown): string {
  const message = evmAddressFieldMessage(field, address);
  if (message !== null) throw invalidField(field, message);
  return String(address);
}

/** An amount in base units (wei, token units) that fits a uint256, or a 422 on the amount field. */
export function amountOf(raw: unknown, decimals: number): bigint {
  return boundedAmountField(
    raw,
    decimals,
    UINT256_MAX,
    (most) => `The amount field is too large: at most ${most} (2^256 - 1 base units).`,
  );
}

/** An NFT's token id: a whole number a uint256 holds, or a 422 on the tokenId field. */
export function tokenIdOf(raw: unknown): bigint {
  const text = String(raw ?? '').trim();
  const id = /^\d{1,78}$/.test(text) ? BigInt(text) : null;
  if (id === null || id > UINT256_MAX) {
    throw invalidField('tokenId', 'The tokenId field must be a whole number below 2^256 (a uint256).');
  }
  return id;
}

/** A send's overrides, the caller's nonce as given. */
export type EvmSendOverrides = EvmTxOverrides & { nonce?: bigint | undefined };

/** Caller overrides: gas in units, prices in gwei (decimal), nonce, data hex. */
export function overridesOf(body: EvmSendOptions): EvmSendOverrides {
  const gwei = (field: keyof EvmSendOptions) => {
    const value = body[field];
    if (value === undefined || value === null || value === '') return undefined;
    try {
      return parseAmount(value, GWEI_DECIMALS);
    } catch (error) {
      throw invalidField(field, `The ${field} field (gwei) is invalid: ${(error as Error).message}.`);
    }
  };
  const whole = (field: keyof EvmSendOptions) => {
    const value = body[field];
    if (value === undefined || value === null || value === '') return undefined;
    if (!/^\d{1,20}$/.test(String(value)))
      throw invalidField(field, `The ${field} field must be a whole number.`);
    return BigInt(String(value));
  };
  const data =
    body.data === undefined || body.data === null || body.data === '' ? undefined : String(body.data);
  if (data !== undefined && !isHexBytes(data))
    throw invalidField('data', 'The data field must be 0x-prefixed hex.');
  return {
    gas: whole('gas'),
    nonce: whole('nonce'),
    gasprice: gwei('gasprice'),
    maxFeePerGas: gwei('maxFeePerGas'),
    maxPriorityFeePerGas: gwei('maxPriorityFeePerGas'),
    data,
  };
}

/** 0x-prefixed hex of whole bytes, as calldata is written. */
function isHexBytes(value: string): value is `0x${string}` {
  return /^0x([0-9a-fA-F]{2})*$/.test(value);
}
