// reorg(depth): the newest blocks are replaced by empty ones at new slots, their transactions forgotten and
// the accounts they wrote (SOL and both token programs) back to their state before them.
import { address, generateKeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REORG_WINDOW,
  type SolanaDevnet,
  startSolanaDevnet,
  TOKEN_2022_PROGRAM,
} from '../../../devnets/solana/index.ts';
import { kitWire } from '../../helpers/solana-wire.ts';
import {
  associatedTokenAccount,
  lamports,
  rpc,
  sendWire,
  tokenAmount,
  tokenSendInstructions,
} from './helpers.ts';

interface BlockJson {
  blockhash: string;
  previousBlockhash: string;
  parentSlot: number;
  blockHeight: number;
}

let devnet: SolanaDevnet;
beforeAll(async () => {
  devnet = await startSolanaDevnet({ slotIntervalMs: null });
});
afterAll(() => devnet?.close());

async function block(slot: number | bigint): Promise<BlockJson> {
  const answer = await rpc(devnet.url, 'getBlock', [Number(slot), { transactionDetails: 'none' }]);
  if (answer.error) throw new Error(answer.error.message);
  return answer.result as BlockJson;
}

describe('Solana devnet reorg', () => {
  it('reorg(2) after a transfer: the transfer is gone, balances and token balances are back', async () => {
    const usdt = address(devnet.tokens.spl.USDT);
    const usdt22 = address(devnet.tokens.spl.USDT22);
    const token22 = address(TOKEN_2022_PROGRAM);
    const alice = await generateKeyPairSigner();
    const bob = await generateKeyPairSigner();
    await devnet.airdrop(alice.address, 2_000_000_000n);
    await devnet.faucetSpl(usdt, alice.address, 5_000_000n);
    await devnet.faucetSpl(usdt22, alice.address, 6_000_000n);
    const aliceAta = await associatedTokenAccount(usdt, alice.address);
    const bobAta = await associatedTokenAccount(usdt, bob.address);
    const aliceAta22 = await associatedTokenAccount(usdt22, alice.address, token22);
    const bobAta22 = await associatedTokenAccount(usdt22, bob.address, token22);
    const aliceBefore = await lamports(devnet.url, alice.address);

    // One transaction: SOL, USDT and USDT22 to bob, creating both his token accounts.
    const wire = await kitWire(devnet.url, alice, [
      getTransferSolInstruction({ source: alice, destination: bob.address, amount: 300_000_000n }),
      ...(await tokenSendInstructions(alice, bob.address, usdt, 2_000_000n)),
      ...(await tokenSendInstructions(alice, bob.address, usdt22, 1_000_000n, token22)),
    ]);
    const sig = await sendWire(devnet.url, wire);
    const landed = (await rpc(devnet.url, 'getSignatureStatuses', [[sig]])).result as {
      value: [{ slot: number }];
    };
    const transferSlot = landed.value[0].slot;
    const transferBlock = await block(transferSlot);
    expect(await tokenAmount(devnet.url, bobAta)).toBe('2000000');
    expect(await tokenAmount(devnet.url, bobAta22)).toBe('1000000');
    const emptySlot = await devnet.advance(1);
    const slotBefore = Number(emptySlot);

    await devnet.reorg(2);

    expect((await rpc(devnet.url, 'getSignatureStatuses', [[sig]])).result).toMatchObject({ value: [null] });
    expect((await rpc(devnet.url, 'getTransaction', [sig])).result).toBeNull();
    expect(await lamports(devnet.url, alice.address)).toBe(aliceBefore);
    expect(await lamports(devnet.url, bob.address)).toBe(0n);
    expect(await tokenAmount(devnet.url, aliceAta)).toBe('5000000');
    expect(await tokenAmount(devnet.url, aliceAta22)).toBe('6000000');
    expect(await tokenAmount(devnet.url, bobAta)).toBeNull();
    expect(await tokenAmount(devnet.url, bobAta22)).toBeNull();
    const bobs = await rpc(devnet.url, 'getTokenAccountsByOwner', [
      bob.address,
      { programId: TOKEN_2022_PROGRAM },
    ]);
    expect((bobs.result as { value: unknown[] }).value).toEqual([]);
    const alices = await rpc(devnet.url, 'getTokenAccountsByOwner', [
      alice.address,
      { mint: usdt },
      { encoding: 'jsonParsed' },
    ]);
    expect(alices.result).toMatchObject({
      value: [
        { pubkey: aliceAta, account: { data: { parsed: { info: { tokenAmount: { amount: '5000000' } } } } } },
      ],
    });

    // The dropped slots answer as skipped; the new blocks took new slots.
    for (const slot of [transferSlot, slotBefore]) {
      expect((await rpc(devnet.url, 'getBlock', [slot])).error?.code).toBe(-32007);
    }
    const head = Number((await rpc(devnet.url, 'getSlot')).result);
    expect(head).toBeGreaterThan(slotBefore);
    // Walk the new head's parents down below the fork: the dropped blockhash is nowhere on the way.
    let walk = await block(head);
    const hashes = [walk.blockhash, walk.previousBlockhash];
    for (let i = 0; i < 2; i++) {
      walk = await block(walk.parentSlot);
      hashes.push(walk.blockhash, walk.previousBlockhash);
    }
    expect(walk.parentSlot).toBeLessThan(transferSlot);
    expect(hashes).not.toContain(transferBlock.blockhash);
    expect((await rpc(devnet.url, 'isBlockhashValid', [transferBlock.blockhash])).result).toMatchObject({
      value: false,
    });

    // The dropped transaction's blockhash (older than the fork) is still valid: it can be sent again.
    const again = await sendWire(devnet.url, wire);
    expect(again).toBe(sig);
    expect(await tokenAmount(devnet.url, bobAta)).toBe('2000000');
    expect(await lamports(devnet.url, bob.address)).toBe(300_000_000n);
  });

  it('refuses a depth beyond the window (32) or below 1, and goes back as far as the window', async () => {
    const alice = await generateKeyPairSigner();
    await devnet.airdrop(alice.address, 1_000_000_000n);
    await expect(devnet.reorg(REORG_WINDOW + 1)).rejects.toThrow(/at most 32/);
    await expect(devnet.reorg(0)).rejects.toThrow();
    await devnet.advance(REORG_WINDOW - 1);
    // The airdrop's block is the 32nd newest: still in the window.
    await devnet.reorg(REORG_WINDOW);
    expect(await lamports(devnet.url, alice.address)).toBe(0n);
  });

  it('drops the pending transactions too', async () => {
    // Slots an hour long: a sent transaction waits, pending, for a block.
    const slow = await startSolanaDevnet({ slotIntervalMs: 3_600_000 });
    try {
      const alice = await generateKeyPairSigner();
      await slow.advance(1);
      const sig = await slow.airdrop(alice.address, 1_000_000_000n);
      expect(await lamports(slow.url, alice.address)).toBe(1_000_000_000n);
      await slow.reorg(1);
      expect(await lamports(slow.url, alice.address)).toBe(0n);
      await slow.advance(1);
      expect((await rpc(slow.url, 'getSignatureStatuses', [[sig]])).result).toMatchObject({ value: [null] });
    } finally {
      await slow.close();
    }
  });
});
