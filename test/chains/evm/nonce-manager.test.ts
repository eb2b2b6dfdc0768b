import { createWalletClient, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../../devnets/evm/index.ts';
import {
  type EvmAdapter,
  EvmBroadcastUnknownError,
  EvmInsufficientFundsError,
  type EvmKeyPair,
  EvmNonceError,
  type NonceDialect,
  NonceManager,
  type NonceNode,
  withNonce,
  withTransactionNonce,
} from '../../../src/chains/evm/index.ts';
import { NodeUnavailableError } from '../../../src/chains/node-client.ts';
import { devnetAdapter, freshNonceDatabase, type NonceDatabase } from './helpers.ts';

const ETHER = 10n ** 18n;

describe.each(['sqlite', 'postgres'] as NonceDialect[])('NonceManager on %s and real anvil', (dialect) => {
  let devnet: EvmDevnet;
  let adapter: EvmAdapter;
  let database: NonceDatabase;
  let manager: NonceManager;

  beforeAll(async () => {
    [devnet, database] = await Promise.all([
      startEvmDevnet({ chain: 'ethereum' }),
      freshNonceDatabase(dialect),
    ]);
    adapter = devnetAdapter('ethereum', devnet.url);
    manager = new NonceManager(database.db, database.dialect);
  });

  afterAll(async () => {
    await adapter?.close();
    await devnet?.close();
    await database?.close();
  });

  const keyOf = (address: string) => ({ chain: 'ethereum', network: 'mainnet', address });

  async function funded(wei = 10n * ETHER): Promise<EvmKeyPair> {
    const key = adapter.generateKey();
    await devnet.faucetNative(key.address, wei);
    return key;
  }

  /** Builds a transfer, then lets the manager give it its nonce, sign and send it. */
  async function managedTransfer(
    m: NonceManager,
    node: EvmAdapter,
    sender: EvmKeyPair,
    to: string,
    wei: bigint,
  ) {
    const tx = await node.buildTransfer(sender.address, to, wei);
    return m.send(
      keyOf(sender.address),
      node,
      async (nonce) => (await node.sign(await withTransactionNonce(tx, nonce), sender.privateKey)).raw,
    );
  }

  /**
   * Runs a burst of sends with auto-mining paused, then mines them. anvil's pool can strand a
   * transaction whose nonce arrives while its predecessor is being auto-mined (it stays "queued" at
   * the account's own nonce for good, which no real node does); pausing keeps the test about the gateway.
   */
  async function burst<T>(work: () => Promise<T>): Promise<T> {
    await devnet.rpc('evm_setAutomine', [false]);
    try {
      return await work();
    } finally {
      await devnet.rpc('evm_setAutomine', [true]);
      await devnet.mine(1);
    }
  }

  async function receiptOf(hash: string) {
    for (let i = 0; i < 400; i++) {
      const receipt = await adapter.getReceipt(hash);
      if (receipt) return receipt;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`${hash} not mined`);
  }

  it('lands 50 concurrent sends from one address with consecutive nonces', async () => {
    const sender = await funded();
    const recipient = adapter.generateKey().address;
    const sends = await burst(() =>
      Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          managedTransfer(manager, adapter, sender, recipient, BigInt(i + 1)),
        ),
      ),
    );
    expect(sends.map((s) => s.nonce).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(new Set(sends.map((s) => s.hash)).size).toBe(50);
    const receipts = await Promise.all(sends.map((s) => receiptOf(s.hash)));
    expect(receipts.every((r) => r['status'] === '0x1')).toBe(true);
    expect(await adapter.getTransactionCount(sender.address, 'latest')).toBe(50);
    expect(await adapter.getBalance(recipient)).toBe((50n * 51n) / 2n);
    expect(await manager.storedNextNonce(keyOf(sender.address))).toBe(50);
  });

  it('skips nonces spent elsewhere with the same key, before and during a send', async () => {
    const sender = await funded();
    const recipient = adapter.generateKey().address;
    const outside = createWalletClient({
      account: privateKeyToAccount(`0x${sender.privateKey}`),
      transport: http(devnet.url),
    });
    const chain = {
      id: devnet.chainId,
      name: 'devnet',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [devnet.url] } },
    };

    await managedTransfer(manager, adapter, sender, recipient, 1n); // nonce 0
    // A spend the gateway never saw takes nonce 1.
    await outside.sendTransaction({ chain, to: recipient, value: 1n, nonce: 1 });
    expect((await managedTransfer(manager, adapter, sender, recipient, 1n)).nonce).toBe(2);

    // A spend elsewhere lands between allocation and broadcast: "nonce too low", re-sync, one retry.
    const tx = await adapter.buildTransfer(sender.address, recipient, 5n);
    const nonces: number[] = [];
    const sent = await manager.send(keyOf(sender.address), adapter, async (nonce) => {
      nonces.push(nonce);
      // Mined before the manager's own broadcast, so it is "nonce too low" and not a pool replacement.
      if (nonces.length === 1)
        await receiptOf(await outside.sendTransaction({ chain, to: recipient, value: 1n, nonce }));
      return (await adapter.sign(await withTransactionNonce(tx, nonce), sender.privateKey)).raw;
    });
    expect(nonces).toEqual([3, 4]);
    expect(sent.nonce).toBe(4);
    expect((await receiptOf(sent.hash))['status']).toBe('0x1');
    expect(await adapter.getTransactionCount(sender.address, 'latest')).toBe(5);
  });

  it('recovers when the outside spend is still pending in the pool ("replacement underpriced")', async () => {
    const sender = await funded();
    const recipient = adapter.generateKey().address;
    const account = privateKeyToAccount(`0x${sender.privateKey}`);
    await devnet.rpc('evm_setAutomine', [false]);
    try {
      const tx = await adapter.buildTransfer(sender.address, recipient, 7n);
      const nonces: number[] = [];
      const sent = await manager.send(keyOf(sender.address), adapter, async (nonce) => {
        nonces.push(nonce);
        if (nonces.length === 1) {
          // Same nonce, higher fee, already in the pool: ours cannot replace it.
          const outsideTx = await adapter.buildTransfer(sender.address, recipient, 1n, {
            nonce,
            maxFeePerGas: 100_000_000_000n,
            maxPriorityFeePerGas: 50_000_000_000n,
          });
          await adapter.broadcast((await adapter.sign(outsideTx, sender.privateKey)).raw);
        }
        return (await adapter.sign(await withTransactionNonce(tx, nonce), sender.privateKey)).raw;
      });
      expect(nonces).toEqual([0, 1]);
      expect(sent.nonce).toBe(1);
      expect(account.address).toBe(sender.address);
    } finally {
      await devnet.rpc('evm_setAutomine', [true]);
    }
    await devnet.mine(1);
    expect(await adapter.getTransactionCount(sender.address, 'latest')).toBe(2);
  });

  it('releases the last nonce of a refused send, and reuses a refused one behind later sends', async () => {
    const sender = await funded(ETHER);
    const recipient = adapter.generateKey().address;
    const key = keyOf(sender.address);

    // Refused while it is the last one handed out: the next send gets the same nonce.
    const tooMuch = await adapter.buildTransfer(sender.address, recipient, 2n * ETHER);
    await expect(
      manager.send(
        key,
        adapter,
        async (n) => (await adapter.sign(await withTransactionNonce(tooMuch, n), sender.privateKey)).raw,
      ),
    ).rejects.toBeInstanceOf(EvmInsufficientFundsError);
    expect(await manager.storedNextNonce(key)).toBe(0);
    // Signing failed (e.g. a wrong password): released too.
    await expect(
      manager.send(key, adapter, async () => Promise.reject(new Error('Wrong password provided'))),
    ).rejects.toThrow('Wrong password provided');
    expect(await manager.storedNextNonce(key)).toBe(0);
    expect((await managedTransfer(manager, adapter, sender, recipient, 1n)).nonce).toBe(0);

    // Refused while a later nonce is already out: kept free, and the next send fills the gap.
    let releaseFirst!: () => void;
    const gate = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const okTx = await adapter.buildTransfer(sender.address, recipient, 2n);
    // Its broadcast waits at the gate (signing happens under the address's lock, the broadcast after it).
    const gated: NonceNode = {
      chain: 'ethereum',
      network: 'mainnet',
      getTransactionCount: (address, block) => adapter.getTransactionCount(address, block),
      broadcast: async (raw) => {
        await gate;
        return adapter.broadcast(raw);
      },
    };
    const failing = manager.send(
      key,
      gated,
      async (nonce) =>
        (await adapter.sign(await withTransactionNonce(tooMuch, nonce), sender.privateKey)).raw,
    );
    // Let the failing send take nonce 1 first.
    for (let i = 0; i < 100 && (await manager.pending(key)).every((p) => p.nonce !== 1); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const later = await manager.send(
      key,
      adapter,
      async (n) => (await adapter.sign(await withTransactionNonce(okTx, n), sender.privateKey)).raw,
    );
    expect(later.nonce).toBe(2);
    releaseFirst();
    await expect(failing).rejects.toBeInstanceOf(EvmInsufficientFundsError);
    expect((await manager.pending(key)).find((p) => p.nonce === 1)?.state).toBe('free');
    const filler = await managedTransfer(manager, adapter, sender, recipient, 3n);
    expect(filler.nonce).toBe(1);
    await receiptOf(filler.hash);
    await receiptOf(later.hash);
    expect(await adapter.getTransactionCount(sender.address, 'latest')).toBe(3);
  });

  it('keeps the signed transaction when the broadcast gets no answer, and re-broadcasts it after a restart', async () => {
    const sender = await funded();
    const recipient = adapter.generateKey().address;
    const key = keyOf(sender.address);
    const unreachable: NonceNode = {
      chain: 'ethereum',
      network: 'mainnet',
      getTransactionCount: (address, block) => adapter.getTransactionCount(address, block),
      broadcast: () => Promise.reject(new NodeUnavailableError('ethereum', 'mainnet', ['timed out'], null)),
    };
    const tx = await adapter.buildTransfer(sender.address, recipient, 9n);
    const error = await manager
      .send(
        key,
        unreachable,
        async (n) => (await adapter.sign(await withTransactionNonce(tx, n), sender.privateKey)).raw,
      )
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(EvmBroadcastUnknownError);
    const txid = (error as EvmBroadcastUnknownError).txid;
    const [row] = await manager.pending(key);
    expect(row).toMatchObject({ nonce: 0, state: 'sent', txHash: txid });
    expect(row?.rawTx).toMatch(/^0x02/);

    // A new manager (a restarted gateway) settles it against the node.
    const restarted = new NonceManager(database.db, database.dialect);
    expect(await restarted.reconcile(key, adapter)).toEqual({
      mined: 0,
      rebroadcast: 1,
      released: 0,
      waiting: 0,
      dropped: [],
    });
    expect((await receiptOf(txid))['status']).toBe('0x1');
    expect(await restarted.reconcile(key, adapter)).toEqual({
      mined: 1,
      rebroadcast: 0,
      released: 0,
      waiting: 0,
      dropped: [],
    });
    expect(await restarted.pending(key)).toEqual([]);
    expect((await managedTransfer(restarted, adapter, sender, recipient, 1n)).nonce).toBe(1);
  });

  it('re-broadcasts a transaction the node dropped from its pool', async () => {
    const sender = await funded();
    const key = keyOf(sender.address);
    await devnet.rpc('evm_setAutomine', [false]);
    let hash: Hex;
    try {
      ({ hash } = await managedTransfer(manager, adapter, sender, sender.address, 1n));
      await devnet.rpc('anvil_dropTransaction', [hash]);
      expect(await adapter.getTransaction(hash)).toBeNull();
      expect((await manager.reconcile(key, adapter)).rebroadcast).toBe(1);
      expect(await adapter.getTransaction(hash)).not.toBeNull();
    } finally {
      await devnet.rpc('evm_setAutomine', [true]);
    }
    await devnet.mine(1);
    expect((await receiptOf(hash))['status']).toBe('0x1');
  });

  it('frees a reservation whose send died before signing, after the TTL', async () => {
    const sender = await funded();
    const key = keyOf(sender.address);
    let now = new Date('2030-01-01T00:00:00Z');
    const clocked = new NonceManager(database.db, database.dialect, {
      now: () => now,
      reservationTtlMs: 60_000,
    });
    // withNonce with a callback that never finishes stands for a process that died mid-send.
    void clocked.withNonce(key, adapter, () => new Promise<string>(() => {}));
    for (let i = 0; i < 100 && (await clocked.pending(key)).length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await clocked.pending(key))[0]).toMatchObject({ nonce: 0, state: 'reserved' });
    expect((await clocked.reconcile(key, adapter)).waiting).toBe(1);
    now = new Date('2030-01-01T00:02:00Z');
    expect((await clocked.reconcile(key, adapter)).released).toBe(1);
    expect(await clocked.storedNextNonce(key)).toBe(0);
  });

  it('gives up after one retry when every fresh nonce is taken too, keeping none of them', async () => {
    const sender = await funded();
    const key = keyOf(sender.address);
    let broadcasts = 0;
    const contested: NonceNode = {
      chain: 'ethereum',
      network: 'mainnet',
      getTransactionCount: (address, block) => adapter.getTransactionCount(address, block),
      broadcast: () => {
        broadcasts++;
        return Promise.reject(new EvmNonceError('too_low', 'nonce too low'));
      },
    };
    const tx = await adapter.buildTransfer(sender.address, sender.address, 1n);
    await expect(
      manager.send(
        key,
        contested,
        async (n) => (await adapter.sign(await withTransactionNonce(tx, n), sender.privateKey)).raw,
      ),
    ).rejects.toBeInstanceOf(EvmNonceError);
    expect(broadcasts).toBe(2);
    expect(await manager.pending(key)).toEqual([]);
  });

  it('refuses a signed transaction that does not carry the nonce it was given, and keeps no nonce for it', async () => {
    const sender = await funded();
    const key = keyOf(sender.address);
    const tx = await adapter.buildTransfer(sender.address, sender.address, 1n);
    await expect(
      manager.send(
        key,
        adapter,
        async (n) => (await adapter.sign(await withTransactionNonce(tx, n + 5), sender.privateKey)).raw,
      ),
    ).rejects.toThrow(/does not carry the nonce/);
    // Nothing was kept: no pending nonce, and the address has no stored nonce yet.
    expect(await manager.pending(key)).toEqual([]);
    expect(await manager.storedNextNonce(key)).toBeNull();
  });

  it('offers withNonce(db, dialect, key, adapter, fn) for callers that broadcast themselves', async () => {
    const sender = await funded();
    const tx = await adapter.buildTransfer(sender.address, sender.address, 1n);
    const hash = await withNonce(
      database.db,
      database.dialect,
      keyOf(sender.address),
      adapter,
      async (nonce) =>
        adapter.broadcast((await adapter.sign(await withTransactionNonce(tx, nonce), sender.privateKey)).raw),
    );
    expect((await receiptOf(hash))['status']).toBe('0x1');
  });
});

