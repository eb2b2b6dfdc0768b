// Output scripts: their kind (as Esplora and Bitcoin Core name it), address, assembly text in both
// dialects (rust-bitcoin's for Esplora, Core's ScriptToAsmStr) and Core's inferred descriptor.
import { type Network, opcodes } from 'bitcoinjs-lib';
import { addressOfScript } from './address.ts';
import { descriptorWithChecksum } from './descriptor.ts';

export type ScriptKind =
  | 'p2pk'
  | 'p2pkh'
  | 'p2sh'
  | 'v0_p2wpkh'
  | 'v0_p2wsh'
  | 'v1_p2tr'
  | 'op_return'
  | 'unknown';

export function scriptKind(s: Uint8Array): ScriptKind {
  const n = s.length;
  if (n === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac)
    return 'p2pkh';
  if (n === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87) return 'p2sh';
  if (n === 22 && s[0] === 0x00 && s[1] === 0x14) return 'v0_p2wpkh';
  if (n === 34 && s[0] === 0x00 && s[1] === 0x20) return 'v0_p2wsh';
  if (n === 34 && s[0] === 0x51 && s[1] === 0x20) return 'v1_p2tr';
  if (n >= 1 && s[0] === 0x6a) return 'op_return';
  if ((n === 35 && s[0] === 33) || (n === 67 && s[0] === 65)) {
    if (s[n - 1] === 0xac) return 'p2pk';
  }
  return 'unknown';
}

const CORE_TYPE: Record<ScriptKind, string> = {
  p2pk: 'pubkey',
  p2pkh: 'pubkeyhash',
  p2sh: 'scripthash',
  v0_p2wpkh: 'witness_v0_keyhash',
  v0_p2wsh: 'witness_v0_scripthash',
  v1_p2tr: 'witness_v1_taproot',
  op_return: 'nulldata',
  unknown: 'nonstandard',
};

export const coreScriptType = (s: Uint8Array): string => CORE_TYPE[scriptKind(s)];

/** Policy's dust threshold at 3 sat/vB (Core's dustrelayfee), per output kind; null: no threshold. */
export function dustThreshold(s: Uint8Array): bigint | null {
  switch (scriptKind(s)) {
    case 'op_return':
      return null;
    case 'v0_p2wpkh':
      return 294n;
    case 'v0_p2wsh':
    case 'v1_p2tr':
      return 330n;
    case 'p2sh':
      return 540n;
    case 'p2pkh':
      return 546n;
    default:
      // Core's formula: (output size + 148 bytes of a spending input) * 3 sat/vB.
      return BigInt((8 + 1 + s.length + 148) * 3);
  }
}

export function addressOf(s: Uint8Array, network: Network): string | null {
  const kind = scriptKind(s);
  if (kind === 'op_return' || kind === 'unknown' || kind === 'p2pk') return null;
  return addressOfScript(s, network);
}

interface ScriptOp {
  op: number;
  data?: Uint8Array;
}

/** The script's operations, or null when a push runs past its end. */
export function parseScript(s: Uint8Array): ScriptOp[] | null {
  const ops: ScriptOp[] = [];
  let i = 0;
  while (i < s.length) {
    const op = s[i++] as number;
    let len = -1;
    if (op >= 1 && op <= 75) len = op;
    else if (op === 0x4c) len = i + 1 <= s.length ? (s[i] as number) : -2;
    else if (op === 0x4d) len = i + 2 <= s.length ? Buffer.from(s.subarray(i, i + 2)).readUInt16LE(0) : -2;
    else if (op === 0x4e) len = i + 4 <= s.length ? Buffer.from(s.subarray(i, i + 4)).readUInt32LE(0) : -2;
    if (len === -2) return null;
    if (len >= 0) {
      i += op === 0x4c ? 1 : op === 0x4d ? 2 : op === 0x4e ? 4 : 0;
      if (i + len > s.length) return null;
      ops.push({ op, data: s.subarray(i, i + len) });
      i += len;
    } else {
      ops.push({ op });
    }
  }
  return ops;
}

