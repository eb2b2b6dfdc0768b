/**
 * What a sponsored TON transfer asks of the owner's wallet and what the sponsor attaches to it, checked
 * against the chain before anything is reserved or sent.
 *
 * A jetton transfer: the owner's wallet sends `transfer` to its jetton wallet carrying everything the
 * sponsor's message brought (less the wallet's own gas), and names the sponsor as the response
 * destination, so what the jetton wallets leave comes back to the sponsor as `excesses`. The owner's TON
 * is not touched, and a wallet that holds none ends with none.
 *
 * A TON transfer: the owner's wallet sends the amount from its own balance, and the sponsor attaches what
 * its wallet's gas and the message's forwarding cost; what that leaves unused stays with the owner (as an
 * EVM top-up's unused gas does). A transfer that would leave the owner no more than the fee of its own
 * move (a sweep's amount) is the owner's own message, which empties the wallet and costs the sponsor
 * nothing.
 */
import { ApiError } from '../../errors.ts';
import { formatAmount } from '../amount.ts';
import { chainLibrary } from '../chain-library.ts';
import type { SponsoredTransfer } from '../fee-sponsor.ts';
import type { TonAdapter } from './adapter.ts';
import { JETTON_TRANSFER_ATTACHED, ton } from './fees.ts';
import type { OwnerAction } from './sponsored-messages.ts';
import type { TonFeeEstimate } from './toncenter.ts';

/** The message builders (@ton/core and @ton/ton), loaded with the first sponsored job. */
export const sponsoredMessages = chainLibrary('@ton/ton', () => import('./sponsored-messages.ts'));
export type SponsoredMessages = Awaited<ReturnType<typeof sponsoredMessages>>;

/**
 * What the owner's wallet may spend running the sponsor's message (its gas, the deployment of a new
 * wallet, the forwarding of what it sends). On a jetton transfer whatever is left returns with the excess.
 */
export const OWNER_RUN_NANOTONS = 10_000_000n;
/** The same, for a TON transfer, where what is left stays with the owner: the wallet's run and forward. */
export const OWNER_TON_RUN_NANOTONS = 5_000_000n;

/** A fee estimated again later may have grown by its storage part: up to a tenth of it is the same fee. */
const SELF_PAID_SLACK = 10n;

/** A wallet as the plans read it. */
export interface OwnerWallet {
  /** active, uninit, nonexist or frozen. */
  status: string;
  balance: bigint;
  /** The seqno its next request must carry (0 before it is deployed). */
  seqno: number;
}

/** A transfer's plan: the owner's actions and what the sponsor attaches (0 when the owner pays itself). */
export interface TransferPlan {
  owner: OwnerWallet;
  /** `sponsored`: through the sponsor's message; `self-paid`: the owner's own external message. */
  kind: 'sponsored' | 'self-paid';
  actions: OwnerAction[];
  /** Nanotons the sponsor's message carries to the owner's wallet. */
  attached: bigint;
}

/** The owner's wallet as the node shows it; a contract that is no wallet cannot be sponsored. */
export async function ownerWallet(adapter: TonAdapter, owner: string): Promise<OwnerWallet> {
  const info = await adapter.toncenter.walletInformation(owner);
  if (info === null) throw new ApiError(422, `${owner} holds a contract that is no wallet`);
  return { status: info.status, balance: info.balance, seqno: info.seqno ?? 0 };
}

/**
 * The plan of `transfer`, refused (422) when it cannot succeed: fewer jettons than it moves, less TON than
 * it sends. `selfPaidFee` prices the owner's own message, for a TON transfer that takes everything.
 */
export async function transferPlan(
  adapter: TonAdapter,
  messages: SponsoredMessages,
  transfer: SponsoredTransfer,
  sponsor: string,
  selfPaidFee: (owner: OwnerWallet) => Promise<bigint>,
): Promise<TransferPlan> {
  const owner = await ownerWallet(adapter, messages.rawOf(transfer.from));
  const units = BigInt(transfer.units);
  if (transfer.contract !== null) {
    const master = messages.rawOf(transfer.contract);
    const jettonWallet = await adapter.jettons.walletOf(master, messages.rawOf(transfer.from));
    if (jettonWallet === null)
      throw new ApiError(422, `${transfer.contract} does not name its jetton wallets`);
    const held = (await adapter.jettons.walletData(jettonWallet))?.balance ?? 0n;
    if (held < units) {
      const amount = (value: bigint) => formatAmount(value, transfer.decimals);
      throw new ApiError(
        422,
        `Insufficient funds: ${transfer.from} holds ${amount(held)} of jetton ${transfer.contract}, and the transfer needs ${amount(units)}`,
      );
    }
    const action: OwnerAction = {
      to: jettonWallet,
      value: 0n,
      bounce: true,
      body: messages.jettonTransferBody({
        senderJettonWallet: jettonWallet,
        to: messages.rawOf(transfer.to),
        // What the jetton wallets leave returns to the sponsor, who paid it.
        responseTo: messages.rawOf(sponsor),
        units,
        comment: null,
      }),
      mode: messages.OWNER_MODES.carryIncoming,
    };
    return {
      owner,
      kind: 'sponsored',
      actions: [action],
      // The jetton wallets get what a custodial jetton send attaches for their gas; the rest returns.
      attached: JETTON_TRANSFER_ATTACHED + OWNER_RUN_NANOTONS,
    };
  }
  if (owner.balance < units) {
    throw new ApiError(
      422,
      `Insufficient funds: ${transfer.from} holds ${ton(owner.balance)} TON, and the transfer needs ${ton(units)} TON`,
    );
  }
  const receiver = await adapter.toncenter.account(messages.rawOf(transfer.to));
  const bounce = receiver.status === 'active' || receiver.status === 'frozen';
  const left = owner.balance - units;
  const fee = left === 0n ? 0n : await selfPaidFee(owner);
  if (left > 0n && left <= fee + fee / SELF_PAID_SLACK) {
    // What would be left is no more than the fee of the owner's own move (a sweep's amount): the owner's
    // own message carries its whole balance, less that fee, and leaves nothing behind.
    const all: OwnerAction = {
      to: transfer.to,
      value: 0n,
      bounce,
      body: null,
      mode: messages.OWNER_MODES.carryBalance,
    };
    return { owner, kind: 'self-paid', actions: [all], attached: 0n };
  }
  const action: OwnerAction = {
    to: transfer.to,
    value: units,
    bounce,
    body: null,
    mode: messages.OWNER_MODES.paySeparately,
  };
  return { owner, kind: 'sponsored', actions: [action], attached: OWNER_TON_RUN_NANOTONS };
}

/** What a message costs the wallet that sends it, as the node estimates it: everything but what it sends. */
export function estimatedFee(estimate: TonFeeEstimate): bigint {
  const fees = estimate.sourceFees;
  return fees.inFwdFee + fees.storageFee + fees.gasFee + fees.fwdFee;
}
