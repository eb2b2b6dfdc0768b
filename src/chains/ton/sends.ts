/**
 * The TON side of the send pipeline (services/send-pipeline.ts): TON and jetton transfers from a
 * custodial V5R1 wallet, checked against what the wallet holds and against the node's fee estimate,
 * signed with the stored or given key and sent one at a time per wallet (seqno.ts); the unsigned builds;
 * the broadcasts of messages signed elsewhere. The messages themselves are built by `send-messages.ts`,
 * loaded with @ton/core and @ton/ton on the first use.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { ApiError, invalidField } from '../../errors.ts';
import { assetAmount } from '../amount.ts';
import { boundedAmountField } from '../amount-field.ts';
import { chainLibrary } from '../chain-library.ts';
import type { BuiltSend, PreparedSend, SendRecord, SignedBroadcast } from '../send-contract.ts';
import type { Network } from '../types.ts';
import { friendlyAddress, rawAddress, tonAddressOf, walletAddress } from './address.ts';
import { NANOTON_DECIMALS } from './block-transfers.ts';
import type { AddressDisplay } from './broadcast.ts';
import type { UnsignedTransfer, WalletTransfer } from './build.ts';
import { commentField } from './comment.ts';
import {
  assertJettonGasCovered,
  assertJettonsCover,
  assertTonCovers,
  JETTON_TRANSFER_ATTACHED,
  sendFee,
  ton,
} from './fees.ts';
import type { TonSendNode, WalletState } from './send-node.ts';
import { MESSAGE_LIFETIME_S, SeqnoLanes } from './seqno.ts';
import type { OutgoingMessage } from './wallet-transfer.ts';
import type { WalletTurns } from './wallet-turns.ts';
import { v5r1Address } from './wallet-v5r1.ts';

/** The message-building half of the sends, with the chain libraries it needs. */
const sendMessages = chainLibrary('@ton/ton', () => import('./send-messages.ts'));

