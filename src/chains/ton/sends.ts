/**
 * The TON side of the send pipeline (services/send-pipeline.ts): TON and jetton transfers from a
 * custodial V5R1 wallet, checked against what the wallet holds with the node's fee estimate, signed with
 * the stored or given key and sent one at a time per wallet (seqno.ts); the unsigned builds; the
 * broadcasts of messages signed elsewhere.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { Address } from '@ton/core';
import { ApiError, invalidField } from '../../errors.ts';
import { assetAmount } from '../amount.ts';
import { boundedAmountField } from '../amount-field.ts';
import type { BuiltSend, PreparedSend, SendRecord, SignedBroadcast } from '../send-contract.ts';
import type { Network } from '../types.ts';
import { readSignedMessage } from './broadcast.ts';
import {
  custodialWallet,
  MESSAGE_LIFETIME_S,
  signedTransfer,
  type UnsignedTransfer,
  unsignedTransfer,
  unsignedTransferBody,
  type WalletTransfer,
  walletInit,
} from './build.ts';
import { commentField } from './comment.ts';
import { assertJettonGasCovered, assertJettonsCover, assertTonCovers, sendFee, ton } from './fees.ts';
import { JETTON_TRANSFER_ATTACHED, jettonTransferMessage } from './jetton-transfer.ts';
import type { TonSendNode, WalletState } from './send-node.ts';
import { SeqnoLanes } from './seqno.ts';
import { type OutgoingMessage, TON_DECIMALS, tonTransferMessage } from './wallet-transfer.ts';

/** The largest amount a message carries: a `VarUInteger 16` holds at most 2^120 - 1. */
export const COINS_MAX = 2n ** 120n - 1n;

/** How long a built transfer stays valid: time for a user to sign and broadcast it. */
export const BUILD_LIFETIME_S = 600;

export interface TonSendFields {
  from: string;
  to: string;
  amount: unknown;
  comment?: string;
}

export type JettonSendFields = TonSendFields & { contractaddress: string };

export type TonBuildFields = TonSendFields & { contractaddress?: string; publickey?: string };

/** The answer of a build: the transfer to sign, and its fee. */
export interface TonBuild {
  transfer: UnsignedTransfer;
  fee: string;
}

/** A send, checked against the wallet as it was read: its messages and what the wallet must hold for it. */
interface TransferPlan {
  /** The sender's wallet when the plan was made. */
  wallet: WalletState;
  messages: OutgoingMessage[];
  /**
   * Refuses the send (422) when the wallet, as `wallet` shows it, cannot pay it and `fee`: checked with
   * no fee when planned, and again with the node's estimate just before signing.
   */
  afford(wallet: WalletState, fee: bigint): Promise<void>;
  record: SendRecord;
}

export interface TonSendsOptions {
  /** Seconds a custodial send's message is valid for. */
  lifetimeS?: number;
  /** Times a lost message is signed and sent again. */
  tries?: number;
  /** Pause between two looks for a message's landing, ms. */
  pollMs?: number;
  /** The clock messages are dated by, ms. */
  now?: () => number;
}

export class TonSends {
  readonly #lanes: SeqnoLanes;

