import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../../custody/address-keys.ts';
import type { TronService } from '../../../services/tron.ts';
import { sendOk } from '../../envelope.ts';
import { routeSchema } from '../../route-schema.ts';
import { NewWalletPassword, PrivateKey, WalletPassword } from '../../wallet-fields.ts';
import { AddressOut, TronAnyAddress } from './schemas.ts';

const tags = ['tron addresses'];
const AddressParams = Type.Object({ address: TronAnyAddress });
const PASSWORD_RULE = `A password (${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters) seals the key with scrypt + AES-256-GCM; it is never stored.`;

/** Custodial Tron addresses: create, import, list, change password, export, forget. */
export async function tronAddressRoutes(app: FastifyInstance, { tron }: { tron: TronService }) {
  app.get(
    '/api/v2/tron/addresses',
    {
      schema: routeSchema({
        summary: 'Your Tron addresses on this network',
        tags,
        data: Type.Array(
          Type.Object({
            address: Type.String(),
            hexAddress: Type.String(),
            publicKey: Type.String(),
            secured: Type.Boolean({ description: 'true when the key is stored (password protected)' }),
            created_at: Type.String(),
          }),
        ),
      }),
    },
    async (request, reply) =>
      sendOk(reply, await tron.listAddresses(request.userId, request.network), 'Addresses fetched'),
  );

  app.post<{ Body: { password?: string; activated?: boolean } }>(
    '/api/v2/tron/addresses',
    {
      schema: routeSchema({
        summary: 'Create an address',
        description: `${PASSWORD_RULE} Without a password the address is unsecure: its private key is returned once and not kept. \`activated\` is accepted; the address becomes active on chain when it first receives TRX. Counts against the addresses quota (422 when full).`,
        tags,
        body: Type.Optional(
          Type.Object({
            password: Type.Optional(NewWalletPassword),
            activated: Type.Optional(Type.Boolean()),
          }),
        ),
        data: Type.Array(AddressOut),
        status: 201,
        errors: [404],
      }),
    },
    async (request, reply) => {
      const out = await tron.createAddress(request.userId, request.network, request.body?.password);
      return sendOk(reply, [out], 'Address created', 201);
    },
  );

  app.post<{ Body: { privatekey: string; password?: string } }>(
    '/api/v2/tron/addresses/import',
    {
      schema: routeSchema({
        summary: 'Import an address from its private key',
        description: `${PASSWORD_RULE} Without a password nothing is stored but the address.`,
        tags,
        body: Type.Object({ privatekey: PrivateKey, password: Type.Optional(NewWalletPassword) }),
        data: Type.Array(AddressOut),
        status: 201,
        errors: [404],
      }),
    },
    async (request, reply) => {
      const { privatekey, password } = request.body;
      const out = await tron.importAddress(request.userId, request.network, privatekey, password);
      return sendOk(reply, [out], 'Address imported', 201);
    },
  );

  const changePassword = {
    schema: routeSchema({
      summary: 'Change the password of a stored address (the spec\'s "UPDATE"; PUT and PATCH both work)',
      description: 'A wrong old_password answers 401 `Wrong password provided`.',
      tags,
      params: AddressParams,
      body: Type.Object({ old_password: WalletPassword, new_password: NewWalletPassword }),
      data: Type.Array(Type.Never()),
      errors: [404],
    }),
  };
  const changePasswordHandler = async (
    request: {
      userId: string;
      network: 'mainnet' | 'testnet';
      params: { address: string };
      body: { old_password: string; new_password: string };
    },
    reply: Parameters<typeof sendOk>[0],
  ) => {
    const { old_password, new_password } = request.body;
    await tron.changePassword(
      request.userId,
      request.network,
      request.params.address,
      old_password,
      new_password,
    );
    return sendOk(reply, [], 'Password changed');
  };
  app.put<{ Params: { address: string }; Body: { old_password: string; new_password: string } }>(
    '/api/v2/tron/addresses/:address',
    changePassword,
    changePasswordHandler,
  );
  app.patch<{ Params: { address: string }; Body: { old_password: string; new_password: string } }>(
    '/api/v2/tron/addresses/:address',
    changePassword,
    changePasswordHandler,
  );

  app.post<{ Params: { address: string }; Body: { password: string } }>(
    '/api/v2/tron/addresses/export/:address',
    {
      schema: routeSchema({
        summary: 'Export the private key of a stored address',
        description: 'A wrong password answers 401 `Wrong password provided`.',
        tags,
        params: AddressParams,
        body: Type.Object({ password: WalletPassword }),
        data: Type.Object({ address: Type.String(), privateKey: Type.String() }),
        errors: [404],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await tron.exportKey(request.userId, request.network, request.params.address, request.body.password),
        'Address exported',
      ),
  );

  app.delete<{ Params: { address: string } }>(
    '/api/v2/tron/addresses/:address',
    {
      schema: routeSchema({
        summary: 'Forget an address and its stored key (frees address quota)',
        tags,
        params: AddressParams,
        data: Type.Array(Type.Never()),
        errors: [404],
      }),
    },
    async (request, reply) => {
      await tron.deleteAddress(request.userId, request.network, request.params.address);
      return sendOk(reply, [], 'Address deleted');
    },
  );
}
