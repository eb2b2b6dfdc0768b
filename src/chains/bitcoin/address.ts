/**
 * Bitcoin addresses of every network and their output scripts: bech32 segwit v0 (BIP-173), bech32m
 * v1+ (BIP-350, taproot and later versions) and base58check P2PKH/P2SH. Decoded here rather than with
 * btc-signer's Address coder, which refuses witness versions above 1 that are valid to pay to.
 */

import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import { BITCOIN_NETWORKS, type BitcoinNetwork } from './networks.ts';

const base58check = createBase58check(sha256);

/** Longest bech32 address: BIP-173's 90 characters. */
const BECH32_LIMIT = 90;

const OP_0 = 0x00;
const OP_1 = 0x51;
const OP_DUP = 0x76;
const OP_HASH160 = 0xa9;
const OP_EQUAL = 0x87;
const OP_EQUALVERIFY = 0x88;
const OP_CHECKSIG = 0xac;

type DecodedAddress =
  | { kind: 'segwit'; hrp: string; version: number; program: Uint8Array }
  | { kind: 'base58'; prefix: number; hash: Uint8Array };

/** An address that is valid, but for another Bitcoin network than the one asked for. */
export class AddressNetworkError extends Error {
  override readonly name = 'AddressNetworkError';
  /** The networks the address is for, as words ('mainnet', 'testnet, testnet4 or signet', 'regtest'). */
  readonly addressNetworks: string;

  constructor(address: string, addressNetworks: string, network: BitcoinNetwork) {
    super(`${address} is a Bitcoin ${addressNetworks} address, not one of ${network.name}`);
    this.addressNetworks = addressNetworks;
  }
}

export function isBitcoinAddress(text: string): boolean {
  const decoded = decodeAddress(text);
  if (decoded === null) return false;
  return decoded.kind === 'segwit'
    ? networksOfHrp(decoded.hrp).length > 0
    : networksOfPrefix(decoded.prefix).length > 0;
}

/**
 * The scriptPubKey an address pays to on `network`. Throws AddressNetworkError for a valid address of
 * another network, and a plain Error for text that is no Bitcoin address. Base58 test addresses are the
 * same on every test network (regtest included), so they pass on all of them.
 */
export function outputScript(address: string, network: BitcoinNetwork): Uint8Array {
  const decoded = decodeAddress(address);
  if (decoded === null) throw new Error(`${address} is not a Bitcoin address`);
  if (decoded.kind === 'segwit') {
    if (decoded.hrp === network.bech32) return witnessScript(decoded.version, decoded.program);
    const owners = networksOfHrp(decoded.hrp);
    if (owners.length === 0) throw new Error(`${address} is not a Bitcoin address`);
    throw new AddressNetworkError(address, networkWords(owners), network);
  }
  if (decoded.prefix === network.pubKeyHash) return p2pkhScript(decoded.hash);
  if (decoded.prefix === network.scriptHash) return p2shScript(decoded.hash);
  const owners = networksOfPrefix(decoded.prefix);
  if (owners.length === 0) throw new Error(`${address} is not a Bitcoin address`);
  throw new AddressNetworkError(address, networkWords(owners), network);
}

/** The address of a standard output script on `network`; null for scripts no address names (OP_RETURN, bare multisig). */
export function addressOfScript(script: Uint8Array, network: BitcoinNetwork): string | null {
  const length = script.length;
  if (
    length === 25 &&
    script[0] === OP_DUP &&
    script[1] === OP_HASH160 &&
    script[2] === 20 &&
    script[23] === OP_EQUALVERIFY &&
    script[24] === OP_CHECKSIG
  ) {
    return base58Address(network.pubKeyHash, script.subarray(3, 23));
  }
  if (length === 23 && script[0] === OP_HASH160 && script[1] === 20 && script[22] === OP_EQUAL) {
    return base58Address(network.scriptHash, script.subarray(2, 22));
  }
  const version = witnessVersionOfOpcode(script[0]);
  const programLength = script[1];
  if (version === null || programLength === undefined || length !== programLength + 2) return null;
  const program = script.subarray(2);
  if (!validWitnessProgram(version, program)) return null;
  return segwitAddress(network.bech32, version, program);
}

/** The P2WPKH address of a compressed public key. */
export function p2wpkhAddress(publicKey: Uint8Array, network: BitcoinNetwork): string {
  if (publicKey.length !== 33 || (publicKey[0] !== 0x02 && publicKey[0] !== 0x03)) {
    throw new Error('a P2WPKH address needs a 33-byte compressed public key');
  }
  return segwitAddress(network.bech32, 0, hash160(publicKey));
}

