/**
 * Resource pre-flight for TRC20/TRC721 transfers: a dry run (triggerconstantcontract, and
 * estimateenergy when the node offers it) for energy, the protobuf size for bandwidth, the sender's resources, and
 * the chain's prices. The arithmetic itself lives in resources.ts.
 */
import { NodeHttpError } from '../node-client.ts';
import { decodeRevertReason } from './abi.ts';
import { toHexAddress } from './address.ts';
import { TronInputError } from './errors.ts';
import { type NodeJson, safeInt, type TriggerArgs, type TronNodeApi } from './node-api.ts';
import { decodeNodeText, nodeErrorFrom } from './node-messages.ts';
import { bandwidthOf, estimateFees, type FeePrices, int, varintLength } from './resources.ts';
import type { TronAccountResources, TronResourceEstimate, TronTransaction } from './types.ts';

/** A contract call described by its arguments, for estimating before anything is built. */
export interface ContractCallArgs {
  contract: string;
  /** Hex call data: 4-byte selector + ABI-encoded arguments. */
  data: string;
  callValueSun?: bigint;
  /** Counted into the transaction size; the fee limit itself is checked by preflightProblems. */
  feeLimitSun?: bigint;
}

/** Protobuf tag of Transaction.raw.fee_limit (field 18, varint): two bytes. */
const FEE_LIMIT_TAG_BYTES = 2n;

export interface FeeEstimatorDeps {
  node: TronNodeApi;
  prices(): Promise<FeePrices>;
  resources(address: string): Promise<TronAccountResources>;
}

export class TronFeeEstimator {
  /** Set once the node has said it has no estimateenergy (vm.estimateEnergy off, or an old build). */
  #estimateEnergyUnsupported = false;

  constructor(private readonly deps: FeeEstimatorDeps) {}

  async estimate(from: string, input: TronTransaction | ContractCallArgs): Promise<TronResourceEstimate> {
    const owner = toHexAddress(from);
    const call = isTransaction(input) ? callOfTransaction(owner, input) : callOfArgs(owner, input);
    const [dryRun, resources, prices] = await Promise.all([
      this.deps.node.triggerConstantContract(call.args),
      this.deps.resources(owner),
      this.deps.prices(),
    ]);
    const revert = revertOf(dryRun);
    if (revert === null) {
      const error = nodeErrorFrom(dryRun);
      if (error) throw error;
    }
    // The dry run's energy_used is what the call consumes (and burns); estimateenergy answers the
    // energy *limit* the call needs, found by a binary search on fee_limit to 1 TRX of precision, so it
    // can exceed the consumption by up to 1 TRX worth of energy. It is reported, not charged.
    let energy = int(dryRun['energy_used']);
    const required = revert === null ? await this.#estimateEnergy(call.args) : null;
    if (energy === 0n && required !== null) energy = required;
    const energyRequired = required !== null && required > energy ? required : energy;
    const rawBytes = call.rawBytes ?? rawBytesOfDryRun(dryRun, call.args.fee_limit);
    return estimateFees({
      energy,
      energyRequired,
      bandwidth: bandwidthOf(rawBytes, call.signatures),
      resources,
      prices,
      revert,
    });
  }

  /** estimateenergy's energy_required, or null when the node cannot say. */
  async #estimateEnergy(args: TriggerArgs): Promise<bigint | null> {
    if (this.#estimateEnergyUnsupported) return null;
    let body: NodeJson;
    try {
      body = await this.deps.node.estimateEnergy(args);
    } catch (error) {
      if (error instanceof NodeHttpError && (error.status === 404 || error.status === 405)) {
        this.#estimateEnergyUnsupported = true;
        return null;
      }
      throw error;
    }
    const error = nodeErrorFrom(body);
    if (error) {
      // java-tron: "this node does not support estimate energy" (vm.estimateEnergy = false).
      if (/not support/i.test(error.message)) this.#estimateEnergyUnsupported = true;
      return null;
    }
    return body['energy_required'] === undefined ? null : int(body['energy_required']);
  }
}

interface PreparedCall {
  args: TriggerArgs;
  /** Size of raw_data when the transaction is known. */
  rawBytes: bigint | null;
  signatures: number;
}

function isTransaction(input: TronTransaction | ContractCallArgs): input is TronTransaction {
  return (
    typeof (input as TronTransaction).raw_data === 'object' && (input as TronTransaction).raw_data !== null
  );
}

function callOfTransaction(owner: string, tx: TronTransaction): PreparedCall {
  const contract = tx.raw_data.contract?.[0];
  if (contract?.type !== 'TriggerSmartContract' || typeof tx.raw_data_hex !== 'string') {
    throw new TronInputError('only a TriggerSmartContract transaction can be estimated');
  }
  const value = contract.parameter.value;
  if (typeof value['owner_address'] === 'string' && toHexAddress(value['owner_address']) !== owner) {
    throw new TronInputError('the transaction is not sent from this address');
  }
  const args: TriggerArgs = {
    owner_address: owner,
    contract_address: toHexAddress(String(value['contract_address'])),
    data: typeof value['data'] === 'string' ? value['data'] : '',
  };
  const callValue = int(value['call_value']);
  if (callValue > 0n) args.call_value = safeInt(callValue, 'call_value');
  // Signatures already present (multisig) are counted; an unsigned transaction will carry one.
  return {
    args,
    rawBytes: BigInt(tx.raw_data_hex.length / 2),
    signatures: Math.max(1, tx.signature?.length ?? 0),
  };
}

function callOfArgs(owner: string, call: ContractCallArgs): PreparedCall {
  const data = call.data.replace(/^0x/i, '');
  if (!/^(?:[0-9a-fA-F]{2}){4,}$/.test(data))
    throw new TronInputError('call data must be hex with a 4-byte selector');
  const args: TriggerArgs = { owner_address: owner, contract_address: toHexAddress(call.contract), data };
  if (call.callValueSun) args.call_value = safeInt(call.callValueSun, 'call_value');
  if (call.feeLimitSun) args.fee_limit = safeInt(call.feeLimitSun, 'fee_limit');
  return { args, rawBytes: null, signatures: 1 };
}

/**
 * raw_data size of the transaction the dry run built. java-tron's triggerconstantcontract leaves
 * fee_limit out of that transaction (TriggerConstantContractServlet never sets it); the real one will
 * carry it, so its bytes are added when it is missing.
 */
function rawBytesOfDryRun(dryRun: NodeJson, feeLimit: number | undefined): bigint {
  const tx = dryRun['transaction'] as Partial<TronTransaction> | undefined;
  const hex = typeof tx?.raw_data_hex === 'string' ? tx.raw_data_hex : '';
  let bytes = BigInt(hex.length / 2);
  if (feeLimit && tx?.raw_data?.fee_limit === undefined) {
    bytes += FEE_LIMIT_TAG_BYTES + varintLength(BigInt(feeLimit));
  }
  return bytes;
}

/** The dry run's revert reason ('' when it gives none), or null when the call succeeded. */
function revertOf(dryRun: NodeJson): string | null {
  const tx = dryRun['transaction'] as { ret?: { ret?: string }[] } | undefined;
  const result = dryRun['result'] as { result?: unknown; message?: unknown } | undefined;
  const failed = tx?.ret?.[0]?.ret === 'FAILED';
  if (!failed) return null;
  const output = Array.isArray(dryRun['constant_result']) ? String(dryRun['constant_result'][0] ?? '') : '';
  const reason = decodeRevertReason(output);
  if (reason) return reason;
  return typeof result?.message === 'string' ? decodeNodeText(result.message) : '';
}