describe('two NonceManager instances on one Postgres', () => {
  let devnet: EvmDevnet;
  let first: NonceDatabase;
  let second: NonceDatabase;

  beforeAll(async () => {
    [devnet, first] = await Promise.all([
      startEvmDevnet({ chain: 'polygon' }),
      freshNonceDatabase('postgres'),
    ]);
    second = await first.another();
  });

  afterAll(async () => {
    await devnet?.close();
    await second?.close();
    await first?.close();
  });

  it('interleave 2 x 25 concurrent sends from one address; all land on consecutive nonces', async () => {
    // Two gateway instances: own pools, own adapters (own NodeClients), one database.
    const adapters = [devnetAdapter('polygon', devnet.url), devnetAdapter('polygon', devnet.url)] as const;
    const managers = [new NonceManager(first.db, 'postgres'), new NonceManager(second.db, 'postgres')];
    try {
      const sender = adapters[0].generateKey();
      await devnet.faucetNative(sender.address, 100n * ETHER);
      const recipient = adapters[0].generateKey().address;
      const key = { chain: 'polygon', network: 'mainnet', address: sender.address };
      // Auto-mining paused during the burst, as in the single-instance test (anvil's pool race).
      await devnet.rpc('evm_setAutomine', [false]);
      const sends = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const node = adapters[i % 2]!;
          const tx = await node.buildTransfer(sender.address, recipient, 1n);
          return managers[i % 2]!.send(
            key,
            node,
            async (nonce) => (await node.sign(await withTransactionNonce(tx, nonce), sender.privateKey)).raw,
          );
        }),
      );
      expect(sends.map((s) => s.nonce).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 50 }, (_, i) => i),
      );
      await devnet.rpc('evm_setAutomine', [true]);
      await devnet.mine(1);
      for (
        let i = 0;
        i < 400 && (await adapters[0].getTransactionCount(sender.address, 'latest')) < 50;
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(await adapters[0].getTransactionCount(sender.address, 'latest')).toBe(50);
      expect(await adapters[0].getBalance(recipient)).toBe(50n);
      for (const s of sends) expect((await adapters[1].getReceipt(s.hash))?.['status']).toBe('0x1');
    } finally {
      await Promise.all(adapters.map((a) => a.close()));
    }
  });
});