/** The largest amount a message carries: a `VarUInteger 16` holds at most 2^120 - 1. */
const COINS_MAX = 2n ** 120n - 1n;

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
   * Refuses the send (422) when the wallet, as `wallet` shows it, cannot pay it and `fee`: checked
   * without the fee (null) when planned, and again with the node's estimate just before signing.
   */
  afford(wallet: WalletState, fee: bigint | null): Promise<void>;
  /** What the history records (a jetton's amount is known once its decimals are read). */
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
  readonly #now: () => number;

  constructor(
    private readonly nodeOf: (network: Network) => TonSendNode,
    turns: WalletTurns,
    options: TonSendsOptions = {},
  ) {
    this.#now = options.now ?? Date.now;
    this.#lanes = new SeqnoLanes(turns, {
      lifetimeS: options.lifetimeS ?? MESSAGE_LIFETIME_S,
      tries: options.tries ?? 3,
      pollMs: options.pollMs ?? 1000,
      now: this.#now,
    });
  }

  ton(network: Network, body: TonSendFields): PreparedSend {
    const nanotons = amountOf(body.amount, NANOTON_DECIMALS);
    const from = addressField('from', body.from);
    const to = addressField('to', body.to);
    const comment = commentField(body.comment);
    const shown = display(network);
    const record: SendRecord = {
      type: 'TON',
      from: shown.wallet(from),
      to: shown.wallet(to),
      amount: assetAmount(nanotons, NANOTON_DECIMALS),
    };
    return this.prepared(network, from, record, (node) => tonPlan(node, from, to, nanotons, comment, record));
  }

  jetton(network: Network, body: JettonSendFields): PreparedSend {
    const from = addressField('from', body.from);
    const to = addressField('to', body.to);
    const master = addressField('contractaddress', body.contractaddress);
    const comment = commentField(body.comment);
    const shown = display(network);
    const record: SendRecord = {
      type: 'JETTON',
      from: shown.wallet(from),
      to: shown.wallet(to),
      amount: null,
      contractaddress: shown.contract(master),
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
    const publicKey = await publicKeyOf(node, network, from, body.publickey);
    const shown = display(network);
    const record: SendRecord = { type: 'TON', from: shown.wallet(from), to: shown.wallet(to), amount: null };
    const master =
      body.contractaddress === undefined || body.contractaddress === ''
        ? null
        : addressField('contractaddress', body.contractaddress);
    const plan =
      master === null
        ? await tonPlan(node, from, to, amountOf(body.amount, NANOTON_DECIMALS), comment, record)
        : await jettonPlan(
            node,
            { from, to, master, amount: body.amount, comment },
            { ...record, contractaddress: shown.contract(master) },
          );
    const transfer: WalletTransfer = {
      network,
      publicKey,
      seqno: plan.wallet.seqno,
      validUntil: Math.floor(this.#now() / 1000) + BUILD_LIFETIME_S,
      deploy: plan.wallet.status !== 'active',
      messages: plan.messages,
    };
    const fee = await estimatedFee(node, from, transfer);
    await plan.afford(plan.wallet, fee);
    return { transfer: (await sendMessages()).unsignedTransfer(transfer), fee: ton(fee) };
  }

  /** A message signed elsewhere (base64 BOC), read before it is sent. */
  async broadcast(network: Network, boc: string): Promise<SignedBroadcast> {
    const node = this.nodeOf(network);
    const signed = (await sendMessages()).readSignedMessage(boc);
    return {
      txid: signed.txid,
      record: () => signed.record(node, display(network)),
      broadcast: async (intent) => {
        await intent(signed.txid);
        await node.sendMessage(signed.boc);
        return signed.txid;
      },
    };
  }

  private prepared(
    network: Network,
    from: string,
    record: SendRecord,
    plan: (node: TonSendNode) => Promise<TransferPlan>,
  ): PreparedSend {
    const node = this.nodeOf(network);
    return {
      from: display(network).wallet(from),
      record,
      build: async (): Promise<BuiltSend> => {
        // The fee is estimated once the key is known (a first send's estimate runs the wallet's deployment).
        const checked = await plan(node);
        record.amount = checked.record.amount;
        return {
          txid: null,
          send: async (privateKey, intent) => {
            const seed = Buffer.from(privateKey, 'hex');
            const publicKey = Buffer.from(ed25519.getPublicKey(seed));
            if (rawAddress(v5r1Address(publicKey, network)) !== from) {
              throw new ApiError(422, `The private key does not belong to ${record.from}`);
            }
            const secretKey = Buffer.concat([seed, publicKey]);
            const messages = await sendMessages();
            const { signed, landing } = await this.#lanes.send(
              node,
              network,
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
                  return messages.signedTransfer(transfer, secretKey);
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
}

/** How the history writes addresses on `network`: wallets as wallets show them, contracts bounceable. */
function display(network: Network): AddressDisplay {
  const testOnly = network === 'testnet';
  const parsed = (raw: string) => {
    const address = tonAddressOf(raw);
    if (address === null) throw new Error(`not a raw TON address: ${raw}`);
    return address;
  };
  return {
    wallet: (raw) => walletAddress(parsed(raw), network),
    contract: (raw) => friendlyAddress(parsed(raw), { bounceable: true, testOnly }),
  };
}

/** A TON transfer, refused when the wallet cannot pay it. */
async function tonPlan(
  node: TonSendNode,
  from: string,
  to: string,
  nanotons: bigint,
  comment: string | null,
  record: SendRecord,
): Promise<TransferPlan> {
  const [wallet, receiver, messages] = await Promise.all([
    node.walletState(from),
    node.accountStatus(to),
    sendMessages(),
  ]);
  const afford = async (state: WalletState, fee: bigint | null) =>
    assertTonCovers(record.from ?? from, state.balance, nanotons, fee);
  await afford(wallet, null);
  return { wallet, messages: [messages.tonTransferMessage(to, nanotons, receiver, comment)], afford, record };
}

interface JettonSend {
  from: string;
  to: string;
  master: string;
  amount: unknown;
  comment: string | null;
}

/** A jetton transfer from the sender's jetton wallet, refused when it lacks the jettons or the TON. */
async function jettonPlan(node: TonSendNode, send: JettonSend, record: SendRecord): Promise<TransferPlan> {
  const [wallet, senderJettonWallet, decimals, messages] = await Promise.all([
    node.walletState(send.from),
    node.jettonWalletOf(send.master, send.from),
    node.jettonDecimals(send.master),
    sendMessages(),
  ]);
  if (senderJettonWallet === null || decimals === null) {
    throw invalidField('contractaddress', 'The contractaddress field is not a jetton master (TEP-74).');
  }
  const units = amountOf(send.amount, decimals);
  const sender = record.from ?? send.from;
  const master = record.contractaddress ?? send.master;
  const afford = async (state: WalletState, fee: bigint | null) => {
    assertJettonsCover(sender, master, await node.jettonBalance(senderJettonWallet), units, decimals);
    assertJettonGasCovered(sender, state.balance, JETTON_TRANSFER_ATTACHED, fee);
  };
  await afford(wallet, null);
  return {
    wallet,
    messages: [
      messages.jettonTransferMessage({
        senderJettonWallet,
        to: send.to,
        responseTo: send.from,
        units,
        comment: send.comment,
      }),
    ],
    afford,
    record: { ...record, amount: assetAmount(units, decimals) },
  };
}

/** The node's estimate of the transfer's fee, run on a zero signature (the node skips its check). */
async function estimatedFee(node: TonSendNode, from: string, transfer: WalletTransfer): Promise<bigint> {
  const query = await (await sendMessages()).feeQuery(transfer);
  return sendFee(await node.estimateFee(from, query.body, query.init));
}

/**
 * The public key a build signs for: given (and checked to be `from`'s V5R1 wallet on the network), or
 * read from the deployed wallet.
 */
async function publicKeyOf(
  node: TonSendNode,
  network: Network,
  from: string,
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
  if (rawAddress(v5r1Address(publicKey, network)) !== from) {
    throw invalidField(
      'publickey',
      'The publickey field is not the key of the from wallet (a V5R1 wallet of this network).',
    );
  }
  return publicKey;
}

/** An address field in any form TON writes one, as its raw form; else a 422 naming it. */
function addressField(field: string, value: string): string {
  const address = tonAddressOf(value.trim());
  if (address === null) {
    throw invalidField(field, `The ${field} field must be a TON address (raw 0:<hex> or user-friendly).`);
  }
  return rawAddress(address);
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
