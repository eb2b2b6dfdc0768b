import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../../custody/address-keys.ts';
import { NewWalletPassword, WalletPassword } from '../../../custody/wallet-fields.ts';
import { sendOk } from '../../envelope.ts';
import { routeSchema } from '../../route-schema.ts';
import { addressParams } from './address-param.ts';
import type { ChainRoutesOptions } from './options.ts';

const PASSWORD_RULE = `A password (${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters) seals the key with scrypt + AES-256-GCM; it is never stored.`;

/** Custodial addresses of one chain: list, create, import, export, change password, forget. */
export const chainAddressRoutes: FastifyPluginAsyncTypebox<ChainRoutesOptions> = async (
  app,
  { ctx, chain, family },
) => {
  const tags = [`${chain} addresses`];
  const { custody } = ctx;
  const { created, listed } = family.custody;
  const AddressParams = addressParams(family);
  const target = (request: FastifyRequest) => ({ userId: request.userId, chain, network: request.network });
  const { paymaster } = ctx.sponsorship;
  const activates = paymaster.activates(chain);
  const activatedRule = activates
    ? '`activated: true` has the sponsor make the account on chain (paid from the plan’s allowance of sponsored fees, as a job listed under GET /paymaster; 422 when the allowance or the sponsor’s budget is spent, 503 when no sponsor is set).'
    : '`activated` is accepted and changes nothing: an address of this chain exists on chain once it first receives coin.';

  app.get(
    '/addresses',
    {
      schema: routeSchema({
        summary: 'Your addresses on this network',
        tags,
        data: Type.Array(listed.schema),
      }),
    },
    async (request, reply) => {
      const rows = await custody.list(target(request));
      return sendOk(
        reply,
        rows.map((row) => listed.of(row)),
        'Addresses fetched',
      );
    },
  );

  app.post(
    '/addresses',
    {
      schema: routeSchema({
        summary: 'Create an address',
        description: `${PASSWORD_RULE} Without a password the address is unsecure: its private key is returned once and not kept. ${activatedRule} Counts against the addresses quota (422 when full).`,
        tags,
        body: Type.Optional(
          Type.Object({
            password: Type.Optional(NewWalletPassword),
            activated: Type.Optional(Type.Boolean()),
          }),
        ),
        data: Type.Array(created.schema),
        status: 201,
        errors: activates ? [404, 503] : [404],
      }),
    },
    async (request, reply) => {
      const password = request.body?.password;
      const pair = await custody.create(target(request), password);
      if (request.body?.activated === true && activates) {
        // The activation is reserved, or the address is not kept: a refused request changes nothing.
        await paymaster.activate(target(request), pair.address).catch(async (error: unknown) => {
          await custody.remove(target(request), pair.address);
          throw error;
        });
      }
      return sendOk(reply, [created.of(pair, password === undefined)], 'Address created', 201);
    },
  );

  const keyForms = family.keyForms;
  if (keyForms) {
    app.post(
      '/addresses/import',
      {
        schema: routeSchema({
          summary: 'Import an address from its private key',
          description: `${keyForms.importDescription} ${PASSWORD_RULE} Without a password nothing is stored but the address.`,
          tags,
          body: Type.Object({ privatekey: keyForms.privateKey, password: Type.Optional(NewWalletPassword) }),
          data: Type.Array(created.schema),
          status: 201,
          message: 'Address imported',
          errors: [404],
        }),
      },
      async (request, reply) => {
        const { privatekey, password } = request.body;
        const pair = await custody.import(target(request), privatekey, password);
        return sendOk(reply, [created.of(pair, password === undefined)], 'Address imported', 201);
      },
    );

    app.post(
      '/addresses/export/:address',
      {
        schema: routeSchema({
          summary: 'Export the private key of a stored address',
          description: `${keyForms.exportDescription} A wrong password answers 401 \`Wrong password provided\`.`,
          tags,
          params: AddressParams,
          body: Type.Object({ password: WalletPassword }),
          data: Type.Object({
            address: Type.String(),
            privateKey: Type.String(
              keyForms.exportedKeyDescription === undefined
                ? {}
                : { description: keyForms.exportedKeyDescription },
            ),
          }),
          message: 'Address exported',
          errors: [404],
        }),
      },
      async (request, reply) => {
        const key = await custody.exportKey(target(request), request.params.address, request.body.password);
        const address = family.address.canonical(request.params.address);
        return sendOk(reply, { address, privateKey: keyForms.exportedKey(key, address) }, 'Address exported');
      },
    );
  }

  const changePassword = routeSchema({
    summary: 'Change the password of a stored address (the spec\'s "UPDATE"; PUT and PATCH both work)',
    description: 'A wrong old_password answers 401 `Wrong password provided`.',
    tags,
    params: AddressParams,
    body: Type.Object({ old_password: WalletPassword, new_password: NewWalletPassword }),
    data: Type.Array(Type.Never()),
    errors: [404],
  });
  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/addresses/:address',
      schema: changePassword,
      handler: async (request, reply) => {
        const { old_password, new_password } = request.body;
        await custody.changePassword(target(request), request.params.address, old_password, new_password);
        return sendOk(reply, [], 'Password changed');
      },
    });
  }

  app.delete(
    '/addresses/:address',
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
      await custody.remove(target(request), request.params.address);
      return sendOk(reply, [], 'Address deleted');
    },
  );
};