  constructor(
    private readonly nodeOf: (network: Network) => TonSendNode,
    /** How the gateway writes an address (user-friendly, per network, bounceable when active). */
    private readonly display: (address: Address, network: Network) => string,
    options: TonSendsOptions = {},
  ) {
    this.#lanes = new SeqnoLanes({
      lifetimeS: options.lifetimeS ?? MESSAGE_LIFETIME_S,
      tries: options.tries ?? 3,
      pollMs: options.pollMs ?? 1000,
      now: options.now ?? Date.now,
    });
  }

  ton(network: Network, body: TonSendFields): PreparedSend {
    const nanotons = amountOf(body.amount, TON_DECIMALS);
    const from = addressField('from', body.from);
    const to = addressField('to', body.to);
    const comment = commentField(body.comment);
    const record: SendRecord = {
      type: 'TON',
      from: this.display(from, network),
      to: this.display(to, network),
      amount: assetAmount(nanotons, TON_DECIMALS),
    };
    return this.prepared(network, from, record, (node) => tonPlan(node, from, to, nanotons, comment, record));
  }

  jetton(network: Network, body: JettonSendFields): PreparedSend {
    const from = addressField('from', body.from);
    const to = addressField('to', body.to);
    const master = addressField('contractaddress', body.contractaddress);
    const comment = commentField(body.comment);
    const record: SendRecord = {
      type: 'JETTON',
      from: this.display(from, network),
      to: this.display(to, network),
      amount: null,
      contractaddress: this.display(master, network),
    };
    return this.prepared(network, from, record, (node) =>
      jettonPlan(node, { from, to, master, amount: body.amount, comment }, record),
    );
  }

  /**
   * An unsigned transfer to sign elsewhere; nothing is sent or stored. The wallet's public key is read
   * from the wallet when it is deployed, and must be given while it is not.
   */
  async build(network: Network, body: TonBuildFields): Promise<TonBuild> {
    const node = this.nodeOf(network);
    const from = addressField('from', body.from);
    const to = addressField('to', body.to);
    const comment = commentField(body.comment);
    const publicKey = await this.publicKeyOf(node, network, from, body.publickey);
    const record: SendRecord = { type: 'TON', from: null, to: null, amount: null };
    const plan =
      body.contractaddress === undefined || body.contractaddress === ''
        ? await tonPlan(node, from, to, amountOf(body.amount, TON_DECIMALS), comment, record)
        : await jettonPlan(
            node,
            {
              from,
              to,
              master: addressField('contractaddress', body.contractaddress),
              amount: body.amount,
              comment,
            },
            record,
          );
    const transfer: WalletTransfer = {
      network,
      publicKey,
      seqno: plan.wallet.seqno,
      validUntil: Math.floor(Date.now() / 1000) + BUILD_LIFETIME_S,
      deploy: plan.wallet.status !== 'active',
      messages: plan.messages,
    };
    const fee = await estimatedFee(node, from, transfer);
    await plan.afford(plan.wallet, fee);
    return { transfer: await unsignedTransfer(transfer), fee: ton(fee) };
  }

  /** A message signed elsewhere (base64 BOC), read before it is sent. */
  async broadcast(network: Network, boc: string): Promise<SignedBroadcast> {
    const node = this.nodeOf(network);
    const signed = readSignedMessage(boc);
    return {
      txid: signed.txid,
      record: () => signed.record(node, (address) => this.display(address, network)),
      broadcast: async (intent) => {
        await intent(signed.txid);
        await node.sendMessage(signed.boc);
        return signed.txid;
      },
    };
  }

  private prepared(
    network: Network,
    from: Address,
    record: SendRecord,
    plan: (node: TonSendNode) => Promise<TransferPlan>,
  ): PreparedSend {
    const node = this.nodeOf(network);
    return {
      from: this.display(from, network),
      record,
      build: async (): Promise<BuiltSend> => {
        // The fee is estimated once the key is known (a first send's estimate runs the wallet's deployment).
        const checked = await plan(node);
        Object.assign(record, { amount: checked.record.amount });
        return {
          txid: null,
          send: async (privateKey, intent) => {
            const seed = Buffer.from(privateKey, 'hex');
            const publicKey = Buffer.from(ed25519.getPublicKey(seed));
            const secretKey = Buffer.concat([seed, publicKey]);
            const wallet = await custodialWallet(publicKey, network);
            if (!wallet.address.equals(from)) {
              throw new ApiError(422, `The private key does not belong to ${this.display(from, network)}`);
            }
            const { signed, landing } = await this.#lanes.send(
              node,
              `${network}:${from.toRawString()}`,
              from,
              {
                messages: checked.messages.length,
                signed: async (state, seqno, validUntil) => {
                  const transfer: WalletTransfer = {
                    network,
                    publicKey,
                    seqno,
                    validUntil,
                    deploy: state.status !== 'active',
                    messages: checked.messages,
                  };
                  await checked.afford(state, await estimatedFee(node, from, transfer));
                  return signedTransfer(transfer, secretKey);
                },
              },
              intent,
            );
            return { txid: signed.txid, data: { txid: signed.txid, fee: ton(landing.fee) } };
          },
        };
      },
    };
  }

  /** The public key a build signs for: given (and checked against `from`), or read from the deployed wallet. */
  private async publicKeyOf(
    node: TonSendNode,
    network: Network,
    from: Address,
    given: string | undefined,
  ): Promise<Buffer> {
    if (given === undefined || given === '') {
      const read = await node.walletPublicKey(from);
      if (read === null) {
        throw invalidField(
          'publickey',
          'The publickey field is needed while the from wallet is not deployed: its address alone does not tell the key.',
        );
      }
      return read;
    }
    if (!/^[0-9a-fA-F]{64}$/.test(given)) {
      throw invalidField('publickey', 'The publickey field must be the 32-byte ed25519 public key in hex.');
    }
    const publicKey = Buffer.from(given, 'hex');
    const wallet = await custodialWallet(publicKey, network);
    if (!wallet.address.equals(from)) {
      throw invalidField(
        'publickey',
        'The publickey field is not the key of the from wallet (a V5R1 wallet of this network).',
      );
    }
    return publicKey;
  }
}

