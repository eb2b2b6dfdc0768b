import { type TObject, Type } from '@sinclair/typebox';
import { type ChainOperation, familyOperation, NO_INPUT } from '../../operations.ts';
import { TronAnyAddress } from '../schemas.ts';
import type { TronTokenReads } from '../token-reads.ts';

/** A read of path parameters alone. */
const pathOnly = <Params extends TObject>(params: Params) => ({
  params,
  querystring: NO_INPUT,
  body: NO_INPUT,
});

/** What a token balance answers, before the token's own id. */
const BalanceFields = { tronaddress: Type.String(), decimals: Type.Integer(), balance: Type.String() };

/** Token balances, TRC20 info and chain parameters: Tron's own reads (the shared ones: reads.ts). */
export function readOperations(reads: TronTokenReads): ChainOperation[] {
  return [
    familyOperation({
      method: 'GET',
      path: '/balances/:address/trc20/:contract',
      summary: "TRC20 balance in the token's base units, with its decimals",
      input: pathOnly(Type.Object({ address: TronAnyAddress, contract: TronAnyAddress })),
      data: Type.Object({ ...BalanceFields, contractaddress: Type.String() }),
      message: 'Balance fetched',
      errors: [400, 404, 502, 503],
      run: ({ network }, { params }) => reads.trc20Balance(network, params.address, params.contract),
    }),
    familyOperation({
      method: 'GET',
      path: '/balances/:address/trc10/:tokenId',
      summary: "TRC10 balance in the asset's base units, with its precision as decimals",
      input: pathOnly(
        Type.Object({ address: TronAnyAddress, tokenId: Type.String({ pattern: '^[0-9]{1,19}$' }) }),
      ),
      data: Type.Object({ ...BalanceFields, tokenid: Type.String() }),
      message: 'Balance fetched',
      errors: [404, 502, 503],
      run: ({ network }, { params }) => reads.trc10Balance(network, params.address, params.tokenId),
    }),
    familyOperation({
      method: 'GET',
      path: '/trc20/:contract',
      summary: 'TRC20 contract information',
      description: 'A contract that does not answer as a TRC20: 400 `Error fetching TRC20 contract`.',
      input: pathOnly(Type.Object({ contract: TronAnyAddress })),
      data: Type.Object({
        address: Type.String(),
        symbol: Type.String(),
        name: Type.String(),
        totalSupply: Type.String(),
        decimals: Type.String(),
      }),
      message: 'TRC20 contract fetched',
      errors: [400, 404, 502, 503],
      run: ({ network }, { params }) => reads.trc20Info(network, params.contract),
    }),
    familyOperation({
      method: 'GET',
      path: '/chainparameters',
      summary: 'Chain parameters (fees, limits) as the node returns them',
      input: pathOnly(NO_INPUT),
      data: Type.Object({
        chainParameter: Type.Array(Type.Object({ key: Type.String(), value: Type.Optional(Type.Number()) })),
      }),
      message: 'Chain parameters fetched',
      errors: [404, 502, 503],
      run: ({ network }) => reads.chainParameters(network),
    }),
  ];
}
