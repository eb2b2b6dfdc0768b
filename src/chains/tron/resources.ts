/**
 * Tron's resource model, as pure functions: account resources normalized from the node's JSON, the
 * bandwidth a signed transaction consumes, what energy and bandwidth will cost, and the reasons a
 * contract transfer would fail or burn more than its fee limit.
 */
import { formatAmount } from '../amount.ts';
import { toBase58Address } from './address.ts';
import type { NodeJson } from './node-api.ts';
import { TRX_DECIMALS } from './trx-amount.ts';
import type { TronAccountResources, TronFreezeResource, TronResourceEstimate } from './types.ts';

/**
 * java-tron's Constant.MAX_RESULT_SIZE_IN_TX: bytes charged per contract for the result the node
 * stores with the transaction (BandwidthProcessor adds it once the VM is on, as on every network).
 */
const RESULT_BYTES_PER_CONTRACT = 64n;
/** Transaction.signature entry: tag + length + 65 bytes. */
const SIGNATURE_FIELD_BYTES = 67n;

/** Reads an int64 field that JSON printed as a number (or a lossless bigint); absent means 0. */
export function int(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?[0-9]+$/.test(value)) return BigInt(value);
  return 0n;
}

function object(value: unknown): NodeJson {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as NodeJson) : {};
}

function list(value: unknown): NodeJson[] {
  return Array.isArray(value) ? value.map(object) : [];
}

/** getaccount + getaccountresource of one address, with proto3-omitted fields as zero. */
export function normalizeAccountResources(
  address: string,
  accountJson: NodeJson,
  resourceJson: NodeJson,
): TronAccountResources {
  const accountResource = object(accountJson['account_resource']);
  const frozen = { bandwidth: 0n, energy: 0n, tronPower: 0n };
  for (const entry of list(accountJson['frozenV2'])) {
    // The BANDWIDTH entry has no `type`: enum value 0 is a proto3 default and is not printed.
    const type = (entry['type'] ?? 'BANDWIDTH') as TronFreezeResource;
    if (type === 'BANDWIDTH') frozen.bandwidth += int(entry['amount']);
    else if (type === 'ENERGY') frozen.energy += int(entry['amount']);
    else if (type === 'TRON_POWER') frozen.tronPower += int(entry['amount']);
  }
  return {
    address: toBase58Address(address),
    exists: Object.keys(accountJson).length > 0,
    balance: int(accountJson['balance']),
    freeBandwidthLimit: int(resourceJson['freeNetLimit']),
    freeBandwidthUsed: int(resourceJson['freeNetUsed']),
    stakedBandwidthLimit: int(resourceJson['NetLimit']),
    stakedBandwidthUsed: int(resourceJson['NetUsed']),
    energyLimit: int(resourceJson['EnergyLimit']),
    energyUsed: int(resourceJson['EnergyUsed']),
    frozenV2: frozen,
    delegated: {
      bandwidthOut: int(accountJson['delegated_frozenV2_balance_for_bandwidth']),
      energyOut: int(accountResource['delegated_frozenV2_balance_for_energy']),
      bandwidthIn: int(accountJson['acquired_delegated_frozenV2_balance_for_bandwidth']),
      energyIn: int(accountResource['acquired_delegated_frozenV2_balance_for_energy']),
    },
    unfreezing: list(accountJson['unfrozenV2']).map((entry) => ({
      resource: (entry['type'] ?? 'BANDWIDTH') as TronFreezeResource,
      amount: int(entry['unfreeze_amount']),
      expireTime: int(entry['unfreeze_expire_time']),
    })),
  };
}

const clampToZero = (value: bigint) => (value > 0n ? value : 0n);

export function freeBandwidthAvailable(r: TronAccountResources): bigint {
  return clampToZero(r.freeBandwidthLimit - r.freeBandwidthUsed);
}

export function stakedBandwidthAvailable(r: TronAccountResources): bigint {
  return clampToZero(r.stakedBandwidthLimit - r.stakedBandwidthUsed);
}

export function energyAvailable(r: TronAccountResources): bigint {
  return clampToZero(r.energyLimit - r.energyUsed);
}

