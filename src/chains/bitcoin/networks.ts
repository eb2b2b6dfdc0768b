/**
 * The Bitcoin networks the gateway can serve: their address and key encodings, BIP-32 versions, BIP-44
 * coin type and genesis block, which the network check compares with what a node reports.
 */
import type { Env } from '../../config/setting.ts';
import type { Network } from '../types.ts';
import { type BitcoinTestnet, bitcoinTestnet } from './settings.ts';

export type BitcoinNetworkName = 'mainnet' | BitcoinTestnet;

export interface BitcoinNetwork {
  name: BitcoinNetworkName;
  /** Bech32 human-readable part of segwit addresses. */
  bech32: string;
  /** Base58 version bytes of P2PKH and P2SH addresses. */
  pubKeyHash: number;
  scriptHash: number;
  /** WIF version byte. */
  wif: number;
  /** BIP-32 serialization versions (xpub/xprv; tpub/tprv off mainnet). */
  bip32: { public: number; private: number };
  /** BIP-44 coin type: 0 on mainnet, 1 on every test network. */
  coinType: number;
  /** The hash of block 0, as nodes and explorers write it. */
  genesisHash: string;
}

const TEST_ENCODINGS = {
  bech32: 'tb',
  pubKeyHash: 0x6f,
  scriptHash: 0xc4,
  wif: 0xef,
  bip32: { public: 0x043587cf, private: 0x04358394 },
  coinType: 1,
} as const;

export const BITCOIN_NETWORKS: Readonly<Record<BitcoinNetworkName, BitcoinNetwork>> = {
  mainnet: {
    name: 'mainnet',
    bech32: 'bc',
    pubKeyHash: 0x00,
    scriptHash: 0x05,
    wif: 0x80,
    bip32: { public: 0x0488b21e, private: 0x0488ade4 },
    coinType: 0,
    genesisHash: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f',
  },
  testnet: {
    name: 'testnet',
    ...TEST_ENCODINGS,
    genesisHash: '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943',
  },
  testnet4: {
    name: 'testnet4',
    ...TEST_ENCODINGS,
    genesisHash: '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043',
  },
  signet: {
    name: 'signet',
    ...TEST_ENCODINGS,
    genesisHash: '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6',
  },
  regtest: {
    name: 'regtest',
    ...TEST_ENCODINGS,
    bech32: 'bcrt',
    genesisHash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
  },
};

/** The Bitcoin network behind the gateway's `mainnet` or `testnet`, as the settings choose it. */
export function bitcoinNetworkOf(network: Network, settings: Env): BitcoinNetwork {
  return network === 'mainnet' ? BITCOIN_NETWORKS.mainnet : BITCOIN_NETWORKS[bitcoinTestnet(settings)];
}
