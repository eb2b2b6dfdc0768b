// Dynamic chain parameters (mainnet values as of 2025) and their getchainparameters rendering.
import type { Json } from './json.ts';

export interface ChainParams {
  freeNetLimit: bigint;
  totalNetLimit: bigint;
  totalEnergyCurrentLimit: bigint;
  /** Sun burned per byte of bandwidth. */
  transactionFee: bigint;
  /** Sun burned per unit of energy. */
  energyFee: bigint;
  /** Bandwidth fee for a transaction that creates an account (no staked bandwidth). */
  createAccountFee: bigint;
  /** Fee the transfer actuator charges when the recipient is new. */
  createNewAccountFeeInSystemContract: bigint;
  createNewAccountBandwidthRate: bigint;
  maxFeeLimit: bigint;
  unfreezeDelayDays: bigint;
  maxDelegateLockPeriod: bigint;
  memoFee: bigint;
  multiSignFee: bigint;
  maxCreateAccountTxSize: bigint;
}

export const DEFAULT_CHAIN_PARAMS: ChainParams = {
  freeNetLimit: 600n,
  totalNetLimit: 43_200_000_000n,
  totalEnergyCurrentLimit: 180_000_000_000n,
  transactionFee: 1000n,
  energyFee: 100n,
  createAccountFee: 100_000n,
  createNewAccountFeeInSystemContract: 1_000_000n,
  createNewAccountBandwidthRate: 1n,
  maxFeeLimit: 15_000_000_000n,
  unfreezeDelayDays: 14n,
  maxDelegateLockPeriod: 864_000n,
  memoFee: 1_000_000n,
  multiSignFee: 1_000_000n,
  maxCreateAccountTxSize: 1000n,
};

/** The list java-tron's Wallet.getChainParameters returns (value omitted when 0, as JsonFormat does). */
export function printChainParameters(p: ChainParams): Json {
  const entries: [string, bigint][] = [
    ['getMaintenanceTimeInterval', 21_600_000n],
    ['getAccountUpgradeCost', 9_999_000_000n],
    ['getCreateAccountFee', p.createAccountFee],
    ['getTransactionFee', p.transactionFee],
    ['getAssetIssueFee', 1_024_000_000n],
    ['getWitnessPayPerBlock', 8_000_000n],
    ['getWitnessStandbyAllowance', 115_200_000_000n],
    ['getCreateNewAccountFeeInSystemContract', p.createNewAccountFeeInSystemContract],
    ['getCreateNewAccountBandwidthRate', p.createNewAccountBandwidthRate],
    ['getAllowCreationOfContracts', 1n],
    ['getRemoveThePowerOfTheGr', 1n],
    ['getEnergyFee', p.energyFee],
    ['getExchangeCreateFee', 1_024_000_000n],
    ['getMaxCpuTimeOfOneTx', 80n],
    ['getAllowUpdateAccountName', 0n],
    ['getAllowSameTokenName', 1n],
    ['getAllowDelegateResource', 1n],
    ['getTotalEnergyLimit', p.totalEnergyCurrentLimit],
    ['getAllowTvmTransferTrc10', 1n],
    ['getTotalEnergyCurrentLimit', p.totalEnergyCurrentLimit],
    ['getAllowMultiSign', 1n],
    ['getAllowAdaptiveEnergy', 0n],
    ['getTotalEnergyTargetLimit', 6_250_000n],
    ['getTotalEnergyAverageUsage', 0n],
    ['getUpdateAccountPermissionFee', 100_000_000n],
    ['getMultiSignFee', p.multiSignFee],
    ['getAllowAccountStateRoot', 0n],
    ['getAllowProtoFilterNum', 0n],
    ['getAllowTvmConstantinople', 1n],
    ['getAllowTvmSolidity059', 1n],
    ['getAllowTvmIstanbul', 1n],
    ['getAllowShieldedTRC20Transaction', 1n],
    ['getForbidTransferToContract', 0n],
    ['getAdaptiveResourceLimitTargetRatio', 10n],
    ['getAdaptiveResourceLimitMultiplier', 1000n],
    ['getChangeDelegation', 1n],
    ['getWitness127PayPerBlock', 128_000_000n],
    ['getAllowMarketTransaction', 0n],
    ['getMarketSellFee', 0n],
    ['getMarketCancelFee', 0n],
    ['getAllowPBFT', 0n],
    ['getAllowTransactionFeePool', 0n],
    ['getMaxFeeLimit', p.maxFeeLimit],
    ['getAllowOptimizeBlackHole', 1n],
    ['getAllowNewResourceModel', 1n],
    ['getAllowTvmFreeze', 0n],
    ['getAllowTvmVote', 1n],
    ['getAllowTvmLondon', 1n],
    ['getAllowTvmCompatibleEvm', 0n],
    ['getAllowAccountAssetOptimization', 0n],
    ['getFreeNetLimit', p.freeNetLimit],
    ['getTotalNetLimit', p.totalNetLimit],
    ['getAllowHigherLimitForMaxCpuTimeOfOneTx', 1n],
    ['getAllowAssetOptimization', 1n],
    ['getAllowNewReward', 1n],
    ['getMemoFee', p.memoFee],
    ['getAllowDelegateOptimization', 1n],
    ['getUnfreezeDelayDays', p.unfreezeDelayDays],
    ['getAllowOptimizedReturnValueOfChainId', 1n],
    ['getAllowDynamicEnergy', 0n],
    ['getDynamicEnergyThreshold', 0n],
    ['getDynamicEnergyIncreaseFactor', 0n],
    ['getDynamicEnergyMaxFactor', 0n],
    ['getAllowTvmShangHai', 1n],
    ['getAllowCancelAllUnfreezeV2', 1n],
    ['getMaxDelegateLockPeriod', p.maxDelegateLockPeriod],
    ['getAllowOldRewardOpt', 1n],
    ['getAllowEnergyAdjustment', 1n],
    ['getMaxCreateAccountTxSize', p.maxCreateAccountTxSize],
  ];
  return {
    chainParameter: entries.map(([key, value]): Json => (value === 0n ? { key } : { key, value })),
  };
}
