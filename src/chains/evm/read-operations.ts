/** An EVM chain's own reads, as operations: token balances and contracts, the gas price, NFT owners and URIs. */
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import { type ChainOperation, familyOperation, NO_INPUT } from '../operations.ts';
import type { Caller } from '../ports.ts';
import type { ChainName } from '../types.ts';
import { Address } from './request-schemas.ts';
import { tokenPathSegments } from './token-paths.ts';
import type { EvmTokenReads } from './token-reads.ts';

/** A GET that reads the node, named by its path alone. */
interface NodeRead<Params extends TObject, Data extends TSchema> {
  path: string;
  summary: string;
  params: Params;
  data: Data;
  message: string;
  /** A read whose path names nothing to check answers no 400. */
  errors?: number[];
  read(caller: Caller, params: Static<Params>): Promise<Static<Data>>;
}

function nodeRead<Params extends TObject, Data extends TSchema>(
  read: NodeRead<Params, Data>,
): ChainOperation {
  return familyOperation({
    method: 'GET',
    path: read.path,
    summary: read.summary,
    input: { params: read.params, querystring: NO_INPUT, body: NO_INPUT },
    data: read.data,
    message: read.message,
    errors: read.errors ?? [400, 404, 502, 503],
    run: (caller, { params }) => read.read(caller, params),
  });
}

const NftParams = Type.Object({
  contract: Address,
  tokenId: Type.String({ pattern: '^[0-9]{1,78}$', description: 'Token id, a uint256: below 2^256' }),
});

export function evmReadOperations(chain: ChainName, tokens: EvmTokenReads): ChainOperation[] {
  const tokenReads = tokenPathSegments(chain).fungibleSegments.flatMap((segment) => [
    nodeRead({
      path: `/balances/:address/${segment}/:contract`,
      summary: "Token balance, a decimal string in the token's units",
      params: Type.Object({ address: Address, contract: Address }),
      data: Type.String(),
      message: 'Balance fetched',
      read: ({ network }, { address, contract }) => tokens.tokenBalance(chain, network, address, contract),
    }),
    nodeRead({
      path: `/${segment}/:contract`,
      summary: 'Token contract information',
      params: Type.Object({ contract: Address }),
      data: Type.Object({
        address: Type.String(),
        symbol: Type.String(),
        name: Type.String(),
        decimals: Type.Integer(),
        totalSupply: Type.String(),
      }),
      message: 'Contract fetched',
      read: ({ network }, { contract }) => tokens.tokenInfo(chain, network, contract),
    }),
  ]);
  return [
    ...tokenReads,
    nodeRead({
      path: '/gasprice',
      summary: 'Gas price in gwei',
      params: NO_INPUT,
      data: Type.Object({ gasPrice: Type.String() }),
      message: 'Gas price fetched',
      errors: [404, 502, 503],
      read: ({ network }) => tokens.gasPrice(chain, network),
    }),
    nodeRead({
      path: '/nfts/:contract/owner/:tokenId',
      summary: 'Owner of an NFT',
      params: NftParams,
      data: Type.Object({ owner: Type.String() }),
      message: 'Owner fetched',
      read: ({ network }, { contract, tokenId }) => tokens.nftOwner(chain, network, contract, tokenId),
    }),
    nodeRead({
      path: '/nfts/:contract/uri/:tokenId',
      summary: 'Metadata URI of an NFT',
      params: NftParams,
      data: Type.Object({ uri: Type.String() }),
      message: 'URI fetched',
      read: ({ network }, { contract, tokenId }) => tokens.nftUri(chain, network, contract, tokenId),
    }),
  ];
}
