import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sendOk } from '../../../http/envelope.ts';
import { routeSchema } from '../../../http/route-schema.ts';
import type { TronService } from '../../../services/tron.ts';
import { NodeJson, TronAnyAddress, Txid } from './schemas.ts';

const tags = ['tron'];

/** Blocks, transactions, receipts, balances, TRC20 info and chain parameters: reads, no key involved. */
export const tronReadRoutes: FastifyPluginAsyncTypebox<{ tron: TronService }> = async (app, { tron }) => {
  app.get(
    '/blocks/number',
    {
      schema: routeSchema({
        summary: 'Latest block number',
        tags,
        data: Type.Object({ blocknumber: Type.Integer() }),
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(reply, { blocknumber: await tron.blockNumber(request.network) }, 'Block number fetched'),
  );

  app.get(
    '/blocks/:block',
    {
      schema: routeSchema({
        summary: 'A block by number or blockID, as the node returns it',
        tags,
        params: Type.Object({
          block: Type.String({
            pattern: '^([0-9]{1,19}|[0-9a-fA-F]{64})$',
            description: 'Block number or 64-hex blockID',
          }),
        }),
        data: NodeJson,
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(reply, await tron.block(request.network, request.params.block), 'Block fetched'),
  );

  const TxidParams = Type.Object({ txid: Txid });

  app.get(
    '/transactions/:txid',
    {
      schema: routeSchema({
        summary: 'A transaction as the node returns it',
        description: 'Unknown transaction: 422 `transaction not found`.',
        tags,
        params: TxidParams,
        data: Type.Object({ transaction: NodeJson }),
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        { transaction: await tron.transaction(request.network, request.params.txid) },
        'Transaction fetched',
      ),
  );

  app.get(
    '/transactions/:txid/decoded',
    {
      schema: routeSchema({
        summary: "A transaction decoded: from, to, amount in the asset's units, block and confirmations",
        tags,
        params: TxidParams,
        data: Type.Object({
          transaction: Type.Object({
            txid: Type.String(),
            from: Type.Union([Type.String(), Type.Null()]),
            to: Type.Union([Type.String(), Type.Null()]),
            amount: Type.Union([Type.String(), Type.Null()]),
            contractaddress: Type.Union([Type.String(), Type.Null()]),
            tokenid: Type.Union([Type.String(), Type.Null()]),
            blocknumber: Type.Union([Type.Integer(), Type.Null()]),
            confirmations: Type.Integer(),
            status: Type.String({
              description: 'SUCCESS, PENDING, or the contract failure (REVERT, OUT_OF_ENERGY ...)',
            }),
            type: Type.String({ description: 'Tron (TRX), TRC10, TRC20, TRC721, or the contract type' }),
          }),
        }),
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await tron.decodedTransaction(request.network, request.params.txid),
        'Succesfully parsed transaction',
      ),
  );

  app.get(
    '/transactions/:txid/receipt',
    {
      schema: routeSchema({
        summary: "The transaction's receipt (gettransactioninfobyid) as the node returns it",
        tags,
        params: TxidParams,
        data: Type.Object({ transaction: NodeJson }),
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await tron.receipt(request.network, request.params.txid, false),
        'Succesfully parsed transaction receipt',
      ),
  );

  app.get(
    '/transactions/:txid/receipt/decoded',
    {
      schema: routeSchema({
        summary: 'The receipt decoded: status (SUCCESS or the failure), fees in TRX, Transfer events',
        tags,
        params: TxidParams,
        data: Type.Object({
          txid: Type.String(),
          status: Type.String(),
          blocknumber: Type.Integer(),
          timestamp: Type.String(),
          fee: Type.String(),
          energy_usage_total: Type.String(),
          energy_fee: Type.String(),
          net_usage: Type.String(),
          net_fee: Type.String(),
          contractaddress: Type.Union([Type.String(), Type.Null()]),
          transfers: Type.Array(
            Type.Object({
              contractaddress: Type.String(),
              from: Type.String(),
              to: Type.String(),
              value: Type.String(),
            }),
          ),
        }),
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await tron.receipt(request.network, request.params.txid, true),
        'Succesfully parsed transaction receipt',
      ),
  );

  app.get(
    '/balances/:address',
    {
      schema: routeSchema({
        summary: 'TRX balance in sun',
        tags,
        params: Type.Object({ address: TronAnyAddress }),
        data: Type.Object({ tronaddress: Type.String(), decimals: Type.Integer(), balance: Type.String() }),
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(reply, await tron.balance(request.network, request.params.address), 'Balance fetched'),
  );

  app.get(
    '/balances/:address/trc20/:contract',
    {
      schema: routeSchema({
        summary: "TRC20 balance in the token's base units, with its decimals",
        tags,
        params: Type.Object({ address: TronAnyAddress, contract: TronAnyAddress }),
        data: Type.Object({
          tronaddress: Type.String(),
          decimals: Type.Integer(),
          balance: Type.String(),
          contractaddress: Type.String(),
        }),
        errors: [400, 404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await tron.trc20Balance(request.network, request.params.address, request.params.contract),
        'Balance fetched',
      ),
  );

  app.get(
    '/balances/:address/trc10/:tokenId',
    {
      schema: routeSchema({
        summary: "TRC10 balance in the asset's base units, with its precision as decimals",
        tags,
        params: Type.Object({ address: TronAnyAddress, tokenId: Type.String({ pattern: '^[0-9]{1,19}$' }) }),
        data: Type.Object({
          tronaddress: Type.String(),
          decimals: Type.Integer(),
          balance: Type.String(),
          tokenid: Type.String(),
        }),
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await tron.trc10Balance(request.network, request.params.address, request.params.tokenId),
        'Balance fetched',
      ),
  );

  app.get(
    '/trc20/:contract',
    {
      schema: routeSchema({
        summary: 'TRC20 contract information',
        description: 'A contract that does not answer as a TRC20: 400 `Error fetching TRC20 contract`.',
        tags,
        params: Type.Object({ contract: TronAnyAddress }),
        data: Type.Object({
          address: Type.String(),
          symbol: Type.String(),
          name: Type.String(),
          totalSupply: Type.String(),
          decimals: Type.String(),
        }),
        errors: [400, 404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(reply, await tron.trc20Info(request.network, request.params.contract), 'TRC20 contract fetched'),
  );

  app.get(
    '/chainparameters',
    {
      schema: routeSchema({
        summary: 'Chain parameters (fees, limits) as the node returns them',
        tags,
        data: Type.Object({
          chainParameter: Type.Array(
            Type.Object({ key: Type.String(), value: Type.Optional(Type.Number()) }),
          ),
        }),
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(reply, await tron.chainParameters(request.network), 'Chain parameters fetched'),
  );
};
