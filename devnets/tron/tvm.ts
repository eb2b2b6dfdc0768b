// TVM on @ethereumjs/evm: the Petersburg instruction set with java-tron's energy table
// (EnergyCost.java keeps Frontier prices: SLOAD 50, CALL 40, BALANCE 20, EXTCODESIZE 20).
import { Common, Mainnet } from '@ethereumjs/common';
import { createEVM, EVMError, type EVMResult, paramsEVM } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { type HexAddress, tronHexToEvm } from './address.ts';
import type { WorldState } from './state.ts';
import type { ContractResult } from './transaction.ts';
import { TvmStateManager } from './tvm-state.ts';

type ParamsDict = Record<number, Record<string, unknown>>;

const TVM_PARAMS: ParamsDict = (() => {
  const p = structuredClone(paramsEVM) as ParamsDict;
  p[608] = {
    ...p[608],
    sloadGas: 50,
    callGas: 40,
    extcodesizeGas: 20,
    extcodecopyGas: 20,
    balanceGas: 20,
    delegatecallGas: 40,
    callcodeGas: 40,
    selfdestructGas: 0,
  };
  p[609] = { ...p[609], staticcallGas: 40 };
  return p;
})();

function tvmCommon(): Common {
  return new Common({ chain: Mainnet, hardfork: 'petersburg' });
}

export interface TvmBlock {
  number: bigint;
  /** Milliseconds; TVM's TIMESTAMP opcode yields seconds. */
  timestamp: bigint;
  witness: HexAddress;
}

export interface TvmLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

export interface TvmCall {
  world: WorldState;
  caller: HexAddress;
  contract: HexAddress;
  data: Uint8Array;
  callValue: bigint;
  energyLimit: bigint;
  block: TvmBlock;
  /** Write the effects to `world` when execution succeeds. */
  commit: boolean;
}

export interface TvmOutcome {
  result: ContractResult;
  returnValue: Uint8Array;
  energyUsed: bigint;
  logs: TvmLog[];
  /** java-tron's ProgramResult.runtimeError; empty on success. */
  runtimeError: string;
}

function classify(res: EVMResult, energyLimit: bigint): Pick<TvmOutcome, 'result' | 'runtimeError'> {
  const err = res.execResult.exceptionError;
  if (!err) return { result: 'SUCCESS', runtimeError: '' };
  const M = EVMError.errorMessages;
  switch (err.error) {
    case M.REVERT:
      return { result: 'REVERT', runtimeError: 'REVERT opcode executed' };
    case M.OUT_OF_GAS:
    case M.CODESTORE_OUT_OF_GAS:
      return {
        result: 'OUT_OF_ENERGY',
        runtimeError: `Not enough energy: curInvokeEnergyLimit[${energyLimit}], usedEnergy[${res.execResult.executionGasUsed}]`,
      };
    case M.INVALID_JUMP:
      return {
        result: 'BAD_JUMP_DESTINATION',
        runtimeError: 'Operand of JUMP or JUMPI is not a valid destination',
      };
    case M.INVALID_OPCODE:
      return { result: 'ILLEGAL_OPERATION', runtimeError: 'Invalid operation code' };
    case M.STACK_UNDERFLOW:
      return { result: 'STACK_TOO_SMALL', runtimeError: 'Stack too small' };
    case M.STACK_OVERFLOW:
      return { result: 'STACK_TOO_LARGE', runtimeError: 'Stack too large' };
    default:
      return { result: 'UNKNOWN', runtimeError: err.error };
  }
}

async function makeEvm(state: TvmStateManager) {
  return createEVM({ common: tvmCommon(), stateManager: state, params: TVM_PARAMS as never });
}

function evmBlock(b: TvmBlock) {
  return {
    header: {
      number: b.number,
      coinbase: new Address(tronHexToEvm(b.witness)),
      timestamp: b.timestamp / 1000n,
      difficulty: 0n,
      prevRandao: new Uint8Array(32),
      gasLimit: 0n,
      getBlobGasPrice: () => undefined,
    },
  };
}

/** Runs a TriggerSmartContract call. Failed executions leave `world` untouched. */
export async function runTvmCall(call: TvmCall): Promise<TvmOutcome> {
  const state = new TvmStateManager(call.world, call.block.timestamp);
  const evm = await makeEvm(state);
  const res = await evm.runCall({
    caller: new Address(tronHexToEvm(call.caller)),
    origin: new Address(tronHexToEvm(call.caller)),
    to: new Address(tronHexToEvm(call.contract)),
    data: call.data,
    value: call.callValue,
    gasLimit: call.energyLimit,
    block: evmBlock(call.block),
    skipNonceIncrement: true,
  });
  const { result, runtimeError } = classify(res, call.energyLimit);
  const ok = result === 'SUCCESS';
  if (ok && call.commit) state.flush();
  const logs: TvmLog[] = ok
    ? (res.execResult.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }))
    : [];
  // Exceptional halts burn the whole limit; REVERT only what ran (java-tron does the same).
  const energyUsed = ok || result === 'REVERT' ? res.execResult.executionGasUsed : call.energyLimit;
  return { result, runtimeError, returnValue: res.execResult.returnValue, energyUsed, logs };
}

/** Runs creation code at a fixed address (genesis deployment) and installs the runtime code. */
export async function deployAt(
  world: WorldState,
  deployer: HexAddress,
  address: HexAddress,
  initCode: Uint8Array,
  block: TvmBlock,
): Promise<Uint8Array> {
  const state = new TvmStateManager(world, block.timestamp);
  const evm = await makeEvm(state);
  const to = new Address(tronHexToEvm(address));
  const res = await evm.runCode({
    code: initCode,
    data: new Uint8Array(),
    gasLimit: 100_000_000n,
    caller: new Address(tronHexToEvm(deployer)),
    origin: new Address(tronHexToEvm(deployer)),
    to,
    block: evmBlock(block),
  });
  if (res.exceptionError) throw new Error(`deployment of ${address} failed: ${res.exceptionError.error}`);
  state.flush();
  return res.returnValue;
}
