/** The EVM chain family (Ethereum, BSC, Polygon, Arbitrum): adapter, factory, nonces, keystores, errors. */
export { ERC20_ABI, ERC721_ABI } from './abi.ts';
export {
  EvmAdapter,
  type EvmAdapterOptions,
  type EvmTxOverrides,
  evmAdapterFactory,
  type RpcObject,
} from './adapter.ts';
export {
  EVM_CHAIN_NAMES,
  EVM_CHAINS,
  type EvmChainConfig,
  type EvmChainName,
  type EvmFeeModel,
  type EvmNetworkConfig,
  evmDefaultEndpoints,
  isEvmChainName,
} from './chains.ts';
export {
  EvmBroadcastUnknownError,
  EvmChainMismatchError,
  EvmContractError,
  EvmInputError,
  EvmInsufficientFundsError,
  EvmInvalidResponseError,
  EvmNodeError,
  EvmNonceError,
  type EvmNonceErrorKind,
  EvmRevertError,
  EvmTokenTransferError,
} from './errors.ts';
export { type EvmChainFamily, evmFamilies } from './family.ts';
export { type EvmFees, type FeeMarket, type FeeOverrides, feeCap, readFeeHistory } from './fees.ts';
export {
  checksumAddress,
  type EvmAddressProblem,
  type EvmKeyPair,
  evmAddressFieldMessage,
  evmAddressProblem,
  evmKeyFromPrivate,
  generateEvmKey,
  isEvmAddress,
  normalizePrivateKey,
} from './keys.ts';
export {
  type ExportedKeystore,
  exportKeystore,
  importKeystore,
  KEYSTORE_SCRYPT,
  type KeystoreV3,
  keystoreDerivedKey,
  keystoreFilename,
  WrongPasswordError,
} from './keystore.ts';
export { classifyRpcError, decodeRevertReason, translateNodeError } from './node-errors.ts';
export {
  type ManagedSend,
  NonceManager,
  type NonceManagerOptions,
  type NonceNode,
  type ReconcileReport,
  withNonce,
} from './nonce-manager.ts';
export type {
  EvmNonceDatabase,
  EvmNoncesTable,
  EvmPendingTable,
  NonceDialect,
  NonceKey,
  PendingNonce,
} from './nonce-store.ts';
export { EvmRpc, JsonRpcError } from './rpc.ts';
export type { Erc20Info } from './tokens.ts';
export {
  decodeTransaction,
  type EvmTxFields,
  recoverSender,
  type SignedEvmTransaction,
  signEvmTransaction,
  transactionHash,
  type UnsignedEvmTransaction,
  unsignedTransaction,
  withTransactionNonce,
} from './transactions.ts';
