// Transaction admission and execution, in java-tron's order (Wallet.broadcastTransaction,
// Manager.pushTransaction / processTransaction): expiration, signature, TaPoS, size and expiry
// window, duplicates, bandwidth, memo fee, then the actuator or the TVM.
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { ACTUATORS, type ActuatorContext, ContractExeError, ContractValidateError } from './actuators.ts';
import { type HexAddress, hexAddressToBase58 } from './address.ts';
import type { ChainParams } from './params.ts';
import {
  AccountResourceInsufficientError,
  consumeBandwidth,
  leftEnergyOf,
  MAX_RESULT_SIZE_IN_TX,
  minBig,
  ResourceValidateError,
  TooBigTransactionError,
  useEnergy,
} from './resources.ts';
import { recoverSigner, SignatureError } from './signature.ts';
import { cloneWorld, type WorldState } from './state.ts';
import {
  contractResultCode,
  encodeTransaction,
  type Transaction,
  type TxContract,
  txIdOf,
} from './transaction.ts';
import { emptyReceipt, type TransactionInfo } from './transaction-info.ts';
import { runTvmCall, type TvmBlock } from './tvm.ts';

export type ResponseCode =
  | 'SUCCESS'
  | 'SIGERROR'
  | 'CONTRACT_VALIDATE_ERROR'
  | 'CONTRACT_EXE_ERROR'
  | 'BANDWITH_ERROR'
  | 'DUP_TRANSACTION_ERROR'
  | 'TAPOS_ERROR'
  | 'TOO_BIG_TRANSACTION_ERROR'
  | 'TRANSACTION_EXPIRATION_ERROR'
  | 'SERVER_BUSY'
  | 'OTHER_ERROR';

/** A rejected broadcast: GrpcAPI.Return code plus the message text java-tron puts in it. */
export class BroadcastError extends Error {
  constructor(
    readonly code: ResponseCode,
    message: string,
  ) {
    super(message);
  }
}

export interface ProcessContext {
  world: WorldState;
  params: ChainParams;
  headTime: bigint;
  headSlot: bigint;
  /** Block the transaction will land in (TVM NUMBER / TIMESTAMP / COINBASE). */
  nextBlock: TvmBlock;
  /** recent-block store: block id bytes [8:16] for a ref_block_bytes value, if known. */
  refBlockHash(refBlockBytes: Uint8Array): Uint8Array | null;
  isKnown(txId: string): boolean;
}

export interface Processed {
  tx: Transaction;
  info: TransactionInfo;
  world: WorldState;
}

const TRANSACTION_MAX_BYTE_SIZE = 500n * 1024n;
const MAXIMUM_TIME_UNTIL_EXPIRATION = 24n * 60n * 60n * 1000n;
const TOTAL_SIGN_NUM = 5;

export function ownerOf(contract: TxContract): HexAddress {
  return (contract.value['owner_address'] as string | undefined) ?? '';
}

/** TransactionCapsule.validatePubSignature + checkWeight, for the default single-key permissions. */
export function validateSignature(tx: Transaction, txId: string): void {
  const contract = tx.raw.contracts[0];
  if (tx.signatures.length === 0 || !contract) throw new SignatureError('miss sig or contract');
  if (tx.signatures.length > TOTAL_SIGN_NUM) throw new SignatureError('too many signatures');
  const owner = ownerOf(contract);
  // Devnet accounts keep java-tron's default permissions: owner (id 0) and active (id 2), one key each.
  if (contract.permissionId !== 0 && contract.permissionId !== 2)
    throw new SignatureError("permission isn't exit");
  const keys = [owner];
  if (tx.signatures.length > keys.length) {
    throw new SignatureError(
      `Signature count is ${tx.signatures.length} more than key counts of permission : ${keys.length}`,
    );
  }
  const hash = hexToBytes(txId);
  const seen = new Set<string>();
  let weight = 0;
  for (const sig of tx.signatures) {
    if (sig.length < 65) throw new SignatureError(`Signature size is ${sig.length}`);
    const signer = recoverSigner(hash, sig);
    if (!keys.includes(signer)) {
      throw new SignatureError(
        `${bytesToHex(sig)} is signed by ${hexAddressToBase58(signer)} but it is not contained of permission.`,
      );
    }
    if (seen.has(signer)) throw new SignatureError(`${hexAddressToBase58(signer)} has signed twice!`);
    seen.add(signer);
    weight += 1;
  }
  if (weight < 1) throw new SignatureError('sig error');
}

