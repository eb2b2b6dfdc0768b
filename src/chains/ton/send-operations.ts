/**
 * TON's sends, builds and broadcasts under /api/v2/ton, as operations (`chains/operations.ts`): TON and
 * jetton transfers with a comment, the unsigned transfer to sign with @ton/ton, and the broadcast of a
 * signed message. The HTTP layer answers them as every chain's.
 */
import { Type } from '@sinclair/typebox';
import { WalletPassword } from '../../custody/wallet-fields.ts';
import { addressSchema } from '../family.ts';
import { broadcastOperation, buildOperation, type ChainOperation, sendOperation } from '../operations.ts';
import type { FamilyPorts } from '../ports.ts';
import { TonAdapter } from './adapter.ts';
import { tonAddressForm } from './address-form.ts';
import { MAX_COMMENT_BYTES } from './comment.ts';
import { JETTON_FORWARD_AMOUNT, JETTON_TRANSFER_ATTACHED, ton } from './fees.ts';
import { TonPrivateKey } from './private-key-field.ts';
import { tonSendNode } from './send-node.ts';
import { BUILD_LIFETIME_S, TonSends } from './sends.ts';
import { MESSAGE_LIFETIME_S } from './seqno.ts';
import type { WalletTurns } from './wallet-turns.ts';

const Amount = Type.Union([Type.String({ maxLength: 100 }), Type.Number()], {
  description:
    "Amount in the asset's units (TON, or the jetton's own decimals), as a decimal string or number without an exponent",
});
const Comment = Type.String({
  maxLength: MAX_COMMENT_BYTES,
  description: `A text comment the receiver sees (how TON payments are told apart), at most ${MAX_COMMENT_BYTES} bytes of UTF-8`,
  examples: ['order 1234'],
});
const Address = addressSchema(tonAddressForm);
const JettonMaster = addressSchema(tonAddressForm, {
  description: "The jetton's master contract (USDT on TON: EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs)",
  examples: ['EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs'],
});
const Txid = Type.String({
  pattern: '^[0-9a-f]{64}$',
  description:
    "The normalized hash (TEP-467) of the wallet's external message, 64 hex: what toncenter answers as `message_hash_norm` and finds the transaction by",
});
/** What every transfer names: who pays whom how much, and the comment the receiver sees. */
const TransferFields = { from: Address, to: Address, amount: Amount, comment: Type.Optional(Comment) };
const SigningFields = {
  password: Type.Optional(WalletPassword),
  privatekey: Type.Optional(TonPrivateKey),
};
const SentData = Type.Object({
  txid: Txid,
  fee: Type.String({ description: 'What the transaction cost the wallet, in TON', examples: ['0.0031'] }),
});

const SIGNING =
  'Signed with `password` (a stored address of yours) or `privatekey`. A wrong password answers 401 ' +
  "`Wrong password provided`; a private key that is not `from`'s answers 422. The sender is a V5R1 " +
  'wallet; its first send deploys it. Before signing, the node estimates the fee and the send is checked ' +
  'against the balances: too little answers 422 `Insufficient funds: …` with the figures in TON. The ' +
  "sends of one wallet go one at a time, across gateway instances (each on the wallet's next seqno; one " +
  "kept waiting over 5 minutes by other instances' sends answers 503); the answer comes once the " +
  `message has landed in a transaction, and a message lost on its way (not taken within ${MESSAGE_LIFETIME_S} s) ` +
  "is signed again on a fresh seqno, up to 3 times. `txid` is the landed message's normalized hash, `fee` " +
  'what its transaction cost. Counts one `transactions` unit when sent.';

/** The sends, builds and broadcasts, on the TON adapters of the registry. */
export function tonSendOperations({ registry }: FamilyPorts, turns: WalletTurns): ChainOperation[] {
  const sends = new TonSends((network) => tonSendNode(registry.adapterOf('ton', network, TonAdapter)), turns);
  return tonSendOperationsOf(sends);
}

