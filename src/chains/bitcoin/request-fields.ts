/**
 * A Bitcoin request's fields read as the network needs them: an address must be of the network served
 * (a mainnet address on testnet, or the reverse, would burn or strand the coins), amounts are BTC with at
 * most 8 decimals. A field that is not is a 422 naming it.
 */
import { invalidField } from '../../errors.ts';
import { amountField } from '../amount-field.ts';
import { outputScript } from './address.ts';
import { bitcoinAddressProblem } from './address-form.ts';
import { BTC_DECIMALS } from './btc-amount.ts';
import type { BitcoinNetwork } from './networks.ts';

/** The output script an address field pays to, checked against the network. */
export function addressScriptField(field: string, value: string, network: BitcoinNetwork): Uint8Array {
  const problem = bitcoinAddressProblem(field, value, network);
  if (problem !== null) throw invalidField(field, problem);
  return outputScript(value, network);
}

export function satsOf(raw: unknown): bigint {
  return amountField(raw, BTC_DECIMALS);
}
