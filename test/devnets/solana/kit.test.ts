import { address, createSolanaRpc, generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SolanaDevnet, startSolanaDevnet } from '../../../devnets/solana/index.ts';
import { kitWire } from '../../helpers/solana-wire.ts';
import { rpc } from './helpers.ts';

let devnet: SolanaDevnet;
beforeAll(async () => {
  devnet = await startSolanaDevnet({ slotIntervalMs: null });
});
afterAll(() => devnet?.close());

function transfer(from: KeyPairSigner, to: string, amount: bigint) {
  const instruction = getTransferSolInstruction({ source: from, destination: address(to), amount });
  return kitWire(devnet.url, from, [instruction], 0);
}

describe('Solana devnet with @solana/kit', () => {
  it('sends SOL and reads it back', async () => {
    const r = createSolanaRpc(devnet.url);
    const alice = await generateKeyPairSigner();
    const bob = await generateKeyPairSigner();
    await devnet.airdrop(alice.address, 2_000_000_000n);
    expect((await r.getBalance(alice.address).send()).value).toBe(2_000_000_000n);

    const wire = await transfer(alice, bob.address, 1_000_000_000n);
    const sig = await r.sendTransaction(wire, { encoding: 'base64' }).send();
    expect((await r.getBalance(bob.address).send()).value).toBe(1_000_000_000n);
    expect((await r.getBalance(alice.address).send()).value).toBe(1_000_000_000n - 5000n);

    const status = (await r.getSignatureStatuses([sig]).send()).value[0];
    expect(status?.confirmationStatus).toBe('processed');
    await devnet.advance(1);
    const later = (await r.getSignatureStatuses([sig]).send()).value[0];
    expect(later?.confirmationStatus).toBe('confirmed');
    await devnet.advance(32);
    const fin = (await r.getSignatureStatuses([sig]).send()).value[0];
    expect(fin?.confirmationStatus).toBe('finalized');
    expect(fin?.confirmations).toBeNull();

    const tx = await r.getTransaction(sig, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
    expect(tx?.version).toBe(0);
    expect(tx?.meta?.fee).toBe(5000n);
    expect(tx?.meta?.postBalances[1]).toBe(1_000_000_000n);
    expect(tx?.transaction.signatures[0]).toBe(sig);
    // A v0 transaction to a client that did not ask for them is an error, as on the node.
    const refused = await rpc(devnet.url, 'getTransaction', [sig, { encoding: 'json' }]);
    expect(refused.error?.code).toBe(-32015);
    const b64 = await rpc(devnet.url, 'getTransaction', [
      sig,
      { encoding: 'base64', maxSupportedTransactionVersion: 0 },
    ]);
    expect((b64.result as { transaction: unknown[] }).transaction[1]).toBe('base64');
    expect((await rpc(devnet.url, 'getTransaction', ['1'.repeat(88)])).result).toBeNull();
  });

  it("refuses a transfer past the balance with the node's -32002 body, and lands it with skipPreflight", async () => {
    const alice = await generateKeyPairSigner();
    await devnet.airdrop(alice.address, 1_000_000_000n);
    const wire = await transfer(alice, (await generateKeyPairSigner()).address, 5_000_000_000n);
    const res = await rpc(devnet.url, 'sendTransaction', [wire, { encoding: 'base64' }]);
    expect(res.error?.code).toBe(-32002);
    expect(res.error?.message).toBe(
      'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
    );
    expect(Object.keys(res.error?.data as object).sort()).toEqual(
      ['accounts', 'err', 'logs', 'returnData', 'unitsConsumed'].sort(),
    );
    expect(res.error?.data).toHaveProperty('err');
    expect((res.error?.data as { err: unknown } | undefined)?.err).toEqual({
      InstructionError: [0, { Custom: 1 }],
    });

    const landed = await rpc(devnet.url, 'sendTransaction', [
      wire,
      { encoding: 'base64', skipPreflight: true },
    ]);
    const sig = landed.result as string;
    const tx = await rpc(devnet.url, 'getTransaction', [sig, { maxSupportedTransactionVersion: 0 }]);
    const meta = (tx.result as { meta: { err: unknown; fee: number } }).meta;
    expect(meta.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect((await rpc(devnet.url, 'getBalance', [alice.address])).result).toMatchObject({
      value: 1_000_000_000 - 5000,
    });
  });

  it('answers -32003 for a bad signature, -32601 and -32602', async () => {
    const alice = await generateKeyPairSigner();
    await devnet.airdrop(alice.address, 1_000_000_000n);
    const bytes = Buffer.from(await transfer(alice, devnet.faucet.address, 1000n), 'base64');
    bytes[10] = (bytes[10] as number) ^ 1;
    const bad = await rpc(devnet.url, 'sendTransaction', [bytes.toString('base64'), { encoding: 'base64' }]);
    expect(bad.error).toEqual({ code: -32003, message: 'Transaction signature verification failure' });
    expect((await rpc(devnet.url, 'noSuchMethod')).error).toEqual({
      code: -32601,
      message: 'Method not found',
    });
    expect((await rpc(devnet.url, 'getBalance', ['nope'])).error?.code).toBe(-32602);
  });

  it('skips slots: -32007 for them, parentSlot behind them, getBlocks leaves them out', async () => {
    const before = (await rpc(devnet.url, 'getSlot')).result as number;
    devnet.skip(2);
    const slot = Number(await devnet.advance(3));
    expect(slot).toBe(before + 3);
    for (const s of [before + 1, before + 2]) {
      expect((await rpc(devnet.url, 'getBlock', [s])).error).toEqual({
        code: -32007,
        message: `Slot ${s} was skipped, or missing due to ledger jump to recent snapshot`,
      });
    }
    const block = (await rpc(devnet.url, 'getBlock', [slot])).result as { parentSlot: number };
    expect(block.parentSlot).toBe(before);
    expect((await rpc(devnet.url, 'getBlocks', [before, slot])).result).toEqual([before, slot]);
    expect((await rpc(devnet.url, 'getBlock', [slot + 5])).error).toEqual({
      code: -32004,
      message: `Block not available for slot ${slot + 5}`,
    });
  });
});
