/**
 * The messages of a sponsored TON transfer, built with @ton/core and @ton/ton (loaded with the first
 * sponsored job, as the sends load them). The owner's V5R1 wallet signs its transfer as a signed internal
 * request (prefix `sint`): a wallet runs such a request from any internal message that carries it, and the
 * gas and forwarding are paid from that message's value. The sponsor's own wallet sends that message with
 * an external message of its own, signed by the sponsor; it carries the TON the transfer needs and, while
 * the owner's wallet is not deployed, the wallet's code and data, which deploy it.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import {
  Address,
  beginCell,
  type Cell,
  external,
  internal,
  type MessageRelaxed,
  SendMode,
  type StateInit,
  storeMessage,
  storeMessageRelaxed,
} from '@ton/core';
import { WalletContractV5R1 } from '@ton/ton';
import type { Network } from '../types.ts';
import { normalizedMessageHash } from './message-hash.ts';

export { jettonTransferBody } from './jetton-transfer.ts';

import { TON_GLOBAL_ID, v5r1WalletId } from './wallet-v5r1.ts';

/** V5R1's prefix of a request signed for an external message. */
const SIGNED_EXTERNAL = 0x7369676e;
/** The tag of an action that sends a message (`action_send_msg`). */
const SEND_MESSAGE_ACTION = 0x0ec3c86d;
/** What the sponsor's wallet does with every message it sends (its external message must ignore errors). */
const SPONSOR_SEND_MODE = SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS;

/** One message the owner's wallet sends, and how. */
export interface OwnerAction {
  /** Raw address. */
  to: string;
  value: bigint;
  bounce: boolean;
  body: Cell | null;
  mode: number;
}

/** A wallet and what signs for it: the 32-byte seed (hex), or null for a zero signature (fee estimates). */
export interface WalletSigner {
  publicKey: Buffer;
  seed: string | null;
}

/** What the owner's wallet is asked to do, signed as an internal request. */
export interface OwnerRequest {
  network: Network;
  owner: WalletSigner;
  seqno: number;
  /** Unix seconds. */
  validUntil: number;
  actions: OwnerAction[];
}

/** The sponsor's message to the owner's wallet: its value, and the owner's state init while undeployed. */
export interface Carrier {
  /** Raw address of the owner's wallet. */
  to: string;
  value: bigint;
  /** The owner's request, signed. */
  body: Cell;
  init: StateInit | null;
}

/** The sponsor's external message, with what it carries. */
export interface SponsorMessage {
  network: Network;
  sponsor: WalletSigner;
  seqno: number;
  validUntil: number;
  /** The sponsor's wallet is not deployed yet: this message deploys it. */
  deploy: boolean;
  carriers: Carrier[];
}

/** A signed external message (the sponsor's, or the owner's own): its BOC, and its normalized hash (hex), the id it is found by. */
export interface SignedExternal {
  boc: string;
  hash: string;
}

/** The V5R1 wallet of a public key on a network. */
export function v5r1Wallet(publicKey: Buffer, network: Network): WalletContractV5R1 {
  return WalletContractV5R1.create({
    workchain: 0,
    publicKey,
    walletId: { networkGlobalId: TON_GLOBAL_ID[network] },
  });
}

/** The public key of a 32-byte ed25519 seed (hex). */
export function publicKeyOf(seed: string): Buffer {
  return Buffer.from(ed25519.getPublicKey(Buffer.from(seed, 'hex')));
}

/** The raw form (`0:<hex>`) of an address in any form, as the node's answers compare. */
export function rawOf(address: string): string {
  return Address.parse(address).toRawString();
}

/** The send modes the owner's actions use: its balance pays forwarding, or the incoming value is carried on. */
export const OWNER_MODES = {
  paySeparately: SendMode.PAY_GAS_SEPARATELY,
  carryIncoming: SendMode.CARRY_ALL_REMAINING_INCOMING_VALUE,
  carryBalance: SendMode.CARRY_ALL_REMAINING_BALANCE,
} as const;

/** The owner's request, signed (or zero-signed for an estimate) as V5R1's signed internal request. */
export function ownerRequestBody(request: OwnerRequest): Promise<Cell> {
  return walletBody(request.network, request.owner, request.seqno, request.validUntil, 'internal', [
    ...request.actions.map((action) => ({ mode: action.mode, message: relaxed(action) })),
  ]);
}

/**
 * The owner's own external message doing what the request asks (a transfer the owner pays itself): every
 * action's mode gains IGNORE_ERRORS, as V5R1 wants of an external message.
 */
