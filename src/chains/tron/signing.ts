/**
 * Local, pure signing: a 65-byte secp256k1 signature over the txID (tronweb's ECKeySign, v = 27/28,
 * which java-tron accepts). Keys stay in memory only for the call and never reach a message or log.
 */
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { base58OfAddressBytes } from './address.ts';
import { TronInputError } from './errors.ts';
import { addressBytesOf, normalizePrivateKey } from './keys.ts';
import { tronweb } from './tronweb.ts';
import type { SignedTronTransaction, TronTransaction } from './types.ts';

/** txID = sha256(Transaction.raw bytes). */
export function txidOf(rawDataHex: string): string {
  return createHash('sha256').update(Buffer.from(rawDataHex, 'hex')).digest('hex');
}

/**
 * A signed copy of `tx` (signatures already present are kept, for multisig). Refuses a transaction
 * whose raw_data, raw_data_hex and txID disagree: the node hashes raw_data, so signing a txID that
 * does not belong to it would sign something other than what the JSON shows.
 */
export async function signTronTransaction(
  tx: TronTransaction,
  privateKeyHex: string,
): Promise<SignedTronTransaction> {
  const key = normalizePrivateKey(privateKeyHex);
  const utils = await tronweb();
  assertConsistent(tx, utils);
  const copy = structuredClone(tx) as TronTransaction;
  copy.txID = copy.txID.toLowerCase();
  if (copy.signature) copy.signature = copy.signature.map((s) => s.replace(/^0x/i, '').toLowerCase());
  const signed = utils.crypto.signTransaction(key, copy) as unknown as SignedTronTransaction;
  // tronweb prints the v byte in upper case; the node reads either, the rest of the world writes lower.
  signed.signature = signed.signature.map((s) => s.toLowerCase());
  return signed;
}

/**
 * The base58 address whose key made `signature` over `txid`, recovered the way java-tron does: v may be
 * 0/1 or 27/28, and high-S signatures count (tronweb's ethers-based ecRecover refuses those).
 */
export function recoverSigner(txid: string, signature: string): string {
  const sig = signature.replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{130}$/.test(sig) || !/^[0-9a-fA-F]{64}$/.test(txid)) {
    throw new TronInputError('signature must be 65 bytes of hex and txid 32 bytes of hex');
  }
  const v = Number.parseInt(sig.slice(128), 16);
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery < 0 || recovery > 3) throw new TronInputError('signature has an invalid recovery byte');
  const publicKey = secp256k1.Signature.fromBytes(Buffer.from(sig.slice(0, 128), 'hex'), 'compact')
    .addRecoveryBit(recovery)
    .recoverPublicKey(Buffer.from(txid, 'hex'))
    .toBytes(false);
  return base58OfAddressBytes(addressBytesOf(publicKey));
}

function assertConsistent(tx: TronTransaction, utils: Awaited<ReturnType<typeof tronweb>>): void {
  if (
    tx === null ||
    typeof tx !== 'object' ||
    typeof tx.txID !== 'string' ||
    !/^[0-9a-fA-F]{64}$/.test(tx.txID) ||
    typeof tx.raw_data_hex !== 'string' ||
    !/^(?:[0-9a-fA-F]{2})+$/.test(tx.raw_data_hex) ||
    tx.raw_data === null ||
    typeof tx.raw_data !== 'object'
  ) {
    throw new TronInputError('transaction must have txID, raw_data and raw_data_hex');
  }
  if (txidOf(tx.raw_data_hex) !== tx.txID.toLowerCase()) {
    throw new TronInputError('transaction txID is not the sha256 of its raw_data_hex; refusing to sign');
  }
  let matches = false;
  try {
    matches = utils.transaction.txCheck(tx);
  } catch {
    matches = false;
  }
  if (!matches) {
    throw new TronInputError('transaction raw_data does not match its raw_data_hex; refusing to sign');
  }
}
