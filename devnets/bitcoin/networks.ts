// The networks the devnet can pretend to be: address encodings (bitcoinjs-lib's Network shape), the name
// Bitcoin Core reports, and the real genesis block (its header fields and coinbase) of each.
import type { Network } from 'bitcoinjs-lib';
import { networks } from 'bitcoinjs-lib';

export type DevnetBitcoinNetwork = 'mainnet' | 'testnet' | 'testnet4' | 'signet' | 'regtest';

export interface GenesisHeader {
  time: number;
  bits: number;
  nonce: number;
}

export interface NetworkParams {
  name: DevnetBitcoinNetwork;
  /** What getblockchaininfo calls the chain. */
  chain: 'main' | 'test' | 'testnet4' | 'signet' | 'regtest';
  encoding: Network;
  genesis: GenesisHeader;
  /** The genesis coinbase, raw. */
  genesisCoinbase: string;
  /** The hash block 0 has on the real network (checked against the header built from the fields above). */
  genesisHash: string;
}

const SATOSHI_COINBASE =
  '01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000';

// testnet4 (BIP-94) has a coinbase of its own: another headline, and 50 BTC to a pubkey of 33 zero bytes.
const TESTNET4_HEADLINE = '03/May/2024 000000000000000000001ebd58c244970b3aa9d783bb001011fbe8ea8e98e00e';
const TESTNET4_COINBASE = (() => {
  const headline = Buffer.from(TESTNET4_HEADLINE, 'ascii');
  const scriptSig = Buffer.concat([
    Buffer.from('04ffff001d0104', 'hex'),
    Buffer.from([0x4c, headline.length]),
    headline,
  ]);
  const outScript = Buffer.concat([Buffer.from([0x21]), Buffer.alloc(33), Buffer.from([0xac])]);
  return Buffer.concat([
    Buffer.from('01000000', 'hex'),
    Buffer.from([1]),
    Buffer.alloc(32),
    Buffer.from('ffffffff', 'hex'),
    Buffer.from([scriptSig.length]),
    scriptSig,
    Buffer.from('ffffffff', 'hex'),
    Buffer.from([1]),
    Buffer.from('00f2052a01000000', 'hex'),
    Buffer.from([outScript.length]),
    outScript,
    Buffer.from('00000000', 'hex'),
  ]).toString('hex');
})();

const regtestEncoding: Network = { ...networks.testnet, bech32: 'bcrt' };

export const NETWORKS: Readonly<Record<DevnetBitcoinNetwork, NetworkParams>> = {
  mainnet: {
    name: 'mainnet',
    chain: 'main',
    encoding: networks.bitcoin,
    genesis: { time: 1231006505, bits: 0x1d00ffff, nonce: 2083236893 },
    genesisCoinbase: SATOSHI_COINBASE,
    genesisHash: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f',
  },
  testnet: {
    name: 'testnet',
    chain: 'test',
    encoding: networks.testnet,
    genesis: { time: 1296688602, bits: 0x1d00ffff, nonce: 414098458 },
    genesisCoinbase: SATOSHI_COINBASE,
    genesisHash: '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943',
  },
  testnet4: {
    name: 'testnet4',
    chain: 'testnet4',
    encoding: networks.testnet,
    genesis: { time: 1714777860, bits: 0x1d00ffff, nonce: 393743547 },
    genesisCoinbase: TESTNET4_COINBASE,
    genesisHash: '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043',
  },
  signet: {
    name: 'signet',
    chain: 'signet',
    encoding: networks.testnet,
    genesis: { time: 1598918400, bits: 0x1e0377ae, nonce: 52613770 },
    genesisCoinbase: SATOSHI_COINBASE,
    genesisHash: '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6',
  },
  regtest: {
    name: 'regtest',
    chain: 'regtest',
    encoding: regtestEncoding,
    genesis: { time: 1296688602, bits: 0x207fffff, nonce: 2 },
    genesisCoinbase: SATOSHI_COINBASE,
    genesisHash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
  },
};

/** The encodings an address can be in, to tell "another network's address" from "not an address". */
export const ALL_ENCODINGS: readonly Network[] = [networks.bitcoin, networks.testnet, regtestEncoding];
