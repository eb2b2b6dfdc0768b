/**
 * Seqnos of the custodial wallets under concurrency. A wallet takes one external message per seqno, in
 * order, and refuses any other; a message it has not taken by its `valid_until` never will be. So the
 * sends of one wallet go one at a time through this process, each from reading the wallet to its message
 * landing: its seqno is max(the chain's, the last this process saw land + 1), since the node's index may
 * lag behind a landed message. A message still not in a transaction once the chain's time has passed its
 * `valid_until` was lost (dropped by a node or a validator): it is built again on a fresh seqno (and a
 * new txid, told to the send's intent), a bounded number of times. The answer waits for the landing, so
 * the txid answered is the one that landed, and a wallet that took the message but sent nothing is a
 * refusal, not a 201.
 *
 * Across gateway processes nothing is shared: two processes sending from one wallet at once may sign the
 * same seqno. The wallet takes one of the two messages; the other is refused by the node (`bad seqno`) or
 * never lands, and is sent again on the next seqno by its own process. Nothing is paid twice or lost; the
 * second send only waits longer.
 */
import { ApiError } from '../../errors.ts';
import type { Landing, TonSendNode, WalletState } from './send-node.ts';

/**
 * Seconds a custodial send's message is valid for; a lost one is signed again after. Three of them end
 * well inside the settler's grace (settling.ts), so a process that dies mid-send leaves nothing that can
 * still land once its row is settled.
 */
export const MESSAGE_LIFETIME_S = 50;

/**
 * Wallets whose last landed seqno is kept: it only matters while the node's index may lag behind a
 * landing, so forgetting the least recently used is harmless.
 */
const REMEMBERED_WALLETS = 10_000;

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
  readonly #lanes = new Map<string, Promise<void>>();
  /** The seqno of the newest message this process saw land, per wallet. */
  readonly #landed = new Map<string, number>();
  readonly #options: Required<SeqnoLaneOptions>;

  constructor(options: SeqnoLaneOptions) {
    this.#options = { now: () => Date.now(), ...options };
  }

  /**
   * Signs and sends `send` from `wallet` once the sends before it from the same wallet have landed (or
   * were given up), telling `intent` each txid before its message goes to the node; answers the one that
   * landed and its transaction.
   */
  send(
    node: TonSendNode,
    lane: string,
    wallet: string,
    send: LaneSend,
    intent: (txid: string) => Promise<void>,
  ): Promise<{ signed: SignedMessage; landing: Landing }> {
    return this.#exclusive(lane, async () => {
      const { tries } = this.#options;
      for (let attempt = 1; ; attempt++) {
        const state = await node.walletState(wallet);
        const seqno = Math.max(state.seqno, (this.#landed.get(lane) ?? -1) + 1);
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
          if (landing.accepted) this.#remember(lane, seqno);
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

  /** Keeps the lane's newest landed seqno; the lanes unused longest are forgotten past a bound. */
  #remember(lane: string, seqno: number): void {
    this.#landed.delete(lane);
    this.#landed.set(lane, seqno);
    if (this.#landed.size > REMEMBERED_WALLETS) {
      const oldest = this.#landed.keys().next();
      if (!oldest.done) this.#landed.delete(oldest.value);
    }
  }

  /** Runs `work` after every earlier one of `lane` has ended. */
  async #exclusive<T>(lane: string, work: () => Promise<T>): Promise<T> {
    const before = this.#lanes.get(lane) ?? Promise.resolve();
    let release = () => {};
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const mine = before.then(() => done);
    this.#lanes.set(lane, mine);
    await before;
    try {
      return await work();
    } finally {
      release();
      if (this.#lanes.get(lane) === mine) this.#lanes.delete(lane);
    }
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
