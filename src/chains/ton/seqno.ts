/**
 * Seqnos of the custodial wallets under concurrency. A wallet takes one external message per seqno, in
 * order, and refuses any other; a message it has not taken by its `valid_until` never will be. So a send
 * runs in a turn at its wallet (wallet-turns.ts: one at a time across the gateway's instances), from
 * reading the wallet to its message landing: its seqno is max(the chain's, the last seen taken + 1), since
 * the node's index may lag behind a landed message. A message still not in a transaction once the chain's
 * time has passed its `valid_until` was lost (dropped by a node or a validator): it is built again on a
 * fresh seqno (and a new txid, told to the send's intent), a bounded number of times. The answer waits
 * for the landing, so the txid answered is the one that landed, and a wallet that took the message but
 * sent nothing is a refusal, not a 201.
 */
import { ApiError } from '../../errors.ts';
import type { Network } from '../types.ts';
import type { Landing, TonSendNode, WalletState } from './send-node.ts';
import type { WalletTurns } from './wallet-turns.ts';

/**
 * Seconds a custodial send's message is valid for; a lost one is signed again after. Three of them end
 * well inside the settler's grace (settling.ts), so a process that dies mid-send leaves nothing that can
 * still land once its row is settled.
 */
export const MESSAGE_LIFETIME_S = 50;

/** A signed message as the lane sends it. */
export interface SignedMessage {
  /** Base64 BOC. */
  boc: string;
  /** Its normalized hash, hex. */
  txid: string;
}

/** A send as the lane runs it. */
export interface LaneSend {
  /**
   * Checks the send against the wallet as it is now and signs it on `seqno`, valid until `validUntil`;
   * throws (a 422) when the wallet cannot pay it.
   */
  signed(wallet: WalletState, seqno: number, validUntil: number): Promise<SignedMessage>;
  /** How many messages the wallet must send for the send to have happened. */
  readonly messages: number;
}

export interface SeqnoLaneOptions {
  /** Seconds a message is valid for. */
  lifetimeS: number;
  /** Times a send is signed and sent before it is given up. */
  tries: number;
  /** Pause between two looks for the landing, ms. */
  pollMs: number;
  now?: () => number;
}

/**
 * The node refused the message for its seqno (another message took it: V5R1's exit code 133) or its
 * deadline (136): signed again, it may be taken.
 */
export class TonSeqnoTaken extends ApiError {
  constructor(message: string) {
    super(422, message);
    this.name = 'TonSeqnoTaken';
  }
}

export class SeqnoLanes {
  readonly #options: Required<SeqnoLaneOptions>;

  constructor(
    private readonly turns: WalletTurns,
    options: SeqnoLaneOptions,
  ) {
    this.#options = { now: () => Date.now(), ...options };
  }

  /**
   * Signs and sends `send` from `wallet` (raw) in its turn, telling `intent` each txid before its message
   * goes to the node; answers the one that landed and its transaction.
   */
  send(
    node: TonSendNode,
    network: Network,
    wallet: string,
    send: LaneSend,
    intent: (txid: string) => Promise<void>,
  ): Promise<{ signed: SignedMessage; landing: Landing }> {
    return this.turns.take(network, wallet, async (turn) => {
      const { tries } = this.#options;
      for (let attempt = 1; ; attempt++) {
        const state = await node.walletState(wallet);
        const seqno = Math.max(state.seqno, turn.taken + 1);
        const validUntil = Math.floor(this.#options.now() / 1000) + this.#options.lifetimeS;
        const signed = await send.signed(state, seqno, validUntil);
        await intent(signed.txid);
        try {
          await node.sendMessage(signed.boc);
        } catch (error) {
          if (!(error instanceof TonSeqnoTaken) || attempt >= tries) throw error;
          // The message that took the seqno may not show in the node's index yet: a look later, it does.
          await this.#pause();
          continue;
        }
        const landing = await this.#landing(node, signed.txid, validUntil);
        if (landing !== null) {
          if (landing.accepted) await turn.took(seqno);
          assertSent(landing, send.messages);
          return { signed, landing };
        }
        if (attempt >= tries) {
          throw new ApiError(
            422,
            `The wallet's message was not taken on chain before it expired, ${tries} times; nothing was sent`,
          );
        }
      }
    });
  }

  /**
   * The transaction the message landed in, or null once it cannot land: the chain's time is past
   * `validUntil`. The chain's time is asked only once this clock has passed it, and before the lookup,
   * so a landing in a block up to that time is found.
   */
  async #landing(node: TonSendNode, txid: string, validUntil: number): Promise<Landing | null> {
    for (;;) {
      const due = this.#options.now() / 1000 > validUntil;
      const chainTime = due ? await node.chainTime() : null;
      const landing = await node.landingOf(txid);
      if (landing !== null) return landing;
      if (chainTime !== null && chainTime > validUntil) return null;
      await this.#pause();
    }
  }

  #pause(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.#options.pollMs));
  }
}

/** A landed message that sent less than it was to: the wallet paid its fee and moved nothing. */
function assertSent(landing: Landing, messages: number): void {
  if (!landing.accepted) {
    throw new ApiError(
      422,
      `The wallet did not accept its message (transaction ${landing.hash}); nothing was sent`,
    );
  }
  if (landing.sentMessages < messages) {
    throw new ApiError(
      422,
      `The wallet took its message but could not send the transfer (transaction ${landing.hash}): its balance no longer covered it; only the fee was paid`,
    );
  }
}
