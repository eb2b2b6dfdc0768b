import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../../custody/address-keys.ts';
import { sendOk } from '../../../http/envelope.ts';
import { routeSchema } from '../../../http/route-schema.ts';
import { NewWalletPassword, PrivateKey, WalletPassword } from '../../../http/wallet-fields.ts';
import type { AddressCustody } from '../../../services/address-custody.ts';
import { toBase58Address } from '../address.ts';
import { TronAddressOut, tronCustodyAnswers } from '../custody-answers.ts';
import { TronAnyAddress } from './schemas.ts';

const tags = ['tron addresses'];
const PASSWORD_RULE = `A password (${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters) seals the key with scrypt + AES-256-GCM; it is never stored.`;

/** Tron's own forms of import and export (the other address routes are every chain's). */
export const tronAddressRoutes: FastifyPluginAsyncTypebox<{ custody: AddressCustody }> = async (
  app,
  { custody },
) => {
  const target = (request: FastifyRequest) => ({
    userId: request.userId,
    chain: 'tron' as const,
    network: request.network,
  });

  app.post(
    '/addresses/import',
    {
      schema: routeSchema({
        summary: 'Import an address from its private key',
        description: `${PASSWORD_RULE} Without a password nothing is stored but the address.`,
        tags,
        body: Type.Object({ privatekey: PrivateKey, password: Type.Optional(NewWalletPassword) }),
        data: Type.Array(TronAddressOut),
        status: 201,
        errors: [404],
      }),
    },
    async (request, reply) => {
      const { privatekey, password } = request.body;
      const pair = await custody.import(target(request), privatekey, password);
      const out = tronCustodyAnswers.created.of(pair, password === undefined);
      return sendOk(reply, [out], 'Address imported', 201);
    },
  );

  app.post(
    '/addresses/export/:address',
    {
      schema: routeSchema({
        summary: 'Export the private key of a stored address',
        description: 'A wrong password answers 401 `Wrong password provided`.',
        tags,
        params: Type.Object({ address: TronAnyAddress }),
        body: Type.Object({ password: WalletPassword }),
        data: Type.Object({ address: Type.String(), privateKey: Type.String() }),
        errors: [404],
      }),
    },
    async (request, reply) => {
      const { address } = request.params;
      const privateKey = await custody.exportKey(target(request), address, request.body.password);
      return sendOk(reply, { address: toBase58Address(address), privateKey }, 'Address exported');
    },
  );
};
