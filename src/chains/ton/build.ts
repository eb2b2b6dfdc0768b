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
import { WalletContractV5R1 } from '@ton/ton';
import type { Network } from '../types.ts';
import { normalizedMessageHash } from './message-hash.ts';
import { type OutgoingMessage, relaxedMessage, WALLET_SEND_MODE } from './wallet-transfer.ts';
import { TON_GLOBAL_ID } from './wallet-v5r1.ts';

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

/** What the node's fee estimate runs: the body (base64 BOC) and, for a first message, the wallet's code and data. */
export interface FeeQuery {
  body: string;
  init: { code: string; data: string } | null;
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
export function custodialWallet(publicKey: Buffer, network: Network): WalletContractV5R1 {
  return WalletContractV5R1.create({
    workchain: 0,
    publicKey,
    walletId: { networkGlobalId: TON_GLOBAL_ID[network] },
  });
}

/** The transfer signed with the wallet's 64-byte ed25519 secret key. */
export function signedTransfer(transfer: WalletTransfer, secretKey: Buffer): SignedTransfer {
  const wallet = custodialWallet(transfer.publicKey, transfer.network);
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
 * The transfer with a zero signature, the same size as the signed one: the node's fee estimate runs it
 * without checking the signature.
 */
export async function feeQuery(transfer: WalletTransfer): Promise<FeeQuery> {
  const wallet = custodialWallet(transfer.publicKey, transfer.network);
  const body = await wallet.createTransfer({
    seqno: transfer.seqno,
    signer: async () => Buffer.alloc(64),
    sendMode: WALLET_SEND_MODE,
    timeout: transfer.validUntil,
    messages: transfer.messages.map(relaxedMessage),
  });
  return { body: base64(body), init: transfer.deploy ? stateInitOf(wallet.init) : null };
}

/** The transfer in its JSON form, for `transactions/build`. */
export function unsignedTransfer(transfer: WalletTransfer): UnsignedTransfer {
  const wallet = custodialWallet(transfer.publicKey, transfer.network);
  const testOnly = transfer.network === 'testnet';
  return {
    wallet: {
      address: wallet.address.toString({ bounceable: !transfer.deploy, testOnly }),
      publicKey: transfer.publicKey.toString('hex'),
      networkGlobalId: TON_GLOBAL_ID[transfer.network],
      workchain: wallet.address.workChain,
    },
    seqno: transfer.seqno,
    validUntil: transfer.validUntil,
    sendMode: WALLET_SEND_MODE,
    messages: transfer.messages.map((message) => ({
      to: message.to.toString({ bounceable: message.bounce, testOnly }),
      value: message.value.toString(),
      bounce: message.bounce,
      body: message.body === null ? null : base64(message.body),
    })),
    stateInit: transfer.deploy ? stateInitOf(wallet.init) : null,
  };
}

function stateInitOf(init: StateInit): { code: string; data: string } {
  if (!init.code || !init.data) throw new Error("a wallet's state init has its code and data");
  return { code: base64(init.code), data: base64(init.data) };
}

function base64(cell: Cell): string {
  return cell.toBoc().toString('base64');
}

function externalOf(to: Address, init: StateInit | null, body: Cell): SignedTransfer {
  const message = external({ to, init: init ?? undefined, body });
  const boc = base64(beginCell().store(storeMessage(message)).endCell());
  return { message, boc, txid: normalizedMessageHash(message, beginCell()) };
}
