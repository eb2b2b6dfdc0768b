import { Type } from '@sinclair/typebox';
import { buildOperation, type ChainOperation } from '../../operations.ts';
import { UnsignedTransaction } from '../schemas.ts';
import type { TronSends } from '../sends.ts';
import { Trc10Transfer, Trc20Transfer, Trc721Transfer, TrxTransfer } from './transfer-fields.ts';

const BUILD =
  'The node builds the transaction and the gateway checks it against the request with tronweb ' +
  '(txCheckWithArgs, txCheck), so what comes back is exactly what was asked. Sign the returned ' +
  'object as it is (`await tronWeb.trx.sign(data, privateKey)`) and send it to ' +
  '`POST /api/v2/tron/transactions/broadcast`. Nothing is signed, broadcast or stored, and no ' +
  "`transactions` unit is used. The body is the matching send's without `password` / `privatekey`; " +
  'a refusal by the node (e.g. `balance is not sufficient`) answers 422.';

/** Unsigned builds of every Tron send: TRX, TRC10, TRC20 and TRC721, for the caller to sign. */
export function buildOperations(sends: TronSends): ChainOperation[] {
  return [
    buildOperation({
      path: '/transactions/build',
      summary: 'Build an unsigned TRX transfer to sign yourself; nothing is broadcast',
      description: BUILD,
      body: Type.Object(TrxTransfer),
      data: UnsignedTransaction,
      build: ({ network }, body) => sends.buildTrx(network, body),
    }),
    buildOperation({
      path: '/transactions/trc10/build',
      summary: "Build an unsigned TRC10 transfer (amount in the asset's units); nothing is broadcast",
      description: `${BUILD} An unknown asset answers 400 \`TRC10 token … does not exist\`.`,
      body: Type.Object(Trc10Transfer),
      data: UnsignedTransaction,
      build: ({ network }, body) => sends.buildTrc10(network, body),
    }),
    buildOperation({
      path: '/transactions/trc20/build',
      summary: "Build an unsigned TRC20 transfer (amount in the token's units); nothing is broadcast",
      description: `${BUILD} A contract that does not answer decimals() answers 400.`,
      body: Type.Object(Trc20Transfer),
      data: UnsignedTransaction,
      build: ({ network }, body) => sends.buildTrc20(network, body),
    }),
    buildOperation({
      path: '/transactions/trc721/build',
      summary: 'Build an unsigned TRC721 transferFrom(from, to, tokenid); nothing is broadcast',
      description: `${BUILD} \`amount\` is accepted and ignored (one token).`,
      body: Type.Object(Trc721Transfer),
      data: UnsignedTransaction,
      build: ({ network }, body) => sends.buildTrc721(network, body),
    }),
  ];
}
