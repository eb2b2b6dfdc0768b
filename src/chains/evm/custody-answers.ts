/** Chaingateway's EVM address answers: EIP-55 addresses, a 0x key only for an unsecure address. */
import { Type } from '@sinclair/typebox';
import { type CustodyAnswers, familyAnswer } from '../family.ts';

export const evmCustodyAnswers: CustodyAnswers = {
  created: familyAnswer(
    Type.Object({
      address: Type.String(),
      publicKey: Type.String(),
      privateKey: Type.Optional(Type.String()),
    }),
    (pair, unsecure) => ({
      address: pair.address,
      publicKey: pair.publicKey,
      ...(unsecure ? { privateKey: `0x${pair.privateKey}` } : {}),
    }),
  ),
  listed: familyAnswer(Type.Object({}, { additionalProperties: true }), (row) => ({
    address: row.address,
    publicKey: row.publicKey,
    secured: row.secured,
    created_at: row.createdAt,
  })),
};
