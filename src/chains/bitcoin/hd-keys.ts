import type { HdKeyCodec } from '../../custody/hd-wallets.ts';
import { canonicalAddress, p2wpkhAddress } from './address.ts';
import type { BitcoinNetwork } from './networks.ts';

/** BIP-84 wallets: native segwit accounts at m/84'/coin'/account', receive addresses at 0/i. */
export function bip84Keys(network: BitcoinNetwork): HdKeyCodec {
  return {
    accountPath: (account) => `m/84'/${network.coinType}'/${account}'`,
    addressPath: (index) => `0/${index}`,
    addressOf: (publicKey) => p2wpkhAddress(publicKey, network),
    normalizeAddress: canonicalAddress,
    versions: network.bip32,
  };
}
