// Our answers carry the same keys, recursively, as the real node's in solana_rpc_responses.json.
import { readFileSync } from 'node:fs';
import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase58, toBase58 } from '../../../devnets/solana/codec.ts';
import { type SolanaDevnet, startSolanaDevnet } from '../../../devnets/solana/index.ts';
import { keyPaths, rpc } from './helpers.ts';

interface Vector {
  response: { result: unknown };
  errors?: Record<string, { error: unknown }>;
}
const vectors: Record<string, Vector> = JSON.parse(
  readFileSync(new URL('../../vectors/solana_rpc_responses.json', import.meta.url), 'utf8'),
);

let devnet: SolanaDevnet;
let sig: string;
let slot: number;
let bob: Keypair;
beforeAll(async () => {
  devnet = await startSolanaDevnet({ slotIntervalMs: null });
  const faucet = Keypair.fromSecretKey(fromBase58(devnet.faucet.secretKey));
  bob = Keypair.generate();
  const latest = (await rpc(devnet.url, 'getLatestBlockhash')).result as { value: { blockhash: string } };
  const tx = new Transaction({ feePayer: faucet.publicKey, recentBlockhash: latest.value.blockhash }).add(
    SystemProgram.transfer({
      fromPubkey: faucet.publicKey,
      toPubkey: bob.publicKey,
      lamports: 1_000_000_000,
    }),
  );
  tx.sign(faucet);
  sig = (
    await rpc(devnet.url, 'sendTransaction', [tx.serialize().toString('base64'), { encoding: 'base64' }])
  ).result as string;
  slot = (await rpc(devnet.url, 'getSlot')).result as number;
  await devnet.advance(40);
});
afterAll(() => devnet?.close());

const same = (ours: unknown, method: string) =>
  expect(keyPaths(ours)).toEqual(keyPaths((vectors[method] as Vector).response.result));

describe('Solana devnet wire shapes against the node vectors', () => {
  it('getSlot, getBalance, getLatestBlockhash', async () => {
    expect(typeof (await rpc(devnet.url, 'getSlot', [{ commitment: 'finalized' }])).result).toBe('number');
    same(
      (await rpc(devnet.url, 'getBalance', [bob.publicKey.toBase58(), { commitment: 'confirmed' }])).result,
      'getBalance',
    );
    const latest = (await rpc(devnet.url, 'getLatestBlockhash')).result as {
      value: { lastValidBlockHeight: number };
    };
    same(latest, 'getLatestBlockhash');
    const height = (await rpc(devnet.url, 'getBlockHeight')).result as number;
    expect(latest.value.lastValidBlockHeight).toBe(height + 150);
  });

  it('getSignatureStatuses: finalized with confirmations null, null for an unknown signature', async () => {
    const res = (
      await rpc(devnet.url, 'getSignatureStatuses', [
        [sig, '1'.repeat(88)],
        { searchTransactionHistory: true },
      ])
    ).result as { value: unknown[] };
    same(res, 'getSignatureStatuses');
    expect(res.value[0]).toMatchObject({
      slot,
      confirmations: null,
      err: null,
      status: { Ok: null },
      confirmationStatus: 'finalized',
    });
    expect(res.value[1]).toBeNull();
  });

  it('getTransaction (json, legacy) and getBlock (full, json)', async () => {
    const tx = (
      await rpc(devnet.url, 'getTransaction', [
        sig,
        { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' },
      ])
    ).result;
    same(tx, 'getTransaction');
    expect(tx).toMatchObject({ version: 'legacy', meta: { fee: 5000, err: null } });
    const block = (
      await rpc(devnet.url, 'getBlock', [
        slot,
        { encoding: 'json', transactionDetails: 'full', maxSupportedTransactionVersion: 0 },
      ])
    ).result;
    // The vector's block is an older doc sample: its meta has no loadedAddresses/computeUnitsConsumed/costUnits,
    // its instructions no stackHeight, and its entries no version (agave adds it under maxSupportedTransactionVersion).
    const extra = ['loadedAddresses', 'computeUnitsConsumed', 'costUnits', 'stackHeight', '.version'];
    const ours = keyPaths(block).filter((p) => !extra.some((e) => p.includes(e)));
    expect(ours).toEqual(keyPaths(vectors['getBlock']?.response.result));
    const sigsOnly = (await rpc(devnet.url, 'getBlock', [slot, { transactionDetails: 'signatures' }])).result;
    expect(sigsOnly).toMatchObject({ signatures: [sig] });
  });

  it('sendTransaction errors: blockhash not found, no funds', async () => {
    const payer = Keypair.generate();
    const tx = new Transaction({
      feePayer: payer.publicKey,
      recentBlockhash: toBase58(new Uint8Array(32).fill(7)),
    }).add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: bob.publicKey, lamports: 1 }));
    tx.sign(payer);
    const noHash = await rpc(devnet.url, 'sendTransaction', [
      tx.serialize().toString('base64'),
      { encoding: 'base64' },
    ]);
    expect(noHash.error).toEqual(vectors['sendTransaction']?.errors?.['blockhash_not_found']?.error);

    const latest = (await rpc(devnet.url, 'getLatestBlockhash')).result as { value: { blockhash: string } };
    tx.recentBlockhash = latest.value.blockhash;
    tx.sign(payer);
    const noFunds = await rpc(devnet.url, 'sendTransaction', [toBase58(tx.serialize())]);
    expect(noFunds.error).toMatchObject(vectors['sendTransaction']?.errors?.['no_funds']?.error as object);
  });
});
