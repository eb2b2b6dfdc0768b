// JSON-RPC errors (agave's rpc_custom_error codes) and litesvm's TransactionError in the node's JSON
// form ("BlockhashNotFound", {"InstructionError":[0,{"Custom":1}]}) with its display text.
import type { FailedTransactionMetadata } from 'litesvm';
import type { Json } from './json.ts';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Json,
  ) {
    super(message);
  }
}

export const invalidParams = (detail: string) => new RpcError(-32602, detail);

// litesvm's TransactionErrorFieldless, in its order.
const TX_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
];

// The node's Display text for the fieldless errors a gateway meets.
const TX_ERROR_TEXT: Record<string, string> = {
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  BlockhashNotFound: 'Blockhash not found',
  AlreadyProcessed: 'This transaction has already been processed',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  SignatureFailure: 'Transaction did not pass signature verification',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
};

// litesvm's InstructionErrorFieldless, in its order.
const IX_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
];

export interface TxError {
  json: Json;
  text: string;
}

type LiteErr = ReturnType<FailedTransactionMetadata['err']>;

function instructionError(index: number, inner: unknown): TxError {
  if (typeof inner === 'number') {
    const name = IX_ERRORS[inner] ?? 'GenericError';
    return {
      json: { InstructionError: [index, name] },
      text: `Error processing Instruction ${index}: ${name}`,
    };
  }
  const custom = inner as { code?: number; msg?: string };
  if (typeof custom.code === 'number') {
    return {
      json: { InstructionError: [index, { Custom: custom.code }] },
      text: `Error processing Instruction ${index}: custom program error: 0x${custom.code.toString(16)}`,
    };
  }
  return {
    json: { InstructionError: [index, { BorshIoError: custom.msg ?? '' }] },
    text: `Error processing Instruction ${index}: ${custom.msg ?? 'BorshIoError'}`,
  };
}

export function fieldlessError(name: string): TxError {
  return { json: name, text: TX_ERROR_TEXT[name] ?? name };
}

export function txErrorOf(failed: FailedTransactionMetadata): TxError {
  const err: LiteErr = failed.err();
  if (typeof err === 'number') return fieldlessError(TX_ERRORS[err] ?? 'SanitizeFailure');
  const name = err.constructor.name;
  if (name === 'TransactionErrorInstructionError' && 'err' in err)
    return instructionError(err.index, err.err());
  if ('index' in err) return { json: { DuplicateInstruction: err.index }, text: 'Duplicate instruction' };
  if (name === 'TransactionErrorInsufficientFundsForRent') {
    return {
      json: { InsufficientFundsForRent: { account_index: err.accountIndex } },
      text: `Transaction results in an account (${err.accountIndex}) with insufficient funds for rent`,
    };
  }
  return {
    json: { ProgramExecutionTemporarilyRestricted: { account_index: err.accountIndex } },
    text: 'Execution of the program referenced by this account is temporarily restricted',
  };
}
