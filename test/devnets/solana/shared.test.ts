// The run's shared Solana devnet as test workers reach it: the control server's info and operations over
// HTTP, the way test/helpers/shared-devnets.ts calls them (the helper itself needs the global setup's inject).
import { generateKeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINNET_GENESIS_HASH } from '../../../devnets/solana/index.ts';
import { type DevnetControl, startDevnetControl } from '../../global-setup/devnet-control.ts';
import { solanaDevnet } from '../../global-setup/shared-devnets.ts';
import { decodeWire, encodeWire } from '../../helpers/devnet-wire.ts';
import type { SharedSolanaDevnetInfo } from '../../helpers/shared-devnets.ts';
import { lamports, rpc } from './helpers.ts';

let control: DevnetControl;
beforeAll(async () => {
  control = await startDevnetControl({ solana: solanaDevnet });
});
afterAll(() => control?.close());

async function call(operation: string, ...args: unknown[]): Promise<unknown> {
  const response = await fetch(`${control.url}/solana/${operation}`, {
    method: 'POST',
    body: encodeWire(args),
  });
  const answer = decodeWire(await response.text()) as { result?: unknown; error?: string };
  if (!response.ok) throw new Error(answer.error);
  return answer.result;
}

describe('shared Solana devnet', () => {
  it('serves info, airdrop, faucetSpl, advance, skip and reorg', async () => {
    const info = (await call('info')) as SharedSolanaDevnetInfo;
    expect(Object.keys(info).sort()).toEqual(['faucet', 'tokens', 'url', 'wsUrl']);
    expect(Object.keys(info.tokens.spl).sort()).toEqual(['USDT', 'USDT22']);
    expect((await rpc(info.url, 'getGenesisHash')).result).toBe(MAINNET_GENESIS_HASH);

    const alice = await generateKeyPairSigner();
    const slot = (await rpc(info.url, 'getSlot')).result as number;
    expect(typeof (await call('airdrop', alice.address, 1_000_000_000n))).toBe('string');
    // slotIntervalMs null: one slot for the airdrop, none while idle.
    expect((await rpc(info.url, 'getSlot')).result).toBe(slot + 1);
    expect(await lamports(info.url, alice.address)).toBe(1_000_000_000n);
    expect(typeof (await call('faucetSpl', info.tokens.spl.USDT22, alice.address, 3_000_000n))).toBe(
      'string',
    );

    await call('skip', 1);
    expect(await call('advance', 2)).toBe(BigInt(slot + 4));
    expect((await rpc(info.url, 'getBlock', [slot + 3])).error?.code).toBe(-32007);

    // advance(2) made one block (one slot skipped): reorg(2) reaches back to the faucetSpl, not the airdrop.
    await call('reorg', 2);
    const owned = await rpc(info.url, 'getTokenAccountsByOwner', [
      alice.address,
      { mint: info.tokens.spl.USDT22 },
    ]);
    expect((owned.result as { value: unknown[] }).value).toEqual([]);
    expect(await lamports(info.url, alice.address)).toBe(1_000_000_000n);
    await expect(call('reorg', 33)).rejects.toThrow(/at most 32/);
  });
});