/** The form an address is stored and compared in: bech32 lowercased (BIP-173 allows all-upper), base58 as is. */
export function canonicalAddress(address: string): string {
  return decodeAddress(address)?.kind === 'segwit' ? address.toLowerCase() : address;
}

/** The output script of an address of any Bitcoin network; throws for text that is no Bitcoin address. */
export function anyNetworkOutputScript(address: string): Uint8Array {
  const decoded = decodeAddress(address);
  if (decoded === null || !isBitcoinAddress(address)) throw new Error(`${address} is not a Bitcoin address`);
  if (decoded.kind === 'segwit') return witnessScript(decoded.version, decoded.program);
  const network = networksOfPrefix(decoded.prefix)[0];
  if (network === undefined) throw new Error(`${address} is not a Bitcoin address`);
  return decoded.prefix === network.pubKeyHash ? p2pkhScript(decoded.hash) : p2shScript(decoded.hash);
}

export function hash160(bytes: Uint8Array): Uint8Array {
  return ripemd160(sha256(bytes));
}

export function p2wpkhScript(publicKeyHash: Uint8Array): Uint8Array {
  return witnessScript(0, publicKeyHash);
}

/** Any well-formed address of any network, checksum verified; null otherwise. */
function decodeAddress(text: string): DecodedAddress | null {
  return decodeSegwit(text) ?? decodeBase58(text);
}

function decodeSegwit(text: string): DecodedAddress | null {
  if (text.length > BECH32_LIMIT || !text.includes('1')) return null;
  // Both decoders refuse mixed case; BIP-350 ties the checksum variant to the witness version.
  const plain = bech32.decodeUnsafe(text, BECH32_LIMIT);
  const modified = plain ? undefined : bech32m.decodeUnsafe(text, BECH32_LIMIT);
  const decoded = plain ?? modified;
  if (!decoded) return null;
  const [version, ...words] = decoded.words;
  if (version === undefined || version > 16) return null;
  if ((version === 0) !== (plain !== undefined)) return null;
  const program = bech32.fromWordsUnsafe(words);
  if (!program || !validWitnessProgram(version, program)) return null;
  return { kind: 'segwit', hrp: decoded.prefix, version, program };
}

function decodeBase58(text: string): DecodedAddress | null {
  if (text.length < 26 || text.length > 35) return null;
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(text);
  } catch {
    return null;
  }
  const prefix = bytes[0];
  if (bytes.length !== 21 || prefix === undefined) return null;
  return { kind: 'base58', prefix, hash: bytes.slice(1) };
}

function validWitnessProgram(version: number, program: Uint8Array): boolean {
  if (program.length < 2 || program.length > 40) return false;
  return version !== 0 || program.length === 20 || program.length === 32;
}

function witnessVersionOfOpcode(opcode: number | undefined): number | null {
  if (opcode === OP_0) return 0;
  if (opcode !== undefined && opcode >= OP_1 && opcode <= OP_1 + 15) return opcode - OP_1 + 1;
  return null;
}

function witnessScript(version: number, program: Uint8Array): Uint8Array {
  return Uint8Array.from([version === 0 ? OP_0 : OP_1 + version - 1, program.length, ...program]);
}

function p2pkhScript(hash: Uint8Array): Uint8Array {
  return Uint8Array.from([OP_DUP, OP_HASH160, 20, ...hash, OP_EQUALVERIFY, OP_CHECKSIG]);
}

function p2shScript(hash: Uint8Array): Uint8Array {
  return Uint8Array.from([OP_HASH160, 20, ...hash, OP_EQUAL]);
}

function segwitAddress(hrp: string, version: number, program: Uint8Array): string {
  const coder = version === 0 ? bech32 : bech32m;
  return coder.encode(hrp, [version, ...coder.toWords(program)], BECH32_LIMIT);
}

function base58Address(prefix: number, hash: Uint8Array): string {
  return base58check.encode(Uint8Array.from([prefix, ...hash]));
}

const ALL_NETWORKS = Object.values(BITCOIN_NETWORKS);

function networksOfHrp(hrp: string): BitcoinNetwork[] {
  return ALL_NETWORKS.filter((network) => network.bech32 === hrp);
}

function networksOfPrefix(prefix: number): BitcoinNetwork[] {
  return ALL_NETWORKS.filter((network) => network.pubKeyHash === prefix || network.scriptHash === prefix);
}

/** 'mainnet', 'regtest', or 'testnet, testnet4 or signet' (networks sharing an encoding). */
function networkWords(networks: BitcoinNetwork[]): string {
  const names = networks.map((network) => network.name);
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}
