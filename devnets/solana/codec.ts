// Base58/base64 and the wire transaction layout: shortvec(n) || n x 64-byte signatures || message, the
// message being [0x80|version]? header(3) shortvec(keys) keys(32 each) blockhash(32) instructions lookups?.
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';

const b58enc = getBase58Encoder();
const b58dec = getBase58Decoder();

export const toBase58 = (bytes: Uint8Array): string => b58dec.decode(bytes);
export const fromBase58 = (text: string): Uint8Array => new Uint8Array(b58enc.encode(text));
export const toBase64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

export function fromBase64(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new Error('invalid base64');
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/** A 32-byte base58 public key, or null. */
export function parseAddress(text: unknown): string | null {
  if (typeof text !== 'string' || text.length < 32 || text.length > 44) return null;
  try {
    return fromBase58(text).length === 32 ? text : null;
  } catch {
    return null;
  }
}

export interface CompiledInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

export interface LookupRef {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface Message {
  version: 'legacy' | number;
  numRequiredSignatures: number;
  numReadonlySigned: number;
  numReadonlyUnsigned: number;
  accountKeys: string[];
  recentBlockhash: string;
  instructions: CompiledInstruction[];
  lookups: LookupRef[];
}

export interface WireTransaction {
  bytes: Uint8Array;
  signatures: Uint8Array[];
  messageBytes: Uint8Array;
  message: Message;
}

class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}
  byte(): number {
    if (this.pos >= this.buf.length) throw new Error('io error: unexpected end of file');
    return this.buf[this.pos++] as number;
  }
  take(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new Error('io error: unexpected end of file');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  shortvec(): number {
    let value = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      const b = this.byte();
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return value;
    }
    throw new Error('invalid compact-u16');
  }
}

export function decodeMessage(bytes: Uint8Array): Message {
  const r = new Reader(bytes);
  let version: 'legacy' | number = 'legacy';
  let first = r.byte();
  if (first & 0x80) {
    version = first & 0x7f;
    if (version !== 0) throw new Error(`unsupported transaction version ${version}`);
    first = r.byte();
  }
  const numReadonlySigned = r.byte();
  const numReadonlyUnsigned = r.byte();
  const keyCount = r.shortvec();
  const accountKeys: string[] = [];
  for (let i = 0; i < keyCount; i++) accountKeys.push(toBase58(r.take(32)));
  const recentBlockhash = toBase58(r.take(32));
  const instructions: CompiledInstruction[] = [];
  const ixCount = r.shortvec();
  for (let i = 0; i < ixCount; i++) {
    const programIdIndex = r.byte();
    const accounts = [...r.take(r.shortvec())];
    const data = new Uint8Array(r.take(r.shortvec()));
    instructions.push({ programIdIndex, accounts, data });
  }
  const lookups: LookupRef[] = [];
  if (version !== 'legacy') {
    const n = r.shortvec();
    for (let i = 0; i < n; i++) {
      const accountKey = toBase58(r.take(32));
      const writableIndexes = [...r.take(r.shortvec())];
      const readonlyIndexes = [...r.take(r.shortvec())];
      lookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  if (r.pos !== bytes.length) throw new Error('trailing bytes after the message');
  return {
    version,
    numRequiredSignatures: first,
    numReadonlySigned,
    numReadonlyUnsigned,
    accountKeys,
    recentBlockhash,
    instructions,
    lookups,
  };
}

export function decodeWireTransaction(bytes: Uint8Array): WireTransaction {
  const r = new Reader(bytes);
  const n = r.shortvec();
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < n; i++) signatures.push(new Uint8Array(r.take(64)));
  const messageBytes = new Uint8Array(bytes.subarray(r.pos));
  const message = decodeMessage(messageBytes);
  if (message.numRequiredSignatures !== n) throw new Error('signature count does not match the header');
  return { bytes, signatures, messageBytes, message };
}

/** Whether account `i` of the static keys is writable, from the header counts. */
export function isWritable(m: Message, i: number): boolean {
  if (i < m.numRequiredSignatures) return i < m.numRequiredSignatures - m.numReadonlySigned;
  return i < m.accountKeys.length - m.numReadonlyUnsigned;
}