export async function ownerExternal(
  request: OwnerRequest,
  deploy: boolean,
): Promise<SignedExternal & { body: Cell; init: StateInit | null }> {
  const body = await walletBody(
    request.network,
    request.owner,
    request.seqno,
    request.validUntil,
    'external',
    [...request.actions.map((action) => ({ mode: action.mode, message: relaxed(action) }))],
  );
  const wallet = v5r1Wallet(request.owner.publicKey, request.network);
  const init = deploy ? wallet.init : null;
  return { ...externalMessage(wallet.address, init, body), body, init };
}

/** The owner wallet's state init, which the sponsor's message carries while the wallet is not deployed. */
export function walletInit(publicKey: Buffer, network: Network): StateInit {
  return v5r1Wallet(publicKey, network).init;
}

/**
 * The sponsor's external message's body, signed (or zero-signed), and its state init when it deploys: a
 * V5R1 signed external request whose messages keep the owner's state init and request in references.
 * That is the layout a message is written in when it is passed on with its sender's address filled in,
 * so the message has one hash on its way out and on its way in (the devnet's emulator writes the message
 * anew between the two transactions; @ton/ton's own list would put the state init inline).
 */
export async function sponsorBody(message: SponsorMessage): Promise<{ body: Cell; init: StateInit | null }> {
  const outList = message.carriers.reduce((previous, carrier) => {
    const carried = internal({
      to: Address.parse(carrier.to),
      value: carrier.value,
      // A request the owner's wallet refuses brings the value back to the sponsor.
      bounce: true,
      body: carrier.body,
      init: carrier.init ?? undefined,
    });
    return beginCell()
      .storeRef(previous)
      .storeUint(SEND_MESSAGE_ACTION, 32)
      .storeUint(SPONSOR_SEND_MODE, 8)
      .storeRef(beginCell().store(storeMessageRelaxed(carried, { forceRef: true })))
      .endCell();
  }, beginCell().endCell());
  const signing = beginCell()
    .storeUint(SIGNED_EXTERNAL, 32)
    .storeUint(v5r1WalletId(message.network), 32)
    .storeUint(message.validUntil, 32)
    .storeUint(message.seqno, 32)
    .storeMaybeRef(outList)
    // No extended actions (extensions).
    .storeBit(false);
  const seed = message.sponsor.seed === null ? null : Buffer.from(message.sponsor.seed, 'hex');
  const signature =
    seed === null ? Buffer.alloc(64) : Buffer.from(ed25519.sign(signing.endCell().hash(), seed));
  const body = beginCell().storeBuilder(signing).storeBuffer(signature).endCell();
  const init = message.deploy ? v5r1Wallet(message.sponsor.publicKey, message.network).init : null;
  return { body, init };
}

/** The sponsor's external message, signed. */
export async function signedSponsorMessage(message: SponsorMessage): Promise<SignedExternal> {
  const { body, init } = await sponsorBody(message);
  return externalMessage(v5r1Wallet(message.sponsor.publicKey, message.network).address, init, body);
}

/** A cell as base64 BOC, as the node's API takes it. */
export function bocOf(cell: Cell): string {
  return cell.toBoc().toString('base64');
}

function relaxed(action: OwnerAction): MessageRelaxed {
  return internal({
    to: Address.parse(action.to),
    value: action.value,
    bounce: action.bounce,
    body: action.body ?? undefined,
  });
}

async function walletBody(
  network: Network,
  signer: WalletSigner,
  seqno: number,
  validUntil: number,
  authType: 'internal' | 'external',
  messages: { mode: number; message: MessageRelaxed }[],
): Promise<Cell> {
  const wallet = v5r1Wallet(signer.publicKey, network);
  const actions = messages.map(({ mode, message }) => ({
    type: 'sendMsg' as const,
    mode,
    outMsg: message,
  }));
  const seed = signer.seed === null ? null : Buffer.from(signer.seed, 'hex');
  // A zero signature has the signed one's size, so an estimate's fees are the real message's.
  const sign = async (payload: Cell) =>
    seed === null ? Buffer.alloc(64) : Buffer.from(ed25519.sign(payload.hash(), seed));
  return wallet.createRequest({ seqno, timeout: validUntil, actions, authType, signer: sign });
}

function externalMessage(to: Address, init: StateInit | null, body: Cell): SignedExternal {
  const message = external({ to, init: init ?? undefined, body });
  const boc = beginCell().store(storeMessage(message)).endCell().toBoc().toString('base64');
  return { boc, hash: normalizedMessageHash(message, beginCell()) };
}
