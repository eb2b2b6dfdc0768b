// snapshotFile: a devnet closed and started again on its file carries on (accounts, tokens, old blocks and
// transactions, the slot), and takes new transactions.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { address, generateKeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  metadataAddress,
  type SolanaDevnet,
  startSolanaDevnet,
  TOKEN_2022_PROGRAM,
} from '../../../devnets/solana/index.ts';
import { kitWire } from '../../helpers/solana-wire.ts';
import { associatedTokenAccount, lamports, rpc, sendWire, tokenAmount } from './helpers.ts';

let dir: string;
const running: SolanaDevnet[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'solana-devnet-'));
});
afterAll(async () => {
  await Promise.all(running.map((d) => d.close().catch(() => {})));
  await rm(dir, { recursive: true, force: true });
});

async function start(file: string, saveIntervalMs?: number): Promise<SolanaDevnet> {
  const devnet = await startSolanaDevnet({
    slotIntervalMs: null,
    snapshotFile: file,
    ...(saveIntervalMs === undefined ? {} : { saveIntervalMs }),
  });
  running.push(devnet);
  return devnet;
}

async function stop(devnet: SolanaDevnet): Promise<void> {
  running.splice(running.indexOf(devnet), 1);
  await devnet.close();
}

describe('Solana devnet persistence', () => {
  it('carries on after close and start: balances, tokens, old blocks and transactions, the slot', async () => {
    const file = join(dir, 'chain.json');
    const first = await start(file);
    const alice = await generateKeyPairSigner();
    const bob = await generateKeyPairSigner();
    const usdt = address(first.tokens.spl.USDT);
    const usdt22 = address(first.tokens.spl.USDT22);
    const airdropSig = await first.airdrop(alice.address, 2_000_000_000n);
    await first.faucetSpl(usdt, alice.address, 5_000_000n);
    await first.faucetSpl(usdt22, alice.address, 7_000_000n);
    first.skip(2);
    await first.advance(3);
    const aliceAta = await associatedTokenAccount(usdt, alice.address);
    const aliceAta22 = await associatedTokenAccount(usdt22, alice.address, address(TOKEN_2022_PROGRAM));
    const oldTx = await rpc(first.url, 'getTransaction', [airdropSig, { encoding: 'json' }]);
    const airdropSlot = (oldTx.result as { slot: number }).slot;
    const oldBlock = await rpc(first.url, 'getBlock', [airdropSlot]);
    const slot = (await rpc(first.url, 'getSlot')).result as number;
    const blockhash = (await rpc(first.url, 'getLatestBlockhash')).result;
    const supply22 = (await rpc(first.url, 'getTokenSupply', [usdt22])).result;
    const blocks = (await rpc(first.url, 'getBlocks', [0])).result as number[];
    await stop(first);

    const second = await start(file);
    expect(second.tokens).toEqual(first.tokens);
    expect(second.faucet).toEqual(first.faucet);
    expect((await rpc(second.url, 'getSlot')).result).toBe(slot);
    expect((await rpc(second.url, 'getLatestBlockhash')).result).toEqual(blockhash);
    expect((await rpc(second.url, 'getBlocks', [0])).result).toEqual(blocks);
    expect(await lamports(second.url, alice.address)).toBe(2_000_000_000n);
    expect(await tokenAmount(second.url, aliceAta)).toBe('5000000');
    expect(await tokenAmount(second.url, aliceAta22)).toBe('7000000');
    // The mints were not made again: their supply is what was minted before.
    expect((await rpc(second.url, 'getTokenSupply', [usdt22])).result).toEqual(supply22);
    const owned = await rpc(second.url, 'getTokenAccountsByOwner', [
      alice.address,
      { programId: TOKEN_2022_PROGRAM },
    ]);
    expect((owned.result as { value: { pubkey: string }[] }).value.map((v) => v.pubkey)).toEqual([
      aliceAta22,
    ]);
    expect((await rpc(second.url, 'getTransaction', [airdropSig, { encoding: 'json' }])).result).toEqual(
      oldTx.result,
    );
    expect((await rpc(second.url, 'getBlock', [airdropSlot])).result).toEqual(oldBlock.result);
    // The two skipped slots still answer as skipped.
    const skipped = [...Array(slot).keys()].filter((s) => s > 0 && !blocks.includes(s));
    expect(skipped).toHaveLength(2);
    expect((await rpc(second.url, 'getBlock', [skipped[0]])).error?.code).toBe(-32007);
    const meta = await rpc(second.url, 'getAccountInfo', [await metadataAddress(usdt22)]);
    expect(meta.result).toMatchObject({ value: { owner: 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s' } });

    // A send after the restart lands in the next slot.
    const wire = await kitWire(second.url, alice, [
      getTransferSolInstruction({ source: alice, destination: bob.address, amount: 500_000_000n }),
    ]);
    const sig = await sendWire(second.url, wire);
    expect(await lamports(second.url, bob.address)).toBe(500_000_000n);
    expect((await rpc(second.url, 'getSignatureStatuses', [[sig]])).result).toMatchObject({
      value: [{ slot: slot + 1, err: null }],
    });
    await second.faucetSpl(usdt, bob.address, 1_000_000n);
    await stop(second);

    // Closed again, after the restart's own transactions: a third start has them.
    const third = await start(file);
    expect(await lamports(third.url, bob.address)).toBe(500_000_000n);
    expect((await rpc(third.url, 'getTransaction', [sig])).result).toMatchObject({ slot: slot + 1 });
    const bobAta = await associatedTokenAccount(usdt, bob.address);
    expect(await tokenAmount(third.url, bobAta)).toBe('1000000');
    // The store came back with the restart: the same transaction again is one already processed.
    await expect(sendWire(third.url, wire)).rejects.toThrow(/already been processed|AlreadyProcessed/);
    // A reorg reaches back past the restart: the undo log was saved too.
    await third.reorg(2);
    expect(await tokenAmount(third.url, bobAta)).toBeNull();
    expect(await lamports(third.url, bob.address)).toBe(0n);
    await stop(third);
  });

  it('saveIntervalMs: the file follows new transactions without a close', async () => {
    const file = join(dir, 'timed.json');
    const devnet = await start(file, 20);
    const before = await readFile(file, 'utf8');
    const alice = await generateKeyPairSigner();
    await devnet.airdrop(alice.address, 1_000_000_000n);
    await expect.poll(() => readFile(file, 'utf8'), { timeout: 5000 }).not.toBe(before);
    // A second devnet started on the file (the first still running) sees the airdrop.
    const copy = await start(file);
    expect(await lamports(copy.url, alice.address)).toBe(1_000_000_000n);
    await stop(copy);
    await stop(devnet);
  });

  it('without saveIntervalMs the file is written at start and on close only', async () => {
    const file = join(dir, 'on-close.json');
    const devnet = await start(file);
    const before = await readFile(file, 'utf8');
    await devnet.airdrop((await generateKeyPairSigner()).address, 1_000_000_000n);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await readFile(file, 'utf8')).toBe(before);
    await stop(devnet);
    expect(await readFile(file, 'utf8')).not.toBe(before);
  });
});