const OP_NAMES = new Map<number, string>();
for (const [name, code] of Object.entries(opcodes)) {
  if (typeof code === 'number' && !OP_NAMES.has(code)) OP_NAMES.set(code, name);
}
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function rustOpName(op: number): string {
  if (op === 0) return 'OP_0';
  if (op === 0x4f) return 'OP_PUSHNUM_NEG1';
  if (op >= 0x51 && op <= 0x60) return `OP_PUSHNUM_${op - 0x50}`;
  if (op === 0xb1) return 'OP_CLTV';
  if (op === 0xb2) return 'OP_CSV';
  if (op > 0xba) return `OP_RETURN_${op}`;
  return OP_NAMES.get(op) ?? `OP_RETURN_${op}`;
}

/** Esplora's scriptpubkey_asm / scriptsig_asm (rust-bitcoin's format). */
export function esploraAsm(s: Uint8Array): string {
  const ops = parseScript(s);
  if (!ops) return '<push past end>';
  return ops
    .map(({ op, data }) => {
      if (!data || op === 0) return rustOpName(op);
      const name =
        op <= 75
          ? `OP_PUSHBYTES_${op}`
          : op === 0x4c
            ? 'OP_PUSHDATA1'
            : op === 0x4d
              ? 'OP_PUSHDATA2'
              : 'OP_PUSHDATA4';
      return `${name} ${hex(data)}`;
    })
    .join(' ');
}

const SIGHASH_NAMES: Record<number, string> = {
  1: 'ALL',
  2: 'NONE',
  3: 'SINGLE',
  129: 'ALL|ANYONECANPAY',
  130: 'NONE|ANYONECANPAY',
  131: 'SINGLE|ANYONECANPAY',
};

/** Core's ScriptToAsmStr; `sighash` writes a signature's hash type as [ALL] (scriptSig). */
export function coreAsm(s: Uint8Array, sighash = false): string {
  const ops = parseScript(s);
  if (!ops) return '[error]';
  return ops
    .map(({ op, data }) => {
      if (op === 0x00) return '0';
      if (op === 0x4f) return '-1';
      if (op >= 0x51 && op <= 0x60) return String(op - 0x50);
      if (!data) return OP_NAMES.get(op) ?? 'OP_UNKNOWN';
      if (data.length <= 4) return String(scriptNum(data));
      const last = data[data.length - 1] as number;
      if (sighash && data[0] === 0x30 && data[1] === data.length - 3 && SIGHASH_NAMES[last]) {
        return `${hex(data.subarray(0, -1))}[${SIGHASH_NAMES[last]}]`;
      }
      return hex(data);
    })
    .join(' ');
}

function scriptNum(data: Uint8Array): number {
  if (data.length === 0) return 0;
  let n = 0;
  for (let i = 0; i < data.length; i++) n |= (data[i] as number) << (8 * i);
  const top = data[data.length - 1] as number;
  if (top & 0x80) return -(n & ~(0x80 << (8 * (data.length - 1))));
  return n;
}

/** Core's inferred descriptor of an output script (no wallet keys known). */
export function coreDescriptor(s: Uint8Array, network: Network): string {
  const address = addressOf(s, network);
  if (address) return descriptorWithChecksum(`addr(${address})`);
  if (scriptKind(s) === 'p2pk') return descriptorWithChecksum(`pk(${hex(s.subarray(1, -1))})`);
  return descriptorWithChecksum(`raw(${hex(s)})`);
}

export function coreScriptPubKey(s: Uint8Array, network: Network) {
  const address = addressOf(s, network);
  return {
    asm: coreAsm(s),
    desc: coreDescriptor(s, network),
    hex: hex(s),
    ...(address ? { address } : {}),
    type: coreScriptType(s),
  };
}
