// Addresses <-> output scripts for one network: segwit v0 (bech32, BIP-173), v1+ (bech32m, BIP-350, which
// bitcoinjs-lib only handles with an ECC library loaded) and base58check P2PKH/P2SH.
import { bech32, bech32m } from '@scure/base';
import { address as base58Codec, type Network } from 'bitcoinjs-lib';

function decodeSegwit(address: string, network: Network): Uint8Array | null {
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) return null;
  const lower = address.toLowerCase();
  if (!lower.startsWith(`${network.bech32}1`)) return null;
  for (const codec of [bech32, bech32m]) {
    const decoded = codec.decodeUnsafe(lower, 90);
    if (!decoded || decoded.prefix !== network.bech32 || decoded.words.length === 0) continue;
    const version = decoded.words[0] as number;
    if (version > 16 || (version === 0) !== (codec === bech32)) return null;
    let program: Uint8Array;
    try {
      program = codec.fromWords(decoded.words.slice(1));
    } catch {
      return null;
    }
    if (program.length < 2 || program.length > 40) return null;
    if (version === 0 && program.length !== 20 && program.length !== 32) return null;
    return Uint8Array.from([version === 0 ? 0 : 0x50 + version, program.length, ...program]);
  }
  return null;
}

/** The output script an address pays, or null when it is not an address of this network. */
export function outputScriptOf(address: string, network: Network): Uint8Array | null {
  const segwit = decodeSegwit(address, network);
  if (segwit) return segwit;
  try {
    const { version, hash } = base58Codec.fromBase58Check(address);
    if (hash.length !== 20) return null;
    if (version === network.pubKeyHash) return Uint8Array.from([0x76, 0xa9, 0x14, ...hash, 0x88, 0xac]);
    if (version === network.scriptHash) return Uint8Array.from([0xa9, 0x14, ...hash, 0x87]);
  } catch {
    // not base58check either
  }
  return null;
}

/** The address of a witness program or P2PKH/P2SH script (null for any other script). */
export function addressOfScript(s: Uint8Array, network: Network): string | null {
  if (
    s.length === 25 &&
    s[0] === 0x76 &&
    s[1] === 0xa9 &&
    s[2] === 0x14 &&
    s[23] === 0x88 &&
    s[24] === 0xac
  ) {
    return base58Codec.toBase58Check(s.subarray(3, 23), network.pubKeyHash);
  }
  if (s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87) {
    return base58Codec.toBase58Check(s.subarray(2, 22), network.scriptHash);
  }
  const op = s[0] as number;
  const version = op === 0 ? 0 : op >= 0x51 && op <= 0x60 ? op - 0x50 : -1;
  if (version < 0 || s.length < 4 || s[1] !== s.length - 2) return null;
  const program = s.subarray(2);
  if (program.length > 40 || (version === 0 && program.length !== 20 && program.length !== 32)) return null;
  const codec = version === 0 ? bech32 : bech32m;
  return codec.encode(network.bech32, [version, ...codec.toWords(program)]);
}
