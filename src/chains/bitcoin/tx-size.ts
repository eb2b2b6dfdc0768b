/**
 * Exact virtual sizes of transactions spending P2WPKH outputs, counted in weight units (BIP-141: a
 * non-witness byte weighs 4, a witness byte 1; vsize = ceil(weight / 4)).
 *
 * A P2WPKH input weighs 272 WU = 68 vB: outpoint 36 + empty scriptSig's length 1 + sequence 4 = 41 bytes
 * (164 WU), and the witness: item count 1 + signature push 1 + 72 + public key push 1 + 33 = 108 WU.
 * 72 bytes is the worst case of a low-S DER signature (71: r of 33 bytes, s of at most 32) plus the
 * sighash byte, so a signed transaction is never larger than these sizes say; usually 1 vB smaller per
 * two inputs.
 */

/** Weight of one P2WPKH input with a worst-case signature. */
export const P2WPKH_INPUT_WEIGHT = 4 * (36 + 1 + 4) + (1 + 1 + 72 + 1 + 33);

/** Virtual bytes of one P2WPKH input (272 WU, exactly 68 vB). */
export const inputVbytes = P2WPKH_INPUT_WEIGHT / 4;

/** Version, locktime: 8 bytes; the input and output counts are varints. */
const FIXED_BYTES = 4 + 4;
/** The segwit marker and flag: two witness-weight bytes. */
const SEGWIT_MARKER_WEIGHT = 2;

/** Bytes of Bitcoin's CompactSize encoding of `n`. */
export function varintBytes(n: number): number {
  if (n < 0xfd) return 1;
  if (n <= 0xffff) return 3;
  if (n <= 0xffffffff) return 5;
  return 9;
}

/** Bytes of one output: value 8, script length, script. */
export function outputVbytes(script: Uint8Array): number {
  return 8 + varintBytes(script.length) + script.length;
}

/** The vsize of a transaction spending `inputCount` P2WPKH inputs to outputs with these scripts. */
export function transactionVsize(inputCount: number, outputScripts: readonly Uint8Array[]): number {
  const outputs = outputScripts.reduce((sum, script) => sum + outputVbytes(script), 0);
  const base = FIXED_BYTES + varintBytes(inputCount) + varintBytes(outputScripts.length) + outputs;
  const weight = 4 * base + (inputCount > 0 ? SEGWIT_MARKER_WEIGHT : 0) + inputCount * P2WPKH_INPUT_WEIGHT;
  return Math.ceil(weight / 4);
}

/** Core's dust relay fee: 3000 sat per 1000 vB. */
const DUST_RELAY_FEE_RATE = 3000n;
const OP_RETURN = 0x6a;

/**
 * The smallest value an output with this script may carry and still relay (Bitcoin Core's
 * GetDustThreshold): 3 sat/vB times the output's size plus the size of the input that would spend it,
 * 67 vB for a witness program (a 107-byte witness at a quarter) and 148 vB otherwise. P2WPKH 294,
 * P2WSH and P2TR 330, P2SH 540, P2PKH 546; an OP_RETURN output is never dust.
 */
export function dustThreshold(script: Uint8Array): bigint {
  if (script[0] === OP_RETURN) return 0n;
  const spendBytes = isWitnessProgram(script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return (BigInt(outputVbytes(script) + spendBytes) * DUST_RELAY_FEE_RATE) / 1000n;
}

/** A segwit output script: a version opcode (OP_0, OP_1..OP_16) and one push of 2 to 40 bytes. */
function isWitnessProgram(script: Uint8Array): boolean {
  const version = script[0];
  if (version === undefined || (version !== 0x00 && (version < 0x51 || version > 0x60))) return false;
  return script.length >= 4 && script.length <= 42 && script[1] === script.length - 2;
}
