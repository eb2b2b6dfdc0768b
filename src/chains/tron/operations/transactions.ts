import { Type } from '@sinclair/typebox';
import { broadcastOperation, type ChainOperation, sendOperation } from '../../operations.ts';
import { SignedTransaction, SigningFields, TxidData } from '../schemas.ts';
import type { TronSends } from '../sends.ts';
import { signedWith } from './signed-with.ts';
import { Trc10Transfer, Trc20Transfer, Trc721Transfer, TrxTransfer } from './transfer-fields.ts';

const SIGNING =
  'Signed with `password` (a stored address of yours) or `privatekey` (an unsecure address). A wrong ' +
  "password or a private key that is not `from`'s answers 422 `Validate signature error: ...` (as " +
  'Chaingateway documents it); too little TRX answers 422 ' +
  '`balance is not sufficient`. Counts one `transactions` unit when broadcast.';

/** Sends of TRX / TRC20 / TRC10 / TRC721 and broadcasts of signed ones (builds: builds.ts). */
export function transactionOperations(sends: TronSends): ChainOperation[] {
  return [
    sendOperation({
      path: '/transactions',
      summary: 'Send TRX',
      description: SIGNING,
      body: Type.Object({ ...TrxTransfer, ...SigningFields }),
      data: TxidData,
      prepare: signedWith((network, send) => sends.trx(network, send)),
    }),
    sendOperation({
      path: '/transactions/trc20',
      summary: "Send a TRC20 token (amount in the token's units)",
      description: `${SIGNING} Before broadcasting, the energy and bandwidth are estimated and compared with what the sender has; a transfer that would fail on chain or burn more than fee_limit is refused with 422 saying what is missing. The estimate is returned.`,
      body: Type.Object({ ...Trc20Transfer, ...SigningFields }),
      data: TxidData,
      prepare: signedWith((network, send) => sends.trc20(network, send)),
    }),
    sendOperation({
      path: '/transactions/trc10',
      summary: "Send a TRC10 asset (amount in the asset's units)",
      description: SIGNING,
      body: Type.Object({ ...Trc10Transfer, ...SigningFields }),
      data: TxidData,
      prepare: signedWith((network, send) => sends.trc10(network, send)),
    }),
    sendOperation({
      path: '/transactions/trc721',
      summary: 'Send a TRC721 token',
      description: `${SIGNING} Pre-flighted like TRC20 transfers. \`amount\` is accepted and ignored (one token).`,
      body: Type.Object({ ...Trc721Transfer, ...SigningFields }),
      data: TxidData,
      prepare: signedWith((network, send) => sends.trc721(network, send)),
    }),
    broadcastOperation({
      path: '/transactions/broadcast',
      summary:
        "Broadcast a transaction you signed (tronweb's signed JSON, at the top level or under `transaction`)",
      description:
        'Counts one `transactions` unit when the node accepts it. The node re-encodes `raw_data`; a signature that does not match answers 422 `Validate signature error ...`. ' +
        "The history records what the contract moves: TRX (TransferContract), TRC10 (TransferAssetContract), TRC20 (`transfer(address,uint256)`) or TRC721 (`transferFrom` / `safeTransferFrom`), with from, to, the amount in the asset's units, `contractaddress` and `tokenid`. A TransferContract or TransferAssetContract whose amount or asset id the node could not read answers 422.",
      body: Type.Union([SignedTransaction, Type.Object({ transaction: SignedTransaction })]),
      txid: Type.String(),
      bodySize: 'signedTransaction',
      signed: ({ network }, body) => sends.signed(network, 'transaction' in body ? body.transaction : body),
    }),
  ];
}
