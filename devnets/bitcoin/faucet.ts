// The faucet: a fixed key (the same address on every start) that every coinbase pays, and the
// transactions it signs (P2WPKH, BIP-143, low-S DER via @noble/curves) to hand coins out.

import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { type Network, payments, Transaction } from 'bitcoinjs-lib';
import type { Coin } from './chain.ts';
import { RPC_MISC_ERROR, RpcError } from './errors.ts';

export interface FaucetKey {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  script: Uint8Array;
  address: string;
}

export function faucetKey(network: Network): FaucetKey {
  const privateKey = sha256(new TextEncoder().encode('switchyard.bitcoin.devnet.faucet'));
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const payment = payments.p2wpkh({ pubkey: publicKey, network });
  return { privateKey, publicKey, script: payment.output as Uint8Array, address: payment.address as string };
}

/** Faucet transactions pay this feerate: above the 1 sat/vB floor, so a client can replace them. */
const FAUCET_SAT_PER_VB = 2n;
// A P2WPKH input and output, in vbytes (for the fee before signing; the signed size is never larger).
const INPUT_VBYTES = 68n;
const OUTPUT_VBYTES = 43n;
const OVERHEAD_VBYTES = 11n;

/** A signed P2WPKH transaction paying `sats` to `script` from the faucet's `coins`, change back to it. */
export function faucetTransaction(
  key: FaucetKey,
  coins: Coin[],
  script: Uint8Array,
  sats: bigint,
): Transaction {
  const sorted = [...coins].sort((a, b) => (a.value < b.value ? 1 : a.value > b.value ? -1 : 0));
  const picked: Coin[] = [];
  let total = 0n;
  let fee = 0n;
  for (const coin of sorted) {
    picked.push(coin);
    total += coin.value;
    fee = (OVERHEAD_VBYTES + INPUT_VBYTES * BigInt(picked.length) + OUTPUT_VBYTES * 2n) * FAUCET_SAT_PER_VB;
    if (total >= sats + fee) break;
  }
  if (total < sats + fee) throw new RpcError(RPC_MISC_ERROR, 'the faucet has not enough mature coins');
  const tx = new Transaction();
  tx.version = 2;
  for (const coin of picked) tx.addInput(Buffer.from(coin.txid, 'hex').reverse(), coin.vout, 0xfffffffd);
  tx.addOutput(script, sats);
  const change = total - sats - fee;
  // Change below its dust threshold is left to the miner.
  if (change >= 294n) tx.addOutput(key.script, change);
  const scriptCode = payments.p2pkh({ pubkey: key.publicKey }).output as Uint8Array;
  picked.forEach((coin, i) => {
    const hash = tx.hashForWitnessV0(i, scriptCode, coin.value, Transaction.SIGHASH_ALL);
    const der = secp256k1.sign(hash, key.privateKey, { prehash: false, lowS: true, format: 'der' });
    tx.setWitness(i, [Buffer.concat([der, Buffer.from([Transaction.SIGHASH_ALL])]), key.publicKey]);
  });
  return tx;
}
