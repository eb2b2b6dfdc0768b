/**
 * TON's address answers: the address is the key's V5R1 wallet in the network's wallet form; an unsecure
 * address shows its key once, as the 32-byte seed in hex.
 */
import { Type } from '@sinclair/typebox';
import { type CustodyAnswers, familyAnswer } from '../family.ts';

export const TonAddressOut = Type.Object({
  address: Type.String({ description: 'The V5R1 wallet, non-bounceable (`UQ…`; `0Q…` on testnet)' }),
  publicKey: Type.String({ description: 'The ed25519 public key, hex' }),
  privateKey: Type.Optional(
    Type.String({ description: 'Only for an unsecure address: the 32-byte ed25519 seed in hex, shown once' }),
  ),
});

export const tonCustodyAnswers: CustodyAnswers = {
  created: familyAnswer(TonAddressOut, (pair, unsecure) => ({
    address: pair.address,
    publicKey: pair.publicKey,
    ...(unsecure ? { privateKey: pair.privateKey } : {}),
  })),
  listed: familyAnswer(
    Type.Object({ address: Type.String(), secured: Type.Boolean(), created_at: Type.String() }),
    (row) => ({ address: row.address, secured: row.secured, created_at: row.createdAt }),
  ),
};
