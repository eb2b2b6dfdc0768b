/**
 * The EVM family module (Ethereum, BSC, Polygon, Arbitrum, Base, Optimism and any chain of an operator's
 * EVM_CHAINS_FILE), listed once in `chains/families.ts`, and the family's parts its tests reach directly.
 */

import type { ChainFamily } from '../chain-family.ts';
import type { FamilyModule } from '../family.ts';
import type { KeyCodec } from '../key-codec.ts';
import type { ChainName } from '../types.ts';
import { evmAdapterFactory } from './adapter.ts';
import { evmAddressForm } from './address-form.ts';
import { evmChains, evmDefaultEndpoints, evmTransferTypes } from './chains.ts';
import { evmCallContract } from './contract-call.ts';
import { evmCustodyAnswers } from './custody-answers.ts';
import { checksumAddress, evmKeyFromPrivate, generateEvmKey, isEvmAddress } from './keys.ts';
import { evmMigrations } from './migrations/index.ts';
import { HISTORY_NATIVE_TYPE } from './moved-asset.ts';
import { evmPriceCoins } from './native-coins.ts';
import { evmParts } from './parts.ts';
import { evmHeadProbe, evmNetworkProbe } from './probe.ts';
import { evmReads } from './reads.ts';
import { evmSendWording } from './send-wording.ts';
import { EVM_SETTINGS } from './settings.ts';
import { evmSettling } from './settling.ts';
import { WEI_DECIMALS } from './units.ts';
import { evmWebhookRules } from './webhook-rules.ts';

/** Each served EVM chain's entry, built once per chain table (the table changes only with its file). */
const servedByTable = new WeakMap<ReadonlyMap<ChainName, unknown>, Record<ChainName, ChainFamily>>();

function evmServedChains(): Record<ChainName, ChainFamily> {
  const table = evmChains();
  let served = servedByTable.get(table);
  if (served === undefined) {
    served = Object.fromEntries(
      [...table.keys()].map((chain): [ChainName, ChainFamily] => [
        chain,
        {
          factory: evmAdapterFactory(chain),
          defaults: evmDefaultEndpoints(chain),
          probe: evmHeadProbe,
          identify: evmNetworkProbe(chain),
          headSubscription: true,
        },
      ]),
    );
    servedByTable.set(table, served);
  }
  return served;
}

const evmKeys: KeyCodec = {
  generate: generateEvmKey,
  fromPrivateKey: evmKeyFromPrivate,
  privateKeyForm: '64 hex characters',
  normalizeAddress: (address) => (isEvmAddress(address) ? checksumAddress(address) : address),
};

export const evmFamily: FamilyModule = {
  name: 'evm',
  get chains() {
    return evmServedChains();
  },
  settings: EVM_SETTINGS,
  keys: () => evmKeys,
  address: evmAddressForm,
  custody: evmCustodyAnswers,
  reads: evmReads,
  transferTypes: evmTransferTypes,
  historyTypes: (chain) => {
    const { fungible, nft } = evmTransferTypes(chain);
    return [HISTORY_NATIVE_TYPE, fungible, nft, 'raw'];
  },
  historyDecimals: (chain, type) =>
    type === HISTORY_NATIVE_TYPE ? WEI_DECIMALS : type === evmTransferTypes(chain).nft ? 0 : null,
  sends: evmSendWording,
  settling: evmSettling,
  createParts: evmParts,
  sandboxDevnets: async () => (await import('./sandbox-devnet.ts')).evmSandboxDevnets(),
  webhookRules: evmWebhookRules,
  get priceCoins() {
    return evmPriceCoins();
  },
  callContract: evmCallContract,
  migrations: evmMigrations,
};

export { ERC20_ABI, ERC721_ABI } from './abi.ts';
export {
  EvmAdapter,
  type EvmAdapterOptions,
  type EvmTxOverrides,
  evmAdapterFactory,
  type RpcObject,
} from './adapter.ts';
export type { EvmChainConfig, EvmFeeModel, EvmNetworkConfig } from './chain-file.ts';
export {
  evmChain,
  evmChains,
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
