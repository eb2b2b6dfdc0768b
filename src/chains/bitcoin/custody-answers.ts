/**
 * Bitcoin's address answers: a native segwit address and its compressed public key; an unsecure address
 * shows its key once, as the WIF that wallets import (`K…`/`L…` on mainnet, `c…` on the test networks).
 */
import { Type } from '@sinclair/typebox';
import { type CustodyAnswers, familyAnswer } from '../family.ts';
import { wifOf } from './keys.ts';
import { BITCOIN_NETWORKS } from './networks.ts';

export const BitcoinAddressOut = Type.Object({
  address: Type.String({ examples: ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'] }),
  publicKey: Type.String({ description: 'Compressed public key, hex' }),
  privateKey: Type.Optional(
    Type.String({ description: 'Only for an unsecure address: the key as WIF (compressed), shown once' }),
  ),
});

export const bitcoinCustodyAnswers: CustodyAnswers = {
  created: familyAnswer(BitcoinAddressOut, (pair, unsecure) => ({
    address: pair.address,
    publicKey: pair.publicKey,
    ...(unsecure ? { privateKey: wifOfAddressKey(pair.privateKey, pair.address) } : {}),
  })),
  listed: familyAnswer(
    Type.Object({ address: Type.String(), secured: Type.Boolean(), created_at: Type.String() }),
    (row) => ({ address: row.address, secured: row.secured, created_at: row.createdAt }),
  ),
};

/** The WIF of a stored key: mainnet's encoding for a mainnet address, the test networks' shared one else. */
export function wifOfAddressKey(privateKeyHex: string, address: string): string {
  const mainnet = address.toLowerCase().startsWith('bc1') || /^[13]/.test(address);
  return wifOf(privateKeyHex, mainnet ? BITCOIN_NETWORKS.mainnet : BITCOIN_NETWORKS.testnet);
}
