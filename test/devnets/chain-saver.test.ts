import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChainSaver, type SavableChain } from '../../devnets/chain-saver.ts';

/** A chain whose blocks are either empty or hold a transaction; saves are counted. */
class FakeChain implements SavableChain {
  blocks: boolean[] = [false];
  saves: bigint[] = [];
  saveMs = 0;

  async head(): Promise<bigint> {
    return BigInt(this.blocks.length - 1);
  }

  async hasTransactions(after: bigint, upTo: bigint): Promise<boolean> {
    return this.blocks.slice(Number(after) + 1, Number(upTo) + 1).some(Boolean);
  }

  async save(): Promise<void> {
    const head = await this.head();
    if (this.saveMs) await new Promise((resolve) => setTimeout(resolve, this.saveMs));
    this.saves.push(head);
  }

  mine(withTransaction: boolean, count = 1): void {
    for (let i = 0; i < count; i++) this.blocks.push(withTransaction);
  }
}

describe('ChainSaver', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('saves within one interval after a block with a transaction', async () => {
    const chain = new FakeChain();
    const saver = new ChainSaver(chain, { intervalMs: 1000, idleMs: 60_000 }, 0n, () => {});
    saver.start();
    chain.mine(false, 3);
    chain.mine(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(chain.saves).toEqual([4n]);
    await saver.stop();
  });

  it('lets empty blocks wait for the idle time, then saves them', async () => {
    const chain = new FakeChain();
    const saver = new ChainSaver(chain, { intervalMs: 1000, idleMs: 10_000 }, 0n, () => {});
    saver.start();
    for (let s = 0; s < 9; s++) {
      chain.mine(false);
      await vi.advanceTimersByTimeAsync(1000);
    }
    expect(chain.saves).toEqual([]);
    chain.mine(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(chain.saves).toEqual([10n]);
    await saver.stop();
  });

  it('on stop, saves what the last save missed, and nothing when nothing moved', async () => {
    const chain = new FakeChain();
    const saver = new ChainSaver(chain, { intervalMs: 0 }, 0n, () => {});
    saver.start();
    await saver.stop();
    expect(chain.saves).toEqual([]);
    chain.mine(false, 2);
    await saver.stop();
    expect(chain.saves).toEqual([2n]);
  });

  it('runs one save at a time, and reports a failed save without stopping', async () => {
    const chain = new FakeChain();
    chain.saveMs = 3500;
    const errors: unknown[] = [];
    const saver = new ChainSaver(chain, { intervalMs: 1000 }, 0n, (error) => errors.push(error));
    saver.start();
    chain.mine(true);
    await vi.advanceTimersByTimeAsync(5000);
    expect(chain.saves).toEqual([1n]);

    chain.saveMs = 0;
    const save = chain.save.bind(chain);
    chain.save = async () => {
      throw new Error('disk full');
    };
    chain.mine(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(errors).toHaveLength(1);
    chain.save = save;
    await vi.advanceTimersByTimeAsync(1000);
    expect(chain.saves).toEqual([1n, 2n]);
    await saver.stop();
  });
});
