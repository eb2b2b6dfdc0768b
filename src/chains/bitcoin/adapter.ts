/**
 * BitcoinAdapter: the one object routes and services use for Bitcoin on one network. Everything the
 * node is asked goes through `backend`, Esplora REST or Bitcoin Core JSON-RPC as the settings say
 * (BITCOIN_<NETWORK>_BACKEND); `params` are the encodings of the Bitcoin network served.
 */
import type { Env } from '../../config/setting.ts';
import type { NodeEndpointConfig } from '../../config.ts';
import { type AdapterConnection, adapterNodeClient, connectionOf } from '../adapter-connection.ts';
import type { AdapterContext, AdapterFactory } from '../adapter-context.ts';
import type { ChainAdapter } from '../chain-adapter.ts';
import type { NodeClient } from '../node-client.ts';
import type { Network } from '../types.ts';
import type { BitcoinBackend } from './backend.ts';
import { BTC_DECIMALS } from './btc-amount.ts';
import { CoreRpcBackend } from './core-rpc.ts';
import { EsploraBackend } from './esplora.ts';
import { BitcoinFollower } from './follower.ts';
import { type BitcoinNetwork, bitcoinNetworkOf } from './networks.ts';
import { type BitcoinBackendKind, bitcoinBackendKind } from './settings.ts';

/** Public Esplora instances; Bitcoin Core nodes are always the operator's own. */
export const BITCOIN_DEFAULT_ENDPOINTS: Record<Network, NodeEndpointConfig[]> = {
  mainnet: [
    { url: 'https://blockstream.info/api', headers: {} },
    { url: 'https://mempool.space/api', headers: {} },
  ],
  testnet: [
    { url: 'https://blockstream.info/testnet/api', headers: {} },
    { url: 'https://mempool.space/testnet/api', headers: {} },
  ],
};

const BASE58_BODY = '[1-9A-HJ-NP-Za-km-z]{25,34}';
const BECH32_BODY = '[02-9ac-hj-np-z]{6,87}';

/** The backend of the given kind over a client of the endpoints. */
export function bitcoinBackendOf(client: NodeClient, kind: BitcoinBackendKind): BitcoinBackend {
  return kind === 'core' ? new CoreRpcBackend(client) : new EsploraBackend(client);
}

/** The backend the settings name for the network, over `client`. */
export function bitcoinBackendFor(client: NodeClient, network: Network, settings: Env): BitcoinBackend {
  return bitcoinBackendOf(client, bitcoinBackendKind(settings, network));
}

export interface BitcoinAdapterOptions extends AdapterConnection {
  params: BitcoinNetwork;
  backendKind: BitcoinBackendKind;
}

export class BitcoinAdapter implements ChainAdapter {
  readonly chain = 'bitcoin' as const;
  readonly network: Network;
  readonly nativeSymbol = 'BTC';
  readonly nativeDecimals = BTC_DECIMALS;
  readonly backend: BitcoinBackend;
  readonly params: BitcoinNetwork;
  readonly follower: BitcoinFollower;
  readonly #client: NodeClient;
  readonly #bech32: RegExp;
  readonly #base58: RegExp;

  constructor(options: BitcoinAdapterOptions) {
    this.network = options.network;
    this.params = options.params;
    this.#client = adapterNodeClient('bitcoin', options);
    this.backend = bitcoinBackendOf(this.#client, options.backendKind);
    this.follower = new BitcoinFollower(this.backend, options.network);
    this.#bech32 = new RegExp(`^${options.params.bech32}1${BECH32_BODY}$`);
    this.#base58 = new RegExp(`^${options.network === 'mainnet' ? '[13]' : '[mn2]'}${BASE58_BODY}$`);
  }

  /**
   * A quick look at the form: this network's bech32 prefix and alphabet (either case, not mixed), or
   * base58 with this network's leading character. Checksums are keys.ts's to check.
   */
  isAddress(address: string): boolean {
    if (address === address.toLowerCase() || address === address.toUpperCase()) {
      if (this.#bech32.test(address.toLowerCase())) return true;
    }
    return this.#base58.test(address);
  }

  async getBlockNumber(): Promise<bigint> {
    return BigInt(await this.backend.tipHeight());
  }

  disableEndpoint(endpoint: string): number {
    return this.#client.disableEndpoint(endpoint);
  }

  async close(): Promise<void> {
    await this.#client.close();
  }
}

export const bitcoinAdapterFactory: AdapterFactory = (context: AdapterContext) =>
  new BitcoinAdapter({
    ...connectionOf(context),
    params: bitcoinNetworkOf(context.network, context.settings),
    backendKind: bitcoinBackendKind(context.settings, context.network),
  });
