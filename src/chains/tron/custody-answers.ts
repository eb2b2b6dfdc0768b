/** Chaingateway's Tron address answers: both address forms, the key only for an unsecure address. */
import { Type } from '@sinclair/typebox';
import { type CustodyAnswers, familyAnswer } from '../family.ts';
import { toHexAddress } from './address.ts';

export const TronAddressOut = Type.Object({
  privateKey: Type.Optional(
    Type.String({ description: 'Only for an unsecure address (created without password)' }),
  ),
  publicKey: Type.String(),
  hexAddress: Type.String(),
  address: Type.String(),
});

export const tronCustodyAnswers: CustodyAnswers = {
  created: familyAnswer(TronAddressOut, (pair, unsecure) => ({
    ...(unsecure ? { privateKey: pair.privateKey } : {}),
    publicKey: pair.publicKey,
    hexAddress: toHexAddress(pair.address),
    address: pair.address,
  })),
  listed: familyAnswer(
    Type.Object({
      address: Type.String(),
      hexAddress: Type.String(),
      publicKey: Type.String(),
      secured: Type.Boolean({ description: 'true when the key is stored (password protected)' }),
      created_at: Type.String(),
    }),
    (row) => ({
      address: row.address,
      hexAddress: toHexAddress(row.address),
      publicKey: row.publicKey,
      secured: row.secured,
      created_at: row.createdAt,
    }),
  ),
};
