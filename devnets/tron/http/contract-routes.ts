// Smart-contract endpoints: triggersmartcontract / triggerconstantcontract / estimateenergy answer
// with a TransactionExtention (errors inside "result", never {"Error"}), plus getcontract(info).
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { buildTransaction } from '../builder.ts';
import type { TronChain } from '../chain.ts';
import {
  functionSelector,
  isConstantSelector,
  printContractInfo,
  printSmartContract,
} from '../contract-json.ts';
import type { ContractValue } from '../contract-types.ts';
import type { Json } from '../json.ts';
import type { WorldState } from '../state.ts';
import type { Transaction } from '../transaction.ts';
import { JsonFormatError, parseContractValue, printTransaction } from '../transaction-json.ts';
import { runTvmCall, type TvmOutcome } from '../tvm.ts';
import { extraData } from './build-routes.ts';
import { addressParam, intParam, stringParam } from './params.ts';
import type { Handler, NodeRequest } from './server.ts';

const MAX_ENERGY_LIMIT_FOR_CONSTANT = 100_000_000n;
const TRX = 1_000_000n;

/** A failure that ends up in TransactionExtention.result (code + message). */
class TriggerError extends Error {
  constructor(
    readonly code: 'CONTRACT_VALIDATE_ERROR' | 'CONTRACT_EXE_ERROR' | 'OTHER_ERROR',
    message: string,
  ) {
    super(message);
  }
}

const EXCEPTION_CLASS: Record<string, string> = {
  OUT_OF_ENERGY: 'class org.tron.core.vm.program.Program$OutOfEnergyException',
  BAD_JUMP_DESTINATION: 'class org.tron.core.vm.program.Program$BadJumpDestinationException',
  ILLEGAL_OPERATION: 'class org.tron.core.vm.program.Program$IllegalOperationException',
  STACK_TOO_SMALL: 'class org.tron.core.vm.program.Program$StackTooSmallException',
  STACK_TOO_LARGE: 'class org.tron.core.vm.program.Program$StackTooLargeException',
};

const message = (text: string, visible: boolean): string =>
  visible ? text : bytesToHex(new TextEncoder().encode(text));

function otherError(javaClass: string, msg: string): TriggerError {
  // The servlets swap double quotes for single ones before printing.
  return new TriggerError('OTHER_ERROR', `${javaClass} : ${msg.replace(/"/g, "'")}`);
}

interface TriggerRequest {
  value: ContractValue;
  feeLimit: bigint;
  selector: string;
}

function parseTrigger(req: NodeRequest): TriggerRequest {
  if (!stringParam(req, 'owner_address')) {
    throw otherError('class java.security.InvalidParameterException', "owner_address isn't set.");
  }
  if (!stringParam(req, 'contract_address')) {
    throw otherError('class java.security.InvalidParameterException', "contract_address isn't set.");
  }
  let value: ContractValue;
  try {
    value = parseContractValue('TriggerSmartContract', req.params, req.visible);
  } catch (err) {
    if (err instanceof JsonFormatError) throw otherError(err.javaClass, err.message);
    throw err;
  }
  const fn = stringParam(req, 'function_selector');
  if (fn) {
    const parameter = stringParam(req, 'parameter');
    try {
      value['data'] = hexToBytes(functionSelector(fn) + parameter.toLowerCase());
    } catch {
      throw otherError('class org.bouncycastle.util.encoders.DecoderException', 'invalid hex parameter');
    }
  }
  const data = (value['data'] as Uint8Array | undefined) ?? new Uint8Array();
  return { value, feeLimit: intParam(req, 'fee_limit'), selector: bytesToHex(data.subarray(0, 4)) };
}

async function constantCall(chain: TronChain, world: WorldState, t: TriggerRequest, feeLimit: bigint) {
  let energyLimit = MAX_ENERGY_LIMIT_FOR_CONSTANT;
  if (feeLimit > 0n && feeLimit / chain.params.energyFee < energyLimit)
    energyLimit = feeLimit / chain.params.energyFee;
  return runTvmCall({
    world,
    caller: (t.value['owner_address'] as string) ?? '',
    contract: (t.value['contract_address'] as string) ?? '',
    data: (t.value['data'] as Uint8Array | undefined) ?? new Uint8Array(),
    callValue: (t.value['call_value'] as bigint | undefined) ?? 0n,
    energyLimit,
    block: chain.nextTvmBlock(),
    commit: false,
  });
}

function printLogs(outcome: TvmOutcome): Json[] {
  return outcome.logs.map((l) => {
    const log: Record<string, Json> = { address: bytesToHex(l.address) };
    if (l.topics.length) log['topics'] = l.topics.map((x) => bytesToHex(x));
    if (l.data.length) log['data'] = bytesToHex(l.data);
    return log;
  });
}

