/**
 * What the sends ask of a TON node, in their own terms, and the adapter's answers to it from toncenter's
 * v3 API (`walletInformation`, `account`, `runGetMethod`, `estimateFee`, `message`,
 * `transactionsByMessage`, `masterchainInfo`). Addresses are raw (`0:<hex>`). The node's refusals are
 * translated here into the API's words: a message the wallet would not take for its seqno is
 * `TonSeqnoTaken` (the send signs again on a fresh one), any other refusal a 422 in the node's words.
 */
import { ApiError } from '../../errors.ts';
import { NodeHttpError } from '../node-client.ts';
import type { TonAdapter } from './adapter.ts';
import { hexHash } from './block-transfers.ts';
import type { SourceFees } from './fees.ts';
import { amountDecimals } from './jettons.ts';
import { TonSeqnoTaken } from './seqno.ts';
import { TonMessageRefused } from './toncenter.ts';

/** An account's state as the node reports it. */
export type AccountStatus = 'active' | 'uninit' | 'frozen' | 'nonexist';

/** A wallet as the sends see it. */
export interface WalletState {
  status: AccountStatus;
  /** Nanotons. */
  balance: bigint;
  /** The seqno its next message must carry (0 before it is deployed). */
  seqno: number;
}

/** The transaction an external message landed in. */
export interface Landing {
  /** The transaction's hash, 64 hex. */
  hash: string;
  /** The wallet accepted and ran the message (its compute phase succeeded). */
  accepted: boolean;
  /** Messages the wallet sent out. */
  sentMessages: number;
  /** Nanotons the transaction cost the wallet. */
  fee: bigint;
}

export interface TonSendNode {
  walletState(address: string): Promise<WalletState>;
  accountStatus(address: string): Promise<AccountStatus>;
  /** The jetton wallet `master` gives `owner` (`get_wallet_address`); null when `master` is no jetton master. */
  jettonWalletOf(master: string, owner: string): Promise<string | null>;
  /** What a jetton wallet holds (`get_wallet_data`); 0 for one not deployed. */
  jettonBalance(jettonWallet: string): Promise<bigint>;
  /** The master of a genuine jetton wallet; null for an account that is none. */
  jettonMasterOf(jettonWallet: string): Promise<string | null>;
  /**
   * The jetton's decimals from its master's metadata (TEP-64); null when `master` is no jetton master, a
   * 422 when they are not on chain.
   */
  jettonDecimals(master: string): Promise<number | null>;
  /** The public key of a deployed wallet (`get_public_key`); null while it has no code. */
  walletPublicKey(wallet: string): Promise<Buffer | null>;
  /** The node's estimate of what the wallet pays for `body` (base64 BOC), its signature unchecked. */
  estimateFee(wallet: string, body: string, init: { code: string; data: string } | null): Promise<SourceFees>;
  /** Hands a signed external message (base64 BOC) to the node; throws its refusal. */
  sendMessage(boc: string): Promise<void>;
  /** The transaction an external message (its normalized hash, hex) landed in; null while there is none. */
  landingOf(messageHash: string): Promise<Landing | null>;
  /** The newest masterchain block's time, unix seconds: the node has indexed every block up to it. */
  chainTime(): Promise<number>;
}

const STATUSES: readonly AccountStatus[] = ['active', 'uninit', 'frozen', 'nonexist'];

/** The sends' node over the TON adapter of one network. */
export function tonSendNode(adapter: TonAdapter): TonSendNode {
  const { toncenter, jettons } = adapter;
  return {
    async walletState(address) {
      const wallet = await toncenter.walletInformation(address);
      if (wallet === null) throw new ApiError(422, `${address} holds a contract that is not a wallet`);
      return { status: statusOf(wallet.status), balance: wallet.balance, seqno: wallet.seqno ?? 0 };
    },
    async accountStatus(address) {
      try {
        return statusOf((await toncenter.account(address)).status);
      } catch (error) {
        // The indexer answers 404 for an address the chain has never seen.
        if (error instanceof NodeHttpError && error.status === 404) return 'nonexist';
        throw error;
      }
    },
    jettonWalletOf: (master, owner) => jettons.walletOf(master, owner),
    async jettonBalance(jettonWallet) {
      return (await jettons.walletData(jettonWallet))?.balance ?? 0n;
    },
    async jettonMasterOf(jettonWallet) {
      return (await jettons.wallet(jettonWallet))?.master ?? null;
    },
    async jettonDecimals(master) {
      const description = await jettons.master(master);
      return description === null ? null : amountDecimals(description);
    },
    async walletPublicKey(wallet) {
      const result = await toncenter.runGetMethod(wallet, 'get_public_key');
      const [key] = result.stack;
      if (result.exitCode !== 0 || key?.type !== 'num') return null;
      return Buffer.from(key.value.toString(16).padStart(64, '0'), 'hex');
    },
    async estimateFee(wallet, body, init) {
      const { sourceFees } = await toncenter.estimateFee({
        address: wallet,
        body,
        initCode: init?.code,
        initData: init?.data,
        ignoreChksig: true,
      });
      return {
        inForward: sourceFees.inFwdFee,
        storage: sourceFees.storageFee,
        gas: sourceFees.gasFee,
        forward: sourceFees.fwdFee,
      };
    },
    async sendMessage(boc) {
      try {
        await toncenter.sendMessage(boc);
      } catch (error) {
        if (!(error instanceof TonMessageRefused)) throw error;
        if (SEQNO_REFUSAL.test(error.message)) {
          throw new TonSeqnoTaken(`The node refused the message for its seqno or deadline: ${error.message}`);
        }
        throw new ApiError(422, `The node refused the message: ${error.message}`);
      }
    },
    async landingOf(messageHash) {
      const [tx] = await toncenter.transactionsByMessage(messageHash, 'in');
      if (tx === undefined) return null;
      return {
        hash: hexHash(tx.hash),
        accepted: !tx.aborted && tx.computeSuccess === true,
        sentMessages: tx.outMsgs.length,
        fee: tx.totalFees,
      };
    },
    async chainTime() {
      return (await toncenter.masterchainInfo()).last.genUtime;
    },
  };
}

/**
 * A refusal a fresh signature mends: V5R1 throws 133 for a seqno that is not its next one and 136 past
 * the message's deadline (the liteserver's words for a message the wallet would not accept name the
 * exit code, `exitcode=133`).
 */
const SEQNO_REFUSAL = /exit[ _]?code[=: ]*(133|136)\b|\bseqno\b/i;

function statusOf(text: string): AccountStatus {
  const status = STATUSES.find((each) => each === text);
  if (status === undefined)
    throw new ApiError(502, `The node answered an account status it has no word for: ${text}`);
  return status;
}
