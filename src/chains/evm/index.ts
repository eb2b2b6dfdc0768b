/**
 * The EVM family module (Ethereum, BSC, Polygon, Arbitrum), listed once in `chains/families.ts`, and the
 * family's parts its tests reach directly.
 */
import type { ChainFamily, FamilyModule, KeyCodec } from '../family.ts';
import type { ChainName } from '../types.ts';
import { evmAdapterFactory } from './adapter.ts';
import { evmAddressForm } from './address-form.ts';
import { EVM_CHAIN_NAMES, evmDefaultEndpoints, evmTransferTypes, isEvmChainName } from './chains.ts';
import { evmCustodyAnswers } from './custody-answers.ts';
import { checksumAddress, evmKeyFromPrivate, generateEvmKey, isEvmAddress } from './keys.ts';
import { HISTORY_NATIVE_TYPE } from './moved-asset.ts';
import { evmHeadProbe, evmNetworkProbe } from './probe.ts';
import { evmReads } from './reads.ts';
import { evmParts } from './routes.ts';
import { evmSendWording } from './send-wording.ts';

function evmFamilyTransferTypes(chain: ChainName) {
  if (!isEvmChainName(chain)) throw new Error(`${chain} is not an EVM chain`);
  return evmTransferTypes(chain);
}

const evmKeys: KeyCodec = {
  generate: generateEvmKey,
  fromPrivateKey: evmKeyFromPrivate,
  privateKeyForm: '64 hex characters',
  normalizeAddress: (address) => (isEvmAddress(address) ? checksumAddress(address) : address),
};

export const evmFamily: FamilyModule = {
  name: 'evm',
  chains: Object.fromEntries(
    EVM_CHAIN_NAMES.map((chain): [ChainName, ChainFamily] => [
      chain,
      {
        factory: evmAdapterFactory(chain),
        defaults: evmDefaultEndpoints(chain),
        probe: evmHeadProbe,
        identify: evmNetworkProbe(chain),
        headSubscription: true,
      },
    ]),
  ),
  settings: {},
  keys: () => evmKeys,
  address: evmAddressForm,
  custody: evmCustodyAnswers,
  reads: evmReads,
  transferTypes: evmFamilyTransferTypes,
  historyTypes: (chain) => {
    const { fungible, nft } = evmFamilyTransferTypes(chain);
    return [HISTORY_NATIVE_TYPE, fungible, nft, 'raw'];
  },
  sends: evmSendWording,
  createParts: (shared) => evmParts(shared, evmKeys),
  sandboxDevnets: async () => (await import('./sandbox-devnet.ts')).evmSandboxDevnets,
};

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
