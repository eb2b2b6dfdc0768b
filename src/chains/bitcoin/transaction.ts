/**
 * Transactions from a coin selection: built, signed and read with @scure/btc-signer. Every input spends
 * a P2WPKH output (BIP-143 signatures over the amount its witness UTXO names). Pure: no I/O.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { Transaction } from '@scure/btc-signer';
import { addressOfScript, anyNetworkOutputScript, hash160, p2wpkhScript } from './address.ts';
import { btcSigner } from './btc-signer.ts';
import type { Selection } from './coin-selection.ts';
import type { BitcoinNetwork } from './networks.ts';

export { btcToSats, satsToBtc } from './btc-amount.ts';

/** nSequence below 0xfffffffe: replaceable by fee (BIP-125), and nLockTime stays enforced. */
export const RBF_SEQUENCE = 0xfffffffd;

export interface SignedTransaction {
  hex: string;
  txid: string;
  vsize: number;
  fee: bigint;
}

export interface RawTransactionSummary {
  txid: string;
  inputs: { txid: string; vout: number }[];
  outputs: { address: string | null; value: bigint }[];
  /** Every input carries a scriptSig or a witness. */
  signed: boolean;
}

const TX_OPTIONS = {
  // Outputs may pay any valid address, future witness versions included.
  allowUnknownOutputs: true,
  // Bitcoin Core's low-R signatures: a byte shorter half of the time.
  lowR: true,
} as const;

/** Version 2, every input signalling RBF and naming the output it spends (script and amount). */
export async function unsignedTransaction(selection: Selection): Promise<Transaction> {
  const { Transaction } = await btcSigner();
  const tx = new Transaction({ ...TX_OPTIONS, version: 2 });
  for (const coin of selection.inputs) {
    tx.addInput({
      txid: coin.txid,
      index: coin.vout,
      sequence: RBF_SEQUENCE,
      witnessUtxo: { script: coin.script, amount: coin.value },
    });
  }
  for (const output of selection.outputs) tx.addOutput({ script: output.script, amount: output.value });
  return tx;
}

/**
 * Signs every input with the key of the address it spends from (hex private keys by address) and
 * finalizes. Throws when an input's key is missing, or a key is not the one of its address.
 */
export function signAndFinalize(
  tx: Transaction,
  keysByAddress: ReadonlyMap<string, string>,
): SignedTransaction {
  const keysByScript = new Map<string, Uint8Array>();
  for (const [address, keyHex] of keysByAddress) {
    const key = privateKeyBytes(keyHex, address);
    const script = p2wpkhScript(hash160(secp256k1.getPublicKey(key, true)));
    if (hex(anyNetworkOutputScript(address)) !== hex(script)) {
      throw new Error(`the key given for ${address} is not that address's key`);
    }
    keysByScript.set(hex(script), key);
  }
  for (let index = 0; index < tx.inputsLength; index++) {
    const script = tx.getInput(index).witnessUtxo?.script;
    if (script === undefined) throw new Error(`input ${index} does not name the output it spends`);
    const key = keysByScript.get(hex(script));
    if (key === undefined) throw new Error(`no key for input ${index} (script ${hex(script)})`);
    tx.signIdx(key, index);
  }
  tx.finalize();
  return { hex: tx.hex, txid: tx.id, vsize: tx.vsize, fee: tx.fee };
}

/** The unsigned transaction as a version-0 PSBT (BIP-174) in base64, each input with its witness UTXO. */
export function psbtBase64(tx: Transaction): string {
  return Buffer.from(tx.toPSBT(0)).toString('base64');
}

/** What a raw transaction spends and pays, with addresses of `network`; null when the hex is no transaction. */
export async function readRawTransaction(
  rawHex: string,
  network: BitcoinNetwork,
): Promise<RawTransactionSummary | null> {
  if (!/^([0-9a-fA-F]{2})+$/.test(rawHex)) return null;
  const { Transaction } = await btcSigner();
  let tx: Transaction;
  try {
    tx = Transaction.fromRaw(Buffer.from(rawHex, 'hex'), {
      allowUnknownInputs: true,
      allowUnknownOutputs: true,
      disableScriptCheck: true,
    });
  } catch {
    return null;
  }
  const inputs: RawTransactionSummary['inputs'] = [];
  let signed = tx.inputsLength > 0;
  for (let index = 0; index < tx.inputsLength; index++) {
    const input = tx.getInput(index);
    if (input.txid === undefined || input.index === undefined) return null;
    inputs.push({ txid: hex(input.txid), vout: input.index });
    const hasScriptSig = (input.finalScriptSig?.length ?? 0) > 0;
    const hasWitness = (input.finalScriptWitness?.length ?? 0) > 0;
    if (!hasScriptSig && !hasWitness) signed = false;
  }
  const outputs: RawTransactionSummary['outputs'] = [];
  for (let index = 0; index < tx.outputsLength; index++) {
    const { script, amount } = tx.getOutput(index);
    if (script === undefined || amount === undefined) return null;
    outputs.push({ address: addressOfScript(script, network), value: amount });
  }
  return { txid: tx.id, inputs, outputs, signed };
}

function privateKeyBytes(keyHex: string, address: string): Uint8Array {
  const key = /^[0-9a-fA-F]{64}$/.test(keyHex) ? Uint8Array.from(Buffer.from(keyHex, 'hex')) : null;
  if (key === null || !secp256k1.utils.isValidSecretKey(key)) {
    throw new Error(`the key given for ${address} is not a 64-hex private key`);
  }
  return key;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
