// Test helpers: keys and transactions signed with bitcoinjs-lib + @noble/curves (not the gateway's
// @scure/btc-signer), and thin clients of the devnet's two fronts.
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { networks, payments, Transaction } from 'bitcoinjs-lib';

export const REGTEST = { ...networks.testnet, bech32: 'bcrt' };

export interface TestKey {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  /** P2WPKH output script and address (regtest). */
  script: Uint8Array;
  address: string;
  p2pkhScript: Uint8Array;
  p2pkhAddress: string;
}

export function testKey(seed: string | Uint8Array): TestKey {
  const privateKey = typeof seed === 'string' ? sha256(new TextEncoder().encode(seed)) : seed;
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const wpkh = payments.p2wpkh({ pubkey: publicKey, network: REGTEST });
  const pkh = payments.p2pkh({ pubkey: publicKey, network: REGTEST });
  return {
    privateKey,
    publicKey,
    script: wpkh.output as Uint8Array,
    address: wpkh.address as string,
    p2pkhScript: pkh.output as Uint8Array,
    p2pkhAddress: pkh.address as string,
  };
}

export interface SpendInput {
  txid: string;
  vout: number;
  value: bigint;
  key: TestKey;
  /** Default P2WPKH. */
  kind?: 'p2wpkh' | 'p2pkh';
  sequence?: number;
}

export interface SpendOutput {
  script: Uint8Array;
  value: bigint;
}

const der = (hash: Uint8Array, key: Uint8Array) =>
  Buffer.concat([secp256k1.sign(hash, key, { prehash: false, lowS: true, format: 'der' }), Buffer.from([1])]);

/** A signed transaction; `signValue` lets a test sign for a wrong amount (a bad signature). */
export function spend(
  inputs: SpendInput[],
  outputs: SpendOutput[],
  opts: { signValue?: bigint; locktime?: number } = {},
): Transaction {
  const tx = new Transaction();
  tx.version = 2;
  tx.locktime = opts.locktime ?? 0;
  for (const i of inputs) tx.addInput(Buffer.from(i.txid, 'hex').reverse(), i.vout, i.sequence ?? 0xfffffffd);
  for (const o of outputs) tx.addOutput(o.script, o.value);
  inputs.forEach((input, index) => {
    if (input.kind === 'p2pkh') {
      const hash = tx.hashForSignature(index, input.key.p2pkhScript, Transaction.SIGHASH_ALL);
      const sig = der(hash, input.key.privateKey);
      tx.setInputScript(
        index,
        Buffer.concat([Buffer.from([sig.length]), sig, Buffer.from([33]), input.key.publicKey]),
      );
      return;
    }
    const scriptCode = payments.p2pkh({ pubkey: input.key.publicKey }).output as Uint8Array;
    const value = opts.signValue ?? input.value;
    const hash = tx.hashForWitnessV0(index, scriptCode, value, Transaction.SIGHASH_ALL);
    tx.setWitness(index, [der(hash, input.key.privateKey), input.key.publicKey]);
  });
  return tx;
}

export interface HttpAnswer {
  status: number;
  type: string;
  text: string;
}

export async function get(base: string, path: string): Promise<HttpAnswer> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

export async function getJson<T = unknown>(base: string, path: string): Promise<T> {
  const answer = await get(base, path);
  if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text}`);
  return JSON.parse(answer.text) as T;
}

export async function postTx(base: string, hex: string): Promise<HttpAnswer> {
  const res = await fetch(`${base}/tx`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: hex,
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** POSTs a JSON-RPC body to a URL carrying basic-auth credentials (fetch refuses them in the URL). */
export async function rpcRaw(coreUrl: string, body: unknown): Promise<{ status: number; text: string }> {
  const url = new URL(coreUrl);
  const auth = Buffer.from(
    `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`,
  ).toString('base64');
  url.username = '';
  url.password = '';
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

export interface RpcReply {
  status: number;
  text: string;
  result: unknown;
  error: { code: number; message: string } | null;
}

export async function rpc(coreUrl: string, method: string, params: unknown[] = []): Promise<RpcReply> {
  const { status, text } = await rpcRaw(coreUrl, { jsonrpc: '1.0', id: 'test', method, params });
  const parsed = JSON.parse(text) as { result: unknown; error: { code: number; message: string } | null };
  return { status, text, result: parsed.result, error: parsed.error };
}

/** The result of a call that must succeed. */
export async function call<T = unknown>(coreUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const reply = await rpc(coreUrl, method, params);
  if (reply.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`);
  return reply.result as T;
}

/** The output of `txid` paying `script`. */
export async function outputTo(
  base: string,
  txid: string,
  script: Uint8Array,
): Promise<{ txid: string; vout: number; value: bigint }> {
  const tx = await getJson<{ vout: { scriptpubkey: string; value: number }[] }>(base, `/tx/${txid}`);
  const vout = tx.vout.findIndex((o) => o.scriptpubkey === Buffer.from(script).toString('hex'));
  if (vout < 0) throw new Error(`${txid} pays nothing to that script`);
  return { txid, vout, value: BigInt((tx.vout[vout] as { value: number }).value) };
}

const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const toBig = (b: Uint8Array) => BigInt(`0x${Buffer.from(b).toString('hex')}`);
const to32 = (n: bigint) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');

export interface TaprootKey {
  /** The BIP-341 tweaked secret (key path, no script tree). */
  tweakedSecret: Uint8Array;
  script: Uint8Array;
}

/** A key-path-only taproot output (BIP-86 style tweak), computed with @noble/curves. */
export function taprootKey(seed: string): TaprootKey {
  const d0 = toBig(sha256(new TextEncoder().encode(seed)));
  const point = secp256k1.Point.BASE.multiply(d0);
  const d = point.y % 2n === 0n ? d0 : CURVE_ORDER - d0;
  const internal = schnorr.getPublicKey(to32(d));
  const tag = sha256(new TextEncoder().encode('TapTweak'));
  const tweak = toBig(sha256(Buffer.concat([tag, tag, internal])));
  const tweakedSecret = to32((d + tweak) % CURVE_ORDER);
  return {
    tweakedSecret,
    script: Buffer.concat([Buffer.from('5120', 'hex'), schnorr.getPublicKey(tweakedSecret)]),
  };
}

/** Spends one taproot coin by key path (SIGHASH_DEFAULT, 64-byte signature). */
export function spendTaproot(
  coin: { txid: string; vout: number; value: bigint },
  key: TaprootKey,
  outputs: SpendOutput[],
  opts: { tamper?: boolean } = {},
): Transaction {
  const tx = new Transaction();
  tx.version = 2;
  tx.addInput(Buffer.from(coin.txid, 'hex').reverse(), coin.vout, 0xfffffffd);
  for (const o of outputs) tx.addOutput(o.script, o.value);
  const hash = tx.hashForWitnessV1(0, [key.script], [coin.value], Transaction.SIGHASH_DEFAULT);
  const sig = Buffer.from(schnorr.sign(hash, key.tweakedSecret));
  if (opts.tamper) sig[5] = (sig[5] as number) ^ 1;
  tx.setWitness(0, [sig]);
  return tx;
}