/** Wallet.callConstantContract: REVERT is a result, any other VM exception is thrown. */
function constantExtension(
  outcome: TvmOutcome,
  tx: Transaction,
  visible: boolean,
  estimating = false,
): Record<string, Json> {
  if (outcome.result !== 'SUCCESS' && outcome.result !== 'REVERT' && !estimating) {
    throw otherError(
      EXCEPTION_CLASS[outcome.result] ?? 'class java.lang.RuntimeException',
      outcome.runtimeError,
    );
  }
  const failed = outcome.result !== 'SUCCESS';
  tx.ret = [{ fee: 0n, ret: failed ? 1 : 0, contractRet: 0 }];
  const result: Record<string, Json> = { result: true };
  if (failed) result['message'] = message(outcome.runtimeError, visible);
  const out: Record<string, Json> = { result };
  if (outcome.energyUsed) out['energy_used'] = outcome.energyUsed;
  out['constant_result'] = [bytesToHex(outcome.returnValue)];
  if (outcome.logs.length) out['logs'] = printLogs(outcome);
  out['transaction'] = printTransaction(tx, visible, { visibleKey: true });
  return out;
}

function errorExtension(err: unknown, visible: boolean): Record<string, Json> {
  if (!(err instanceof TriggerError)) throw err;
  return { result: { code: err.code, message: message(err.message, visible) } };
}

export function contractRoutes(chain: TronChain): Record<string, Handler> {
  // Only triggerconstantcontract applies extra_data (TriggerSmartContractServlet ignores it).
  const build = (req: NodeRequest, t: TriggerRequest, feeLimit: bigint, memo = false) => {
    const data = memo ? extraData(req) : undefined;
    return buildTransaction(chain, 'TriggerSmartContract', t.value, {
      feeLimit,
      permissionId: Number(intParam(req, 'Permission_id')),
      ...(data ? { data } : {}),
    });
  };

  const triggerConstant: Handler = async (req) => {
    try {
      const t = parseTrigger(req);
      const world = chain.worldAt(req.solidity);
      if (!world.contracts.has(t.value['contract_address'] as string)) {
        throw new TriggerError('CONTRACT_VALIDATE_ERROR', 'Smart contract is not exist.');
      }
      const tx = build(req, t, 0n, true);
      return constantExtension(await constantCall(chain, world, t, t.feeLimit), tx, req.visible);
    } catch (err) {
      return errorExtension(err, req.visible);
    }
  };

  return {
    triggersmartcontract: async (req) => {
      try {
        const t = parseTrigger(req);
        const contract = chain.world.contracts.get(t.value['contract_address'] as string);
        if (!contract)
          throw new TriggerError('CONTRACT_VALIDATE_ERROR', 'No contract or not a valid smart contract');
        const tx = build(req, t, t.feeLimit);
        if (isConstantSelector(contract.abi, t.selector)) {
          return constantExtension(await constantCall(chain, chain.world, t, t.feeLimit), tx, req.visible);
        }
        return {
          result: { result: true },
          transaction: printTransaction(tx, req.visible, { visibleKey: true }),
        };
      } catch (err) {
        return errorExtension(err, req.visible);
      }
    },
    triggerconstantcontract: triggerConstant,
    estimateenergy: async (req) => {
      try {
        const t = parseTrigger(req);
        const world = chain.worldAt(req.solidity);
        if (!world.contracts.has(t.value['contract_address'] as string)) {
          throw new TriggerError('CONTRACT_VALIDATE_ERROR', 'Smart contract is not exist.');
        }
        // Wallet.estimateEnergy: binary search on fee_limit down to 1 TRX of precision.
        const fee = chain.params.energyFee;
        const run = (limit: bigint) => constantCall(chain, world, t, limit);
        let high = chain.params.maxFeeLimit;
        let outcome = await run(high);
        if (outcome.result !== 'SUCCESS') {
          return {
            result: { code: 'CONTRACT_EXE_ERROR', message: message(outcome.runtimeError, req.visible) },
          };
        }
        let low = fee * outcome.energyUsed;
        const twice = low * 2n;
        if (twice < high) {
          if ((await run(twice)).result !== 'SUCCESS') low = twice;
          else high = twice;
        }
        while (low + TRX < high) {
          const mid = (low + high) / 2n;
          if ((await run(mid)).result !== 'SUCCESS') low = mid;
          else high = mid;
        }
        outcome = await run(high);
        if (outcome.result !== 'SUCCESS') {
          return {
            result: { code: 'CONTRACT_EXE_ERROR', message: message(outcome.runtimeError, req.visible) },
          };
        }
        return { result: { result: true }, energy_required: (high + fee - 1n) / fee };
      } catch (err) {
        return errorExtension(err, req.visible);
      }
    },
    getcontract: (req) => {
      const c = chain.worldAt(req.solidity).contracts.get(addressParam(req, 'value'));
      return c ? printSmartContract(c, req.visible) : {};
    },
    getcontractinfo: (req) => {
      const c = chain.worldAt(req.solidity).contracts.get(addressParam(req, 'value'));
      return c ? printContractInfo(c, req.visible) : {};
    },
  };
}
