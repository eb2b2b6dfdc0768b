/**
 * Solana's address answers: the address is the public key; an unsecure address shows its key once, as
 * the 64-byte secret in base58 that wallets import.
 */
import { Type } from '@sinclair/typebox';
import { type CustodyAnswers, familyAnswer } from '../family.ts';
import { walletSecretKey } from './keys.ts';

export const SolanaAddressOut = Type.Object({
  address: Type.String(),
  publicKey: Type.String(),
  privateKey: Type.Optional(
    Type.String({
      description: 'Only for an unsecure address: the 64-byte secret key in base58, shown once',
    }),
  ),
});

export const solanaCustodyAnswers: CustodyAnswers = {
  created: familyAnswer(SolanaAddressOut, (pair, unsecure) => ({
    address: pair.address,
    publicKey: pair.publicKey,
    ...(unsecure ? { privateKey: walletSecretKey(pair.privateKey) } : {}),
  })),
  listed: familyAnswer(
    Type.Object({ address: Type.String(), secured: Type.Boolean(), created_at: Type.String() }),
    (row) => ({ address: row.address, secured: row.secured, created_at: row.createdAt }),
  ),
};
