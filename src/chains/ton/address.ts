/**
 * TON addresses, read and written without the chain library (the checks every request makes must stay
 * light): the raw form `<workchain>:<64 hex>` and the user-friendly form, 36 bytes in base64 or base64url
 * (a flags byte, the workchain, the 32-byte account id and a CRC16-XMODEM of the 34 before it). The flags
 * say whether a message to it should bounce (0x11 bounceable, 0x51 not) and, with 0x80, that it is meant
 * for the test network only.
 */
import type { Network } from '../types.ts';

export interface TonAddress {
  /** 0 (basechain) or -1 (masterchain). */
  workchain: number;
  /** The account id, 64 lower-case hex characters. */
  hash: string;
}

/** How a user-friendly address was written; null for a raw one, which says neither. */
export interface FriendlyFlags {
  bounceable: boolean;
  testOnly: boolean;
}

export interface ParsedTonAddress {
  address: TonAddress;
  flags: FriendlyFlags | null;
}

/** Why a text is not a TON address, as a field's message words it. */
export type AddressFault = 'malformed' | 'checksum';

const BOUNCEABLE = 0x11;
const NON_BOUNCEABLE = 0x51;
const TEST_ONLY = 0x80;

const RAW = /^(0|-1):([0-9a-fA-F]{64})$/;
const FRIENDLY = /^[A-Za-z0-9+/_-]{48}$/;

/** CRC16-XMODEM (polynomial 0x1021, initial 0): the user-friendly form's checksum. */
export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/** The address a text names, with how it was written; or what is wrong with it. */
export function parseTonAddress(text: string): ParsedTonAddress | AddressFault {
  const raw = RAW.exec(text);
  if (raw !== null) {
    return { address: { workchain: Number(raw[1]), hash: raw[2]!.toLowerCase() }, flags: null };
  }
  // base64 and base64url differ only in two characters; one text may not mix them.
  if (!FRIENDLY.test(text) || (/[+/]/.test(text) && /[-_]/.test(text))) return 'malformed';
  const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length !== 36) return 'malformed';
  const tag = bytes[0]!;
  const testOnly = (tag & TEST_ONLY) !== 0;
  const kind = tag & ~TEST_ONLY;
  if (kind !== BOUNCEABLE && kind !== NON_BOUNCEABLE) return 'malformed';
  const workchain = bytes[1] === 0xff ? -1 : bytes[1]!;
  if (workchain !== 0 && workchain !== -1) return 'malformed';
  if (crc16(bytes.subarray(0, 34)) !== bytes.readUInt16BE(34)) return 'checksum';
  return {
    address: { workchain, hash: bytes.subarray(2, 34).toString('hex') },
    flags: { bounceable: kind === BOUNCEABLE, testOnly },
  };
}

/** The address, or null when the text is none. */
export function tonAddressOf(text: string): TonAddress | null {
  const parsed = parseTonAddress(text);
  return typeof parsed === 'string' ? null : parsed.address;
}

export function isTonAddress(text: string): boolean {
  return tonAddressOf(text) !== null;
}

/** `0:abcd…`: one spelling per account, the same on every network (what webhooks compare). */
export function rawAddress(address: TonAddress): string {
  return `${address.workchain}:${address.hash}`;
}

/** The user-friendly form in base64url, as wallets and explorers show it. */
export function friendlyAddress(address: TonAddress, flags: FriendlyFlags): string {
  const bytes = Buffer.alloc(36);
  bytes[0] = (flags.bounceable ? BOUNCEABLE : NON_BOUNCEABLE) | (flags.testOnly ? TEST_ONLY : 0);
  bytes[1] = address.workchain === -1 ? 0xff : address.workchain;
  Buffer.from(address.hash, 'hex').copy(bytes, 2);
  bytes.writeUInt16BE(crc16(bytes.subarray(0, 34)), 34);
  return bytes.toString('base64url');
}

/**
 * How the gateway answers a wallet on `network`: non-bounceable (a wallet not deployed yet must not bounce
 * what it is sent) with the test-only flag on testnet: `UQ…` on mainnet, `0Q…` on testnet.
 */
export function walletAddress(address: TonAddress, network: Network): string {
  return friendlyAddress(address, { bounceable: false, testOnly: network === 'testnet' });
}

/**
 * What is wrong with a text as an address on `network`, or null: the test-only flag marks an address of
 * the test network, so it is refused on mainnet, and its absence refused on testnet. A raw address names
 * no network and is taken on both.
 */
export function addressProblem(text: string, network: Network): AddressFault | 'network' | null {
  const parsed = parseTonAddress(text);
  if (typeof parsed === 'string') return parsed;
  if (parsed.flags !== null && parsed.flags.testOnly !== (network === 'testnet')) return 'network';
  return null;
}
