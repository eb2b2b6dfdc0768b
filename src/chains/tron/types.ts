/** Shapes of java-tron transactions and resources as this adapter hands them out. */

/** One entry of `raw_data.contract` as java-tron prints it (visible=false: 41-hex addresses, hex bytes). */
export interface TronContractJson {
  parameter: { value: Record<string, unknown>; type_url: string };
  type: string;
  Permission_id?: number;
}

export interface TronRawData {
  contract: TronContractJson[];
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  timestamp: number;
  fee_limit?: number;
  data?: string;
  [field: string]: unknown;
}

/** A transaction as the node builds it: `txID = sha256(raw_data_hex)`. */
export interface TronTransaction {
  txID: string;
  raw_data: TronRawData;
  raw_data_hex: string;
  visible: boolean;
  /** 65-byte r||s||v signatures over txID, hex without 0x. */
  signature?: string[];
}

export interface SignedTronTransaction extends TronTransaction {
  signature: string[];
}

/**
 * A transaction as a broadcast sends it: built by the gateway, or signed by a client whose `raw_data`
 * the node, not the gateway, judges.
 */
export interface BroadcastableTronTransaction {
  txID: string;
  raw_data: object;
  raw_data_hex: string;
  visible?: boolean | undefined;
  signature?: string[] | undefined;
}

/** Stake 2.0 resources. TRON_POWER is only frozen for voting and cannot be delegated. */
export type TronResource = 'BANDWIDTH' | 'ENERGY';
export type TronFreezeResource = TronResource | 'TRON_POWER';

/** getaccountresource + getaccount, normalized to bigint with absent (proto3 default) fields as 0. */
export interface TronAccountResources {
  /** Base58 address. */
  address: string;
  /** False when the node knows no such account (it has never received TRX). */
  exists: boolean;
  /** Sun. */
  balance: bigint;
  freeBandwidthLimit: bigint;
  freeBandwidthUsed: bigint;
  /** Bandwidth from TRX staked for (or delegated to) this account. */
  stakedBandwidthLimit: bigint;
  stakedBandwidthUsed: bigint;
  energyLimit: bigint;
  energyUsed: bigint;
  /** Sun frozen with FreezeBalanceV2 and still held (delegated-out amounts excluded, as the node keeps them). */
  frozenV2: { bandwidth: bigint; energy: bigint; tronPower: bigint };
  /** Sun of staked TRX delegated to others (`out`) and received from others (`in`). */
  delegated: {
    bandwidthOut: bigint;
    energyOut: bigint;
    bandwidthIn: bigint;
    energyIn: bigint;
  };
  /** Unstaking in progress (UnfreezeBalanceV2), withdrawable after `expireTime` (ms). */
  unfreezing: { resource: TronFreezeResource; amount: bigint; expireTime: bigint }[];
}

/** The chain's totals behind Stake 2.0: resource per staked TRX = limit / weight (weight in whole TRX). */
export interface TronResourceTotals {
  netLimit: bigint;
  netWeight: bigint;
  energyLimit: bigint;
  energyWeight: bigint;
}

/** What a TRC20/TRC721 call will cost and what the sender has to pay it with. */
export interface TronResourceEstimate {
  /** Energy the call consumes (dry run against the current state); what is burned when not staked. */
  energy: bigint;
  /**
   * Energy limit the call needs to finish, from the node's estimateenergy when it has one (it searches
   * to 1 TRX of precision, so it may exceed `energy` by that much); equals `energy` otherwise. A guide
   * for choosing fee_limit, not a cost.
   */
  energyRequired: bigint;
  /** Bytes of bandwidth the signed transaction needs. */
  bandwidth: bigint;
  /** Energy from staking (and delegation) available now. */
  energyAvailable: bigint;
  /** Free + staked bandwidth available now. */
  bandwidthAvailable: bigint;
  /** Sun burned for the energy not covered by energyAvailable. */
  energyFeeSun: bigint;
  /** Sun burned for bandwidth when neither free nor staked bandwidth covers the whole transaction. */
  bandwidthFeeSun: bigint;
  /** energyFeeSun + bandwidthFeeSun. */
  trxNeededSun: bigint;
  balanceSun: bigint;
  /** Sun per energy unit and per bandwidth byte at estimation time (chain parameters). */
  energyPriceSun: bigint;
  bandwidthPriceSun: bigint;
  /** Set when the dry run reverted: the transfer would fail on chain (decoded reason when there is one). */
  revert: string | null;
}
