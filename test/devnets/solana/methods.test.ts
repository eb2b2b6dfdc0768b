// The smaller methods: network identity, rent, fees, blockhash validity, accounts, simulation, skipEvery.
import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase58 } from '../../../devnets/solana/codec.ts';
import { MAINNET_GENESIS_HASH, type SolanaDevnet, startSolanaDevnet } from '../../../devnets/solana/index.ts';
import { rpc } from './helpers.ts';

let devnet: SolanaDevnet;
beforeAll(async () => {
  devnet = await startSolanaDevnet({ slotIntervalMs: null, skipEvery: 4, genesisHash: MAINNET_GENESIS_HASH });
});
afterAll(() => devnet?.close());

describe('Solana devnet: the other methods', () => {
  it('identity, health, version, rent', async () => {
    expect((await rpc(devnet.url, 'getGenesisHash')).result).toBe(MAINNET_GENESIS_HASH);
    expect((await rpc(devnet.url, 'getHealth')).result).toBe('ok');
    expect(Object.keys((await rpc(devnet.url, 'getVersion')).result as object).sort()).toEqual([
      'feature-set',
      'solana-core',
    ]);
    expect((await rpc(devnet.url, 'getMinimumBalanceForRentExemption', [165])).result).toBe(2039280);
  });

  it('skipEvery: every 4th slot has no block', async () => {
    await devnet.advance(8);
    const blocks = (await rpc(devnet.url, 'getBlocks', [0])).result as number[];
    expect(blocks.some((s) => s > 0 && s % 4 === 0)).toBe(false);
    expect((await rpc(devnet.url, 'getBlock', [4])).error?.code).toBe(-32007);
  });

  it('accounts, fees, blockhash validity, simulation', async () => {
    const missing = Keypair.generate().publicKey.toBase58();
    expect((await rpc(devnet.url, 'getAccountInfo', [missing])).result).toMatchObject({ value: null });
    const mint = (
      await rpc(devnet.url, 'getAccountInfo', [devnet.tokens.spl.USDT, { encoding: 'jsonParsed' }])
    ).result as {
      value: { data: { parsed: { type: string; info: { decimals: number; mintAuthority: string } } } };
    };
    expect(mint.value.data.parsed).toMatchObject({
      type: 'mint',
      info: { decimals: 6, mintAuthority: devnet.faucet.address },
    });

    const faucet = Keypair.fromSecretKey(fromBase58(devnet.faucet.secretKey));
    const latest = (await rpc(devnet.url, 'getLatestBlockhash')).result as { value: { blockhash: string } };
    expect((await rpc(devnet.url, 'isBlockhashValid', [latest.value.blockhash])).result).toMatchObject({
      value: true,
    });
    expect((await rpc(devnet.url, 'isBlockhashValid', ['1'.repeat(32)])).result).toMatchObject({
      value: false,
    });
    const tx = new Transaction({ feePayer: faucet.publicKey, recentBlockhash: latest.value.blockhash }).add(
      SystemProgram.transfer({
        fromPubkey: faucet.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1_000_000,
      }),
    );
    const message = tx.serializeMessage().toString('base64');
    expect((await rpc(devnet.url, 'getFeeForMessage', [message])).result).toMatchObject({ value: 5000 });
    tx.sign(faucet);
    const sim = (
      await rpc(devnet.url, 'simulateTransaction', [
        tx.serialize().toString('base64'),
        { encoding: 'base64' },
      ])
    ).result as { value: { err: unknown; logs: string[] } };
    expect(sim.value.err).toBeNull();
    expect(sim.value.logs.at(-1)).toBe('Program 11111111111111111111111111111111 success');
    expect(Array.isArray((await rpc(devnet.url, 'getRecentPrioritizationFees')).result)).toBe(true);
  });
});
