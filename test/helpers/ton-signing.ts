// A TON build signed as its README tells a user to: WalletContractV5R1 of @ton/ton with the user's key,
// the built messages as internal messages, the wallet's init attached while it is not deployed.
import { beginCell, Cell, external, internal, storeMessage } from '@ton/core';
import type { KeyPair } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';

/** What POST /api/v2/ton/transactions/build answers as `transfer`. */
export interface BuiltTonTransfer {
  wallet: { networkGlobalId: number };
  seqno: number;
  validUntil: number;
  sendMode: number;
  messages: { to: string; value: string; bounce: boolean; body: string | null }[];
  stateInit: unknown;
}

/** The signed external message as POST transactions/broadcast takes it (`boc`), and its body. */
export function signBuiltTransfer(transfer: BuiltTonTransfer, keys: KeyPair): { boc: string; body: Cell } {
  const wallet = WalletContractV5R1.create({
    workchain: 0,
    publicKey: keys.publicKey,
    walletId: { networkGlobalId: transfer.wallet.networkGlobalId },
  });
  const body = wallet.createTransfer({
    seqno: transfer.seqno,
    timeout: transfer.validUntil,
    sendMode: transfer.sendMode,
    secretKey: keys.secretKey,
    messages: transfer.messages.map((message) =>
      internal({
        to: message.to,
        value: BigInt(message.value),
        bounce: message.bounce,
        ...(message.body === null ? {} : { body: Cell.fromBase64(message.body) }),
      }),
    ),
  });
  const signed = external({
    to: wallet.address,
    ...(transfer.stateInit === null ? {} : { init: wallet.init }),
    body,
  });
  return { boc: beginCell().store(storeMessage(signed)).endCell().toBoc().toString('base64'), body };
}
