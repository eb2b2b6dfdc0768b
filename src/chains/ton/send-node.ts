/**
 * What the sends ask of a TON node, in their own terms: the node adapter answers these from toncenter's
 * v3 API (`walletInformation`, `account`, `runGetMethod`, `estimateFee`, `message`,
 * `transactionsByMessage`, `masterchainInfo`).
 */
import type { Address, Cell, StateInit } from '@ton/core';
import type { SourceFees } from './fees.ts';
import type { AccountStatus } from './wallet-transfer.ts';

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
  walletState(address: Address): Promise<WalletState>;
  accountStatus(address: Address): Promise<AccountStatus>;
  /** The jetton wallet `master` gives `owner` (`get_wallet_address`). */
  jettonWalletOf(master: Address, owner: Address): Promise<Address>;
  /** What a jetton wallet holds (`get_wallet_data`); 0 for one not deployed. */
  jettonBalance(jettonWallet: Address): Promise<bigint>;
  /** The master of a jetton wallet (`get_wallet_data`); null for an account that is no jetton wallet. */
  jettonMasterOf(jettonWallet: Address): Promise<Address | null>;
  /** The jetton's decimals from its master's metadata (TEP-64; 9 when it names none). */
  jettonDecimals(master: Address): Promise<number>;
  /** The public key of a deployed wallet (`get_public_key`); null while it has no code. */
  walletPublicKey(wallet: Address): Promise<Buffer | null>;
  /** The node's estimate of what the wallet pays for `body` (its signature unchecked). */
  estimateFee(wallet: Address, body: Cell, init: StateInit | null): Promise<SourceFees>;
  /** Hands a signed external message (base64 BOC) to the node; throws its refusal. */
  sendMessage(boc: string): Promise<void>;
  /** The transaction an external message (its normalized hash, hex) landed in; null while there is none. */
  landingOf(messageHash: string): Promise<Landing | null>;
  /** The newest masterchain block's time, unix seconds: the node has indexed every block up to it. */
  chainTime(): Promise<number>;
}
