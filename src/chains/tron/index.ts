/** The Tron chain family: adapter, factory and the types and errors routes need. */
export {
  type ChainParameter,
  TRON_DEFAULT_ENDPOINTS,
  TronAdapter,
  type TronAdapterOptions,
  tronAdapterFactory,
} from './adapter.ts';
export { isTronAddress, toBase58Address, toHexAddress } from './address.ts';
export { trc20TransferCall, trc721TransferCall } from './contract-calls.ts';
export {
  TronBroadcastError,
  TronContractError,
  TronInputError,
  TronInvalidResponseError,
  TronNodeError,
} from './errors.ts';
export type { ContractCallArgs } from './fee-estimator.ts';
export { generateTronKey, type TronKeyPair, tronKeyFromPrivate } from './keys.ts';
export { preflightProblems } from './resources.ts';
export { recoverSigner, signTronTransaction, txidOf } from './signing.ts';
export type { Trc10Info, Trc20Info } from './tokens.ts';
export type {
  SignedTronTransaction,
  TronAccountResources,
  TronFreezeResource,
  TronResource,
  TronResourceEstimate,
  TronTransaction,
} from './types.ts';
