import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase58 } from '../../../devnets/solana/codec.ts';
import { type SolanaDevnet, startSolanaDevnet } from '../../../devnets/solana/index.ts';

let devnet: SolanaDevnet;
beforeAll(async () => {
  devnet = await startSolanaDevnet({ slotIntervalMs: 50 });
});
afterAll(() => devnet?.close());

describe('Solana devnet with @solana/web3.js 1.x', () => {
  it('the faucet key, as a wallet exports it, sends SOL with sendAndConfirmTransaction', async () => {
    const connection = new Connection(devnet.url, { commitment: 'confirmed', wsEndpoint: devnet.wsUrl });
    const faucet = Keypair.fromSecretKey(fromBase58(devnet.faucet.secretKey));
    expect(faucet.publicKey.toBase58()).toBe(devnet.faucet.address);
    const bob = Keypair.generate();
    const tx = new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: faucet.publicKey,
        toPubkey: bob.publicKey,
        lamports: LAMPORTS_PER_SOL,
      }),
    );
    const sig = await sendAndConfirmTransaction(connection, tx, [faucet], { commitment: 'confirmed' });
    expect(await connection.getBalance(bob.publicKey)).toBe(LAMPORTS_PER_SOL);
    const status = await connection.getSignatureStatus(sig);
    expect(status.value?.err).toBeNull();
    const got = await connection.getTransaction(sig, {
      maxSupportedTransactionVersion: 0,
      commitment: 'confirmed',
    });
    expect(got?.meta?.fee).toBe(5000);
    expect(got?.transaction.message.staticAccountKeys[1]?.equals(bob.publicKey)).toBe(true);
    expect(new PublicKey(devnet.tokens.spl.USDT).toBase58()).toBe(devnet.tokens.spl.USDT);
  });

  it('sendRawTransaction + confirmTransaction with a blockhash strategy', async () => {
    const connection = new Connection(devnet.url, { commitment: 'confirmed', wsEndpoint: devnet.wsUrl });
    const alice = Keypair.generate();
    await connection.confirmTransaction(
      await connection.requestAirdrop(alice.publicKey, 2 * LAMPORTS_PER_SOL),
    );
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    const tx = new Transaction({ feePayer: alice.publicKey, blockhash, lastValidBlockHeight }).add(
      SystemProgram.transfer({
        fromPubkey: alice.publicKey,
        toPubkey: new PublicKey(devnet.faucet.address),
        lamports: 1000,
      }),
    );
    tx.sign(alice);
    const sig = await connection.sendRawTransaction(tx.serialize());
    const res = await connection.confirmTransaction(
      { signature: sig, blockhash, lastValidBlockHeight },
      'confirmed',
    );
    expect(res.value.err).toBeNull();
    expect(await connection.getBalance(alice.publicKey)).toBe(2 * LAMPORTS_PER_SOL - 1000 - 5000);
  });
});