/**
 * Bandwidth (bytes) a transaction consumes once signed: the serialized Transaction without `ret`
 * (raw_data field + one signature field per signer) plus 64 bytes per contract.
 */
export function bandwidthOf(rawDataBytes: bigint, signatures: number, contracts = 1): bigint {
  return (
    1n +
    varintLength(rawDataBytes) +
    rawDataBytes +
    SIGNATURE_FIELD_BYTES * BigInt(signatures) +
    RESULT_BYTES_PER_CONTRACT * BigInt(contracts)
  );
}

/** Bytes of a protobuf varint. */
export function varintLength(value: bigint): bigint {
  let bytes = 1n;
  for (let v = value >> 7n; v > 0n; v >>= 7n) bytes++;
  return bytes;
}

/** Chain parameters the fee math needs, in sun. */
export interface FeePrices {
  /** getEnergyFee: sun per energy unit burned. */
  energyPriceSun: bigint;
  /** getTransactionFee: sun per bandwidth byte burned. */
  bandwidthPriceSun: bigint;
}

export interface EstimateInputs {
  energy: bigint;
  /** Energy limit the call needs to finish (estimateenergy); defaults to `energy`. */
  energyRequired?: bigint;
  bandwidth: bigint;
  resources: TronAccountResources;
  prices: FeePrices;
  revert: string | null;
}

/**
 * What the transaction will burn. Energy comes from stake first and the rest is bought at the energy
 * price. Bandwidth is all-or-nothing per source, as java-tron's BandwidthProcessor does it: staked
 * bandwidth if it covers the whole transaction, else free bandwidth if it does, else every byte is
 * burned at the bandwidth price.
 */
export function estimateFees(inputs: EstimateInputs): TronResourceEstimate {
  const { energy, bandwidth, resources, prices } = inputs;
  const energyHave = energyAvailable(resources);
  const staked = stakedBandwidthAvailable(resources);
  const free = freeBandwidthAvailable(resources);
  const energyFeeSun = clampToZero(energy - energyHave) * prices.energyPriceSun;
  const bandwidthFeeSun =
    staked >= bandwidth || free >= bandwidth ? 0n : bandwidth * prices.bandwidthPriceSun;
  return {
    energy,
    energyRequired: inputs.energyRequired ?? energy,
    bandwidth,
    energyAvailable: energyHave,
    bandwidthAvailable: staked + free,
    energyFeeSun,
    bandwidthFeeSun,
    trxNeededSun: energyFeeSun + bandwidthFeeSun,
    balanceSun: resources.balance,
    energyPriceSun: prices.energyPriceSun,
    bandwidthPriceSun: prices.bandwidthPriceSun,
    revert: inputs.revert,
  };
}

/**
 * Human reasons the transfer would fail or burn more than `feeLimitSun` allows; empty when it is fine.
 * The fee limit caps only what is burned for energy, so bandwidth is checked against the balance alone.
 */
export function preflightProblems(estimate: TronResourceEstimate, feeLimitSun: bigint): string[] {
  const problems: string[] = [];
  if (estimate.revert !== null) {
    problems.push(`the contract rejects this transfer${estimate.revert ? `: ${estimate.revert}` : ''}`);
  }
  if (estimate.energyFeeSun > feeLimitSun) {
    problems.push(
      `needs ${groupDigits(estimate.energy)} energy but has ${groupDigits(estimate.energyAvailable)}; ` +
        `burning it costs ${trx(estimate.energyFeeSun)} TRX, more than fee_limit ${trx(feeLimitSun)} TRX`,
    );
  }
  if (estimate.trxNeededSun > estimate.balanceSun) {
    problems.push(
      `has ${trx(estimate.balanceSun)} TRX but needs ${trx(estimate.trxNeededSun)} TRX for energy and bandwidth`,
    );
  }
  return problems;
}

function trx(sun: bigint): string {
  return formatAmount(sun, TRX_DECIMALS);
}

/** 64285n -> "64,285". */
export function groupDigits(value: bigint): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return negative ? `-${digits}` : digits;
}
