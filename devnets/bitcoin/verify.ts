// Input signatures, checked with bitcoinjs-lib's sighashes (BIP-143 for P2WPKH, legacy for P2PKH, BIP-341
// key path for P2TR) and @noble/curves: a library other than the gateway's signer, so each checks the other.
// Other output kinds (P2SH, P2WSH, taproot script paths) are accepted without running their scripts.
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { crypto, payments, Transaction } from 'bitcoinjs-lib';
import { parseScript, scriptKind } from './script.ts';

export interface Prevout {
  script: Uint8Array;
  value: bigint;
}

const MANDATORY = 'mandatory-script-verify-flag-failed';
const NULLFAIL = `${MANDATORY} (Signature must be zero for failed CHECK(MULTI)SIG operation)`;

const equal = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** Null when input `index` of `tx` may spend `prevouts[index]`, else Core's reject reason. */
export function verifyInput(tx: Transaction, index: number, prevouts: Prevout[]): string | null {
  const input = tx.ins[index];
  const prev = prevouts[index];
  if (!input || !prev) return `${MANDATORY} (Operation not valid with the current stack size)`;
  switch (scriptKind(prev.script)) {
    case 'v0_p2wpkh': {
      if (input.script.length > 0) return `${MANDATORY} (Witness requires empty scriptSig)`;
      if (input.witness.length !== 2) return `${MANDATORY} (Witness program hash mismatch)`;
      const [sig, pubkey] = input.witness as [Uint8Array, Uint8Array];
      if (!equal(crypto.hash160(pubkey), prev.script.subarray(2))) {
        return `${MANDATORY} (Witness program hash mismatch)`;
      }
      if (pubkey.length !== 33)
        return 'non-mandatory-script-verify-flag (Using non-compressed keys in segwit)';
      const scriptCode = payments.p2pkh({ hash: prev.script.subarray(2) }).output as Uint8Array;
      return checkEcdsa(sig, pubkey, (type) => tx.hashForWitnessV0(index, scriptCode, prev.value, type));
    }
    case 'p2pkh': {
      if (input.witness.length > 0) return `${MANDATORY} (Witness provided for non-witness script)`;
      const ops = parseScript(input.script);
      const sig = ops?.[0]?.data;
      const pubkey = ops?.[1]?.data;
      if (ops?.length !== 2 || !sig || !pubkey) {
        return `${MANDATORY} (Operation not valid with the current stack size)`;
      }
      if (!equal(crypto.hash160(pubkey), prev.script.subarray(3, 23))) {
        return `${MANDATORY} (Script failed an OP_EQUALVERIFY operation)`;
      }
      return checkEcdsa(sig, pubkey, (type) => tx.hashForSignature(index, prev.script, type));
    }
    case 'v1_p2tr': {
      const witness = input.witness;
      const hasAnnex = witness.length >= 2 && witness[witness.length - 1]?.[0] === 0x50;
      if (witness.length - (hasAnnex ? 1 : 0) !== 1) return null;
      const sig = witness[0] as Uint8Array;
      if (sig.length !== 64 && sig.length !== 65) return `${MANDATORY} (Invalid Schnorr signature size)`;
      const type = sig.length === 65 ? (sig[64] as number) : Transaction.SIGHASH_DEFAULT;
      const hash = tx.hashForWitnessV1(
        index,
        prevouts.map((p) => p.script),
        prevouts.map((p) => p.value),
        type,
        undefined,
        hasAnnex ? witness[witness.length - 1] : undefined,
      );
      return schnorr.verify(sig.subarray(0, 64), hash, prev.script.subarray(2))
        ? null
        : `${MANDATORY} (Invalid Schnorr signature)`;
    }
    default:
      return null;
  }
}

function checkEcdsa(sigWithType: Uint8Array, pubkey: Uint8Array, sighash: (type: number) => Uint8Array) {
  if (sigWithType.length < 9) return NULLFAIL;
  const type = sigWithType[sigWithType.length - 1] as number;
  const der = sigWithType.subarray(0, -1);
  let signature: ReturnType<typeof secp256k1.Signature.fromBytes>;
  try {
    signature = secp256k1.Signature.fromBytes(der, 'der');
  } catch {
    return `${MANDATORY} (Non-canonical DER signature)`;
  }
  if (signature.hasHighS()) {
    return 'non-mandatory-script-verify-flag (Non-canonical signature: S value is unnecessarily high)';
  }
  let ok = false;
  try {
    ok = secp256k1.verify(der, sighash(type), pubkey, { prehash: false, format: 'der', lowS: true });
  } catch {
    ok = false;
  }
  return ok ? null : NULLFAIL;
}