function wrap(err: unknown): BroadcastError {
  if (err instanceof BroadcastError) return err;
  if (err instanceof SignatureError)
    return new BroadcastError('SIGERROR', `Validate signature error: ${err.message}`);
  if (err instanceof ContractValidateError || err instanceof ResourceValidateError) {
    return new BroadcastError('CONTRACT_VALIDATE_ERROR', `Contract validate error : ${err.message}`);
  }
  if (err instanceof ContractExeError) {
    return new BroadcastError('CONTRACT_EXE_ERROR', `Contract execute error : ${err.message}`);
  }
  if (err instanceof AccountResourceInsufficientError) {
    return new BroadcastError('BANDWITH_ERROR', 'Account resource insufficient error.');
  }
  if (err instanceof TooBigTransactionError)
    return new BroadcastError('TOO_BIG_TRANSACTION_ERROR', err.message);
  return new BroadcastError('OTHER_ERROR', `Error: ${err instanceof Error ? err.message : String(err)}`);
}

/** Validates and applies `tx` to a copy of the world; throws BroadcastError with java-tron's code and text. */
export async function processTransaction(ctx: ProcessContext, incoming: Transaction): Promise<Processed> {
  try {
    return await process(ctx, incoming);
  } catch (err) {
    throw wrap(err);
  }
}