/** The operations over `sends` (tests give theirs a faster clock). */
export function tonSendOperationsOf(sends: TonSends): ChainOperation[] {
  return [
    sendOperation({
      path: '/transactions',
      summary: 'Send TON, with an optional comment',
      description: `${SIGNING} The message bounces back only from an active contract: TON sent to an address with no code yet stays there.`,
      body: Type.Object({ ...TransferFields, ...SigningFields }),
      data: SentData,
      prepare: ({ network }, { password, privatekey, ...send }) => ({
        proof: { password, privatekey },
        prepared: sends.ton(network, send),
      }),
    }),
    sendOperation({
      path: '/transactions/jetton',
      summary:
        "Send a jetton (USDT or any TEP-74 jetton, amount in the jetton's units), with an optional comment",
      description: `${SIGNING} The sender's jetton wallet is the one the master names for it (\`get_wallet_address\`); the decimals are the master's metadata's. The transfer attaches ${ton(JETTON_TRANSFER_ATTACHED)} TON for the jetton wallets' gas (the unspent part returns to the sender) and forwards ${JETTON_FORWARD_AMOUNT} nanoton to the receiver with the comment, so the receiver's wallet is notified. Too few jettons answers 422.`,
      body: Type.Object({ ...TransferFields, contractaddress: JettonMaster, ...SigningFields }),
      data: SentData,
      prepare: ({ network }, { password, privatekey, ...send }) => ({
        proof: { password, privatekey },
        prepared: sends.jetton(network, send),
      }),
    }),
    buildOperation({
      path: '/transactions/build',
      summary: 'Build an unsigned TON or jetton transfer to sign with @ton/ton',
      description:
        'With `contractaddress`, a jetton transfer; without, a TON transfer. The same checks as a send apply, with the fee estimated. ' +
        '`publickey` (32-byte ed25519, hex) is needed while `from` is not deployed; a deployed wallet tells its own. ' +
        '`transfer` is what `WalletContractV5R1` of @ton/ton signs: `const wallet = WalletContractV5R1.create({ workchain: 0, publicKey, walletId: { networkGlobalId: transfer.wallet.networkGlobalId } })`, ' +
        '`const body = wallet.createTransfer({ seqno: transfer.seqno, timeout: transfer.validUntil, sendMode: transfer.sendMode, secretKey, messages: transfer.messages.map((m) => internal({ to: m.to, value: BigInt(m.value), bounce: m.bounce, body: m.body === null ? undefined : Cell.fromBase64(m.body) })) })`, ' +
        '`const signed = external({ to: wallet.address, init: transfer.stateInit === null ? undefined : wallet.init, body })`, ' +
        "then POST `beginCell().store(storeMessage(signed)).endCell().toBoc().toString('base64')` as `boc` to `transactions/broadcast` " +
        `within ${BUILD_LIFETIME_S} s (\`validUntil\`). Nothing is sent or stored.`,
      body: Type.Object({
        ...TransferFields,
        contractaddress: Type.Optional(JettonMaster),
        publickey: Type.Optional(
          Type.String({
            pattern: '^[0-9a-fA-F]{64}$',
            description: 'The ed25519 public key (hex) of the `from` wallet, which it must derive',
          }),
        ),
      }),
      data: Type.Object({
        transfer: Type.Object({
          wallet: Type.Object({
            address: Type.String(),
            publicKey: Type.String(),
            networkGlobalId: Type.Integer({ description: '-239 mainnet, -3 testnet' }),
            workchain: Type.Integer(),
          }),
          seqno: Type.Integer(),
          validUntil: Type.Integer({ description: 'Unix seconds; the wallet refuses the message after it' }),
          sendMode: Type.Integer({ description: 'PAY_GAS_SEPARATELY + IGNORE_ERRORS (3)' }),
          messages: Type.Array(
            Type.Object({
              to: Type.String(),
              value: Type.String({ description: 'Nanotons' }),
              bounce: Type.Boolean(),
              body: Type.Union([Type.String({ description: 'Base64 BOC' }), Type.Null()]),
            }),
          ),
          stateInit: Type.Union([
            Type.Object(
              { code: Type.String(), data: Type.String() },
              {
                description: 'The wallet is not deployed: attach `wallet.init` to the external message',
              },
            ),
            Type.Null(),
          ]),
        }),
        fee: Type.String({ description: 'The estimated fee, TON' }),
      }),
      build: ({ network }, body) => sends.build(network, body),
    }),
    broadcastOperation({
      path: '/transactions/broadcast',
      summary: 'Broadcast a message signed elsewhere',
      description:
        "`boc`: the signed external message to a wallet, a base64 BOC. Its txid is the message's normalized hash (TEP-467), known before it is sent. " +
        "A BOC that is no external message answers 422; the node's refusal (a bad signature or seqno, an expired message) answers 422 in its words. Counts one `transactions` unit.",
      body: Type.Object({
        boc: Type.String({
          minLength: 1,
          maxLength: 8000,
          description: 'The signed external message, base64 BOC',
        }),
      }),
      txid: Txid,
      bodySize: 'signedTransaction',
      signed: ({ network }, { boc }) => sends.broadcast(network, boc),
    }),
  ];
}