/** A TON transfer, priced by the node and refused when the wallet cannot pay it. */
async function tonPlan(
  node: TonSendNode,
  from: Address,
  to: Address,
  nanotons: bigint,
  comment: string | null,
  record: SendRecord,
): Promise<TransferPlan> {
  const [wallet, receiver] = await Promise.all([node.walletState(from), node.accountStatus(to)]);
  const messages = [tonTransferMessage(to, nanotons, receiver, comment)];
  const afford = async (state: WalletState, fee: bigint) =>
    assertTonCovers(record.from ?? from.toString(), state.balance, nanotons, fee);
  await afford(wallet, 0n);
  return { wallet, messages, afford, record };
}

interface JettonSend {
  from: Address;
  to: Address;
  master: Address;
  amount: unknown;
  comment: string | null;
}

/** A jetton transfer from the sender's jetton wallet, refused when it lacks the jettons or the TON. */
async function jettonPlan(node: TonSendNode, send: JettonSend, record: SendRecord): Promise<TransferPlan> {
  const [wallet, senderJettonWallet, decimals] = await Promise.all([
    node.walletState(send.from),
    node.jettonWalletOf(send.master, send.from),
    node.jettonDecimals(send.master),
  ]);
  const units = amountOf(send.amount, decimals);
  const messages = [
    jettonTransferMessage({
      senderJettonWallet,
      to: send.to,
      responseTo: send.from,
      units,
      comment: send.comment,
    }),
  ];
  const sender = record.from ?? send.from.toString();
  const master = record.contractaddress ?? send.master.toString();
  const afford = async (state: WalletState, fee: bigint) => {
    assertJettonsCover(sender, master, await node.jettonBalance(senderJettonWallet), units, decimals);
    assertJettonGasCovered(sender, state.balance, JETTON_TRANSFER_ATTACHED, fee);
  };
  await afford(wallet, 0n);
  return { wallet, messages, afford, record: { ...record, amount: assetAmount(units, decimals) } };
}

/** The node's estimate of the transfer's fee, run on a zero signature (the node skips its check). */
async function estimatedFee(node: TonSendNode, from: Address, transfer: WalletTransfer): Promise<bigint> {
  const [body, init] = await Promise.all([
    unsignedTransferBody(transfer),
    transfer.deploy ? walletInit(transfer) : null,
  ]);
  return sendFee(await node.estimateFee(from, body, init));
}

/** An address field in any form TON writes one (raw `0:<hex>`, bounceable or not); else a 422 naming it. */
function addressField(field: string, value: string): Address {
  try {
    return Address.parse(value.trim());
  } catch {
    throw invalidField(field, `The ${field} field must be a TON address (raw 0:<hex> or user-friendly).`);
  }
}

/** An amount in base units a message can carry, or a 422 on the amount field. */
function amountOf(raw: unknown, decimals: number): bigint {
  return boundedAmountField(
    raw,
    decimals,
    COINS_MAX,
    (most) => `The amount field is too large: a TON message carries at most ${most} (2^120 - 1 base units).`,
  );
}
