/**
 * A Bitcoin request's fields read as the network needs them: an address must be of the network served
 * (a mainnet address on testnet, or the reverse, would burn or strand the coins), amounts are BTC with at
 * most 8 decimals. A field that is not is a 422 naming it.
 */
import { invalidField } from '../../errors.ts';
import { parseAmount } from '../amount.ts';
import { AddressNetworkError, isBitcoinAddress, outputScript } from './address.ts';
import { BTC_DECIMALS } from './btc-amount.ts';
import type { BitcoinNetwork } from './networks.ts';

/** The output script an address field pays to, checked against the network. */
export function addressScriptField(field: string, value: string, network: BitcoinNetwork): Uint8Array {
  if (!isBitcoinAddress(value)) {
    throw invalidField(field, `The ${field} field must be a Bitcoin address with a valid checksum.`);
  }
  try {
    return outputScript(value, network);
  } catch (error) {
    if (error instanceof AddressNetworkError) {
      throw invalidField(field, `The ${field} field is not an address of ${network.name}: ${error.message}`);
    }
    throw invalidField(field, `The ${field} field must be a Bitcoin address this gateway can pay to.`);
  }
}

export function satsOf(raw: unknown): bigint {
  try {
    return parseAmount(raw, BTC_DECIMALS);
  } catch (error) {
    throw invalidField('amount', `The amount field is invalid: ${(error as Error).message}.`);
  }
}
