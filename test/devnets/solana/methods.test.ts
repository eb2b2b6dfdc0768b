// The smaller methods: network identity, rent, fees, blockhash validity, accounts, simulation, skipEvery.
import { ComputeBudgetProgram, Keypair, SystemProgram, Transaction } from '@solana/web3.js';
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

  it('priority fees: zeros by default, the set fee per block, for the named accounts only when given', async () => {
    type Fees = { prioritizationFee: number; slot: number }[];
    const fees = async (accounts?: string[]) =>
      (await rpc(devnet.url, 'getRecentPrioritizationFees', accounts ? [accounts] : [])).result as Fees;
    const watched = Keypair.generate().publicKey.toBase58();
    const other = Keypair.generate().publicKey.toBase58();
    expect((await fees()).every((f) => f.prioritizationFee === 0)).toBe(true);
    devnet.setPriorityFee(12_345);
    const all = await fees([other]);
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((f) => f.prioritizationFee === 12_345)).toBe(true);
    devnet.setPriorityFee(777n, [watched]);
    expect((await fees([other])).every((f) => f.prioritizationFee === 0)).toBe(true);
    expect((await fees()).every((f) => f.prioritizationFee === 0)).toBe(true);
    expect((await fees([other, watched])).every((f) => f.prioritizationFee === 777)).toBe(true);
    devnet.setPriorityFee(0);
    expect((await fees([watched])).every((f) => f.prioritizationFee === 0)).toBe(true);
    expect(() => devnet.setPriorityFee(-1)).toThrow(/u64/);
  });

  it('a priority fee is charged as the runtime charges it, and reported so by meta and getFeeForMessage', async () => {
    // A payer of its own: the faucet's balance moves by other lamports than its own sends' (the faucet
    // is not the payer a test can count on).
    const payer = Keypair.generate();
    await devnet.airdrop(payer.publicKey.toBase58(), 1_000_000_000n);
    const cases = [
      // A unit limit: 495 units at 2.5 lamports = 1,237.5, rounded up.
      { budget: [ComputeBudgetProgram.setComputeUnitLimit({ units: 495 })], price: 2_500_000, fee: 6238 },
      // No limit: 3,000 units for each builtin instruction (the price's and the transfer), at 0.001 lamports.
      { budget: [], price: 1_000, fee: 5006 },
      { budget: [], price: 0, fee: 5000 },
    ];
    for (const { budget, price, fee } of cases) {
      const latest = (await rpc(devnet.url, 'getLatestBlockhash')).result as { value: { blockhash: string } };
      const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: latest.value.blockhash }).add(
        ...budget,
        ...(price > 0 ? [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: price })] : []),
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: 1_000_000,
        }),
      );
      const message = tx.serializeMessage().toString('base64');
      expect((await rpc(devnet.url, 'getFeeForMessage', [message])).result).toMatchObject({ value: fee });
      tx.sign(payer);
      const sent = await rpc(devnet.url, 'sendTransaction', [
        tx.serialize().toString('base64'),
        { encoding: 'base64' },
      ]);
      await devnet.advance(1);
      const landed = (await rpc(devnet.url, 'getTransaction', [sent.result, { encoding: 'json' }]))
        .result as {
        meta: { fee: number; preBalances: number[]; postBalances: number[] };
      };
      expect(landed.meta.fee).toBe(fee);
      // What left the payer: the transfer and the fee litesvm charged, which the meta reports.
      expect(landed.meta.preBalances[0]! - landed.meta.postBalances[0]!).toBe(1_000_000 + fee);
    }
  });
});