async function process(ctx: ProcessContext, incoming: Transaction): Promise<Processed> {
  // Wallet.broadcastTransaction: results sent by clients are dropped (resetResult).
  const tx: Transaction = { raw: incoming.raw, signatures: incoming.signatures, ret: [] };
  const txId = txIdOf(tx.raw);
  const contract = tx.raw.contracts[0];
  if (!contract) throw new ContractValidateError('No contract!');
  // TransactionCapsule.checkExpiration(nextSlotTime): it must still be valid in the block it lands in.
  if (tx.raw.expiration < ctx.nextBlock.timestamp) {
    throw new BroadcastError('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
  }
  if (contract.rawValue || (!ACTUATORS[contract.type] && contract.type !== 'TriggerSmartContract')) {
    throw new ContractValidateError(`${contract.type} is not supported by this devnet`);
  }
  validateSignature(tx, txId);
  if (tx.raw.contracts.length !== 1) {
    throw new ContractValidateError(
      `tx ${txId} contract size should be exactly 1, this is extend feature ,actual :${tx.raw.contracts.length}`,
    );
  }
  const ref = ctx.refBlockHash(tx.raw.refBlockBytes);
  if (!ref || bytesToHex(ref) !== bytesToHex(tx.raw.refBlockHash)) {
    throw new BroadcastError('TAPOS_ERROR', 'Tapos check error.');
  }
  const encoded = encodeTransaction(tx, false);
  const size = BigInt(encoded.length);
  if (size + 2n * MAX_RESULT_SIZE_IN_TX > TRANSACTION_MAX_BYTE_SIZE) {
    throw new TooBigTransactionError(
      `Too big transaction with result, TxId ${txId}, the size is ${size + 2n * MAX_RESULT_SIZE_IN_TX} bytes, maxTxSize ${TRANSACTION_MAX_BYTE_SIZE}`,
    );
  }
  if (tx.raw.expiration <= ctx.headTime || tx.raw.expiration > ctx.headTime + MAXIMUM_TIME_UNTIL_EXPIRATION) {
    throw new BroadcastError('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
  }
  if (ctx.isKnown(txId)) throw new BroadcastError('DUP_TRANSACTION_ERROR', 'Dup transaction.');

  const world = cloneWorld(ctx.world);
  const owner = ownerOf(contract);
  const createsAccount = createsNewAccount(world, contract)
    ? { bytesWithoutSignatures: size - BigInt(tx.signatures.length * 65) }
    : null;
  const net = consumeBandwidth(
    { world, params: ctx.params, now: ctx.headSlot, headTime: ctx.headTime, txId },
    owner,
    size + MAX_RESULT_SIZE_IN_TX,
    createsAccount,
  );
  let memoFee = 0n;
  if (tx.raw.data.length > 0 && ctx.params.memoFee > 0n) {
    const a = world.accounts.get(owner);
    if (!a || a.balance < ctx.params.memoFee) throw new AccountResourceInsufficientError('memo fee');
    a.balance -= ctx.params.memoFee;
    memoFee = ctx.params.memoFee;
  }

  const info: TransactionInfo = {
    id: txId,
    fee: 0n,
    blockNumber: 0n,
    blockTimeStamp: 0n,
    contractResult: new Uint8Array(),
    contractAddress: '',
    receipt: { ...emptyReceipt(), netUsage: net.netUsage, netFee: net.netFee },
    logs: [],
    failed: false,
    resMessage: '',
    withdrawExpireAmount: 0n,
    cancelUnfreezeV2Amount: null,
  };
  const actx: ActuatorContext = { world, params: ctx.params, headTime: ctx.headTime, now: ctx.headSlot };
  let actuatorFee = 0n;
  let contractRet = contractResultCode('SUCCESS');
  if (contract.type === 'TriggerSmartContract') {
    contractRet = await executeTrigger(ctx, actx, tx, contract, info);
  } else {
    const actuator = ACTUATORS[contract.type];
    if (!actuator) throw new ContractValidateError(`${contract.type} is not supported by this devnet`);
    actuator.validate(actx, contract.value);
    const result = actuator.execute(actx, contract.value);
    actuatorFee = result.fee;
    info.withdrawExpireAmount = result.withdrawExpireAmount ?? 0n;
    info.cancelUnfreezeV2Amount = result.cancelUnfreezeV2Amount ?? null;
  }
  info.fee = actuatorFee + info.receipt.energyFee + info.receipt.netFee + memoFee;
  tx.ret = [{ fee: 0n, ret: 0, contractRet }];
  return { tx, info, world };
}

/**
 * BandwidthProcessor.contractCreateNewAccount: an AccountCreateContract always creates one; a TRX or
 * TRC10 transfer when its recipient does not exist yet.
 */
function createsNewAccount(world: WorldState, contract: TxContract): boolean {
  if (contract.type === 'AccountCreateContract') return true;
  if (contract.type !== 'TransferContract' && contract.type !== 'TransferAssetContract') return false;
  return !world.accounts.has((contract.value['to_address'] as string | undefined) ?? '');
}

/** VMActuator.call + ReceiptCapsule.payEnergyBill (the caller pays all energy: percent 100). */
async function executeTrigger(
  ctx: ProcessContext,
  actx: ActuatorContext,
  tx: Transaction,
  contract: TxContract,
  info: TransactionInfo,
): Promise<number> {
  const { world, params } = actx;
  const target = (contract.value['contract_address'] as string | undefined) ?? '';
  const callValue = (contract.value['call_value'] as bigint | undefined) ?? 0n;
  const callerHex = ownerOf(contract);
  if (!world.contracts.has(target)) throw new ContractValidateError('No contract or not a smart contract');
  if (callValue < 0n) throw new ContractValidateError('callValue must be >= 0');
  const feeLimit = tx.raw.feeLimit;
  if (feeLimit < 0n || feeLimit > params.maxFeeLimit) {
    throw new ContractValidateError(`feeLimit must be >= 0 and <= ${params.maxFeeLimit}`);
  }
  const caller = world.accounts.get(callerHex);
  if (!caller) throw new ContractValidateError(`account [${hexAddressToBase58(callerHex)}] does not exist`);
  if (callValue > 0n && caller.balance < callValue) {
    throw new ContractValidateError('Validate InternalTransfer error, balance is not sufficient.');
  }
  const left = leftEnergyOf(world, params, caller, actx.now);
  const fromBalance = (caller.balance > callValue ? caller.balance - callValue : 0n) / params.energyFee;
  const fromFeeLimit = feeLimit / params.energyFee;
  const energyLimit = minBig(left + fromBalance, fromFeeLimit);

  const outcome = await runTvmCall({
    world,
    caller: callerHex,
    contract: target,
    data: (contract.value['data'] as Uint8Array | undefined) ?? new Uint8Array(),
    callValue,
    energyLimit,
    block: ctx.nextBlock,
    commit: true,
  });
  const used = outcome.energyUsed;
  const payer = world.accounts.get(callerHex) ?? caller;
  const fromStake = minBig(left, used);
  useEnergy(payer, fromStake, actx.now, actx.headTime);
  const energyFee = (used - fromStake) * params.energyFee;
  if (payer.balance < energyFee) throw new ContractExeError(`${callerHex} insufficient balance`);
  payer.balance -= energyFee;
  info.receipt.energyUsage = fromStake;
  info.receipt.energyFee = energyFee;
  info.receipt.energyUsageTotal = used;
  info.receipt.result = outcome.result;
  info.contractResult = outcome.returnValue;
  info.contractAddress = target;
  info.logs = outcome.logs;
  if (outcome.runtimeError) {
    info.failed = true;
    info.resMessage = outcome.runtimeError;
  }
  return contractResultCode(outcome.result);
}
