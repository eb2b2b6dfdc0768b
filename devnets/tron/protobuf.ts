// Minimal protobuf wire codec (proto3): what Tron's messages need, nothing more.
// Writers must emit fields in ascending field-number order and skip defaults, as protoc does.

const WIRE_VARINT = 0;
const WIRE_LEN = 2;

export class ProtoWriter {
  private readonly chunks: number[] = [];

  private varint(value: bigint): void {
    // int64 negatives are encoded as 10-byte two's complement varints.
    let v = value < 0n ? value + (1n << 64n) : value;
    while (v > 0x7fn) {
      this.chunks.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.chunks.push(Number(v));
  }

  private tag(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  /** int64/int32/enum field; proto3 default 0 is skipped. */
  int(field: number, value: bigint | number | undefined): this {
    if (value === undefined) return this;
    const v = BigInt(value);
    if (v === 0n) return this;
    this.tag(field, WIRE_VARINT);
    this.varint(v);
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    if (!value) return this;
    this.tag(field, WIRE_VARINT);
    this.varint(1n);
    return this;
  }

  /** bytes/string/message field; empty is skipped unless `always` (repeated elements). */
  bytes(field: number, value: Uint8Array | undefined, always = false): this {
    if (value === undefined || (value.length === 0 && !always)) return this;
    this.tag(field, WIRE_LEN);
    this.varint(BigInt(value.length));
    for (const b of value) this.chunks.push(b);
    return this;
  }

  string(field: number, value: string | undefined): this {
    if (!value) return this;
    return this.bytes(field, new TextEncoder().encode(value));
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.chunks);
  }
}

export interface ProtoField {
  field: number;
  wire: number;
  /** Set for varint fields. */
  int?: bigint;
  /** Set for length-delimited fields. */
  bytes?: Uint8Array;
}

export class ProtoDecodeError extends Error {}

/** Splits a message into its raw fields (in wire order); unknown wire types are rejected. */
export function readFields(buf: Uint8Array): ProtoField[] {
  const out: ProtoField[] = [];
  let pos = 0;
  const readVarint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new ProtoDecodeError('truncated varint');
      const b = buf[pos++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
      if (shift > 63n) throw new ProtoDecodeError('varint too long');
    }
    return result;
  };
  while (pos < buf.length) {
    const key = Number(readVarint());
    const field = key >>> 3;
    const wire = key & 7;
    if (field === 0) throw new ProtoDecodeError('field number 0');
    if (wire === WIRE_VARINT) {
      let v = readVarint();
      if (v >= 1n << 63n) v -= 1n << 64n;
      out.push({ field, wire, int: v });
    } else if (wire === WIRE_LEN) {
      const len = Number(readVarint());
      if (pos + len > buf.length) throw new ProtoDecodeError('truncated bytes');
      out.push({ field, wire, bytes: buf.subarray(pos, pos + len) });
      pos += len;
    } else if (wire === 1) {
      pos += 8;
      out.push({ field, wire });
    } else if (wire === 5) {
      pos += 4;
      out.push({ field, wire });
    } else {
      throw new ProtoDecodeError(`unsupported wire type ${wire}`);
    }
  }
  if (pos !== buf.length) throw new ProtoDecodeError('truncated message');
  return out;
}
