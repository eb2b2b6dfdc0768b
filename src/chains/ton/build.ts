/**
 * A custodial wallet's transfer, before and after its signature. The same description is signed by the
 * gateway (custodial sends) and answered by `transactions/build` for a user to sign with @ton/ton:
 *
 *   const wallet = WalletContractV5R1.create({ workchain: 0, publicKey, walletId: { networkGlobalId } });
 *   const body = wallet.createTransfer({ seqno, secretKey, sendMode, timeout: validUntil,
 *     messages: messages.map((m) => internal({ to: m.to, value: BigInt(m.value), bounce: m.bounce,
 *       body: m.body === null ? undefined : Cell.fromBase64(m.body) })) });
 *   const signed = external({ to: wallet.address, init: stateInit === null ? undefined : wallet.init, body });
 *   const boc = beginCell().store(storeMessage(signed)).endCell().toBoc().toString('base64');
 *
 * which is exactly what `signedTransfer` does here.
 */
import {
  type Address,
  beginCell,
  type Cell,
  external,
  type Message,
  type StateInit,
  storeMessage,
} from '@ton/core';
import { chainLibrary } from '../chain-library.ts';
import type { Network } from '../types.ts';
import { normalizedMessageHash } from './message-hash.ts';
import {
  NETWORK_GLOBAL_ID,
  type OutgoingMessage,
  relaxedMessage,
  WALLET_SEND_MODE,
} from './wallet-transfer.ts';

/** @ton/ton (its wallet contracts), loaded when a transfer is first built or signed. */
export const tonWallets = chainLibrary('@ton/ton', () => import('@ton/ton'));

/** How long a signed message may wait to be taken: past it the wallet refuses it, so it can be sent anew. */
export const MESSAGE_LIFETIME_S = 60;

/** One transfer of a custodial wallet, everything but its signature. */
export interface WalletTransfer {
  network: Network;
  /** The wallet's ed25519 public key. */
  publicKey: Buffer;
  seqno: number;
  /** Unix seconds: the wallet refuses the message after this. */
  validUntil: number;
  /** The wallet is not deployed yet: the message carries its code and data, and deploys it. */
  deploy: boolean;
  messages: OutgoingMessage[];
}

/** A signed external message, ready for the node. */
export interface SignedTransfer {
  message: Message;
  /** Base64 BOC of the message. */
  boc: string;
  /** The normalized hash in hex: the send's txid. */
  txid: string;
}

/** The JSON form of a transfer to sign elsewhere (`transactions/build`). */
export interface UnsignedTransfer {
  wallet: { address: string; publicKey: string; networkGlobalId: number; workchain: number };
  seqno: number;
  validUntil: number;
  sendMode: number;
  messages: { to: string; value: string; bounce: boolean; body: string | null }[];
  /** The wallet's code and data (base64 BOCs) while it is not deployed: the signed message must carry them. */
  stateInit: { code: string; data: string } | null;
}

/** The custodial wallet contract of a public key on a network. */
export async function custodialWallet(publicKey: Buffer, network: Network) {
  const { WalletContractV5R1 } = await tonWallets();
  return WalletContractV5R1.create({
    workchain: 0,
    publicKey,
    walletId: { networkGlobalId: NETWORK_GLOBAL_ID[network] },
  });
}

/** The transfer signed with the wallet's 64-byte ed25519 secret key. */
export async function signedTransfer(transfer: WalletTransfer, secretKey: Buffer): Promise<SignedTransfer> {
  const wallet = await custodialWallet(transfer.publicKey, transfer.network);
  const body = wallet.createTransfer({
    seqno: transfer.seqno,
    secretKey,
    sendMode: WALLET_SEND_MODE,
    timeout: transfer.validUntil,
    messages: transfer.messages.map(relaxedMessage),
  });
  return externalOf(wallet.address, transfer.deploy ? wallet.init : null, body);
}

/**
 * The transfer with a zero signature: what the node's fee estimate runs (it skips the signature check),
 * the same size as the signed one.
 */
export async function unsignedTransferBody(transfer: WalletTransfer): Promise<Cell> {
  const wallet = await custodialWallet(transfer.publicKey, transfer.network);
  return wallet.createTransfer({
    seqno: transfer.seqno,
    signer: async () => Buffer.alloc(64),
    sendMode: WALLET_SEND_MODE,
    timeout: transfer.validUntil,
    messages: transfer.messages.map(relaxedMessage),
  });
}

/** The wallet's code and data, for a fee estimate of a wallet's first (deploying) message. */
export async function walletInit(transfer: WalletTransfer): Promise<StateInit> {
  return (await custodialWallet(transfer.publicKey, transfer.network)).init;
}

/** The transfer in its JSON form, for `transactions/build`. */
export async function unsignedTransfer(transfer: WalletTransfer): Promise<UnsignedTransfer> {
  const wallet = await custodialWallet(transfer.publicKey, transfer.network);
  const testOnly = transfer.network === 'testnet';
  return {
    wallet: {
      address: wallet.address.toString({ bounceable: !transfer.deploy, testOnly }),
      publicKey: transfer.publicKey.toString('hex'),
      networkGlobalId: NETWORK_GLOBAL_ID[transfer.network],
      workchain: wallet.address.workChain,
    },
    seqno: transfer.seqno,
    validUntil: transfer.validUntil,
    sendMode: WALLET_SEND_MODE,
    messages: transfer.messages.map((message) => ({
      to: message.to.toString({ bounceable: message.bounce, testOnly }),
      value: message.value.toString(),
      bounce: message.bounce,
      body: message.body === null ? null : message.body.toBoc().toString('base64'),
    })),
    stateInit: transfer.deploy
      ? {
          code: wallet.init.code.toBoc().toString('base64'),
          data: wallet.init.data.toBoc().toString('base64'),
        }
      : null,
  };
}

function externalOf(to: Address, init: StateInit | null, body: Cell): SignedTransfer {
  const message = external({ to, init: init ?? undefined, body });
  const boc = beginCell().store(storeMessage(message)).endCell().toBoc().toString('base64');
  return { message, boc, txid: normalizedMessageHash(message) };
}
