/**
 * An EVM chain's sends (native, fungible and NFT tokens), its client-transaction build and its broadcast,
 * as operations (`chains/operations.ts`); the send pipeline signs and sends them as every chain's.
 */
import { Type } from '@sinclair/typebox';
import { broadcastOperation, buildOperation, type ChainOperation, sendOperation } from '../operations.ts';
import type { ChainName } from '../types.ts';
import { evmChain } from './chains.ts';
import {
  Address,
  Amount,
  BroadcastBody,
  BuildBody,
  ClientTransaction,
  sendBody,
  TokenId,
  Txid,
} from './request-schemas.ts';
import type { EvmSends } from './sends.ts';
import { tokenPathSegments } from './token-paths.ts';

const SEND_DOC =
  "Signed with `password` (your stored address) or `privatekey` (unsecure address). Optional `gas` (units), `gasprice`, `maxFeePerGas`, `maxPriorityFeePerGas` (gwei), `nonce`, `data`; fees default from the node's fee history (EIP-1559 where the chain has it, legacy on BSC). Nonces come from a database lock per address, and under it the sends of the address still in flight count against its balance: every 201 is paid for. Errors: 401 `Wrong password provided`; 422 `insufficient funds for gas * price + value ...` (with sends in flight: `... balance B, in flight F, tx cost C, overshot O`), a revert with its reason. Counts one `transactions` unit.";

/** What every EVM send shares besides its path, summary and body. */
const SENT = { description: SEND_DOC, data: Txid, bodySize: 'callData' } as const;

export function evmSendOperations(chain: ChainName, sends: EvmSends): ChainOperation[] {
  const { fungible, nft, fungibleSegments, nftSegments } = tokenPathSegments(chain);
  const native = sendOperation({
    ...SENT,
    path: '/transactions',
    summary: `Send ${evmChain(chain).nativeSymbol}`,
    body: sendBody({ amount: Amount }),
    prepare: ({ network }, body) => ({
      proof: { password: body.password, privatekey: body.privatekey },
      prepared: sends.native(chain, network, body),
    }),
  });
  const tokens = fungibleSegments.map((segment) =>
    sendOperation({
      ...SENT,
      path: `/transactions/${segment}`,
      summary: `Send a ${fungible.toUpperCase()} token (amount in the token's units)`,
      body: sendBody({ contractaddress: Address, amount: Amount }),
      prepare: ({ network }, body) => ({
        proof: { password: body.password, privatekey: body.privatekey },
        prepared: sends.token(chain, network, body),
      }),
    }),
  );
  const nfts = nftSegments.map((segment) =>
    sendOperation({
      ...SENT,
      path: `/transactions/${segment}`,
      summary: `Send a ${nft.toUpperCase()} token (safeTransferFrom)`,
      body: sendBody({ contractaddress: Address, tokenId: TokenId }),
      prepare: ({ network }, body) => ({
        proof: { password: body.password, privatekey: body.privatekey },
        prepared: sends.nft(chain, network, body),
      }),
    }),
  );
  return [native, ...tokens, ...nfts, clientBuild(chain, sends), broadcast(chain, sends)];
}

function clientBuild(chain: ChainName, sends: EvmSends): ChainOperation {
  return buildOperation({
    path: '/transactions/build',
    summary:
      'An unsigned transaction (native, token with contractaddress, NFT with contractaddress + tokenId) to sign yourself; nothing is sent',
    description:
      '`tx` signs as it is with ethers v6 or viem; `unsigned` is its serialization, for `Transaction.from` (ethers) or `parseTransaction` (viem), a hardware wallet or an HSM.',
    body: BuildBody,
    data: Type.Object({
      tx: ClientTransaction,
      unsigned: Type.String({ description: 'The unsigned serialized transaction, 0x hex' }),
    }),
    bodySize: 'callData',
    build: ({ network }, body) => sends.build(chain, network, body),
  });
}

function broadcast(chain: ChainName, sends: EvmSends): ChainOperation {
  return broadcastOperation({
    path: '/transactions/broadcast',
    summary: 'Broadcast a transaction you signed',
    description:
      'Counts one `transactions` unit when the node accepts it. The history records its signer and what it moves (coin, token, NFT), read from the signed transaction.',
    body: BroadcastBody,
    txid: Type.String(),
    bodySize: 'signedTransaction',
    signed: ({ network }, { rawtx }) => sends.signed(chain, network, rawtx),
  });
}
