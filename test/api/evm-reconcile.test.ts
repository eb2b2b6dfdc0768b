import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../devnets/evm/index.ts';
import type { EvmAdapter } from '../../src/chains/evm/adapter.ts';
import { generateEvmKey } from '../../src/chains/evm/keys.ts';
import { NonceManager } from '../../src/chains/evm/nonce-manager.ts';
import { NonceReconciler } from '../../src/chains/evm/nonce-reconciler.ts';
import { withTransactionNonce } from '../../src/chains/evm/transactions.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

/** A send whose broadcast got no answer stays tracked, and the reconciler gets it onto the chain. */
let devnet: EvmDevnet;
let gw: TestGateway;

beforeAll(async () => {
  devnet = await startEvmDevnet({ chain: 'ethereum' });
  gw = await startGateway({ env: { ETHEREUM_MAINNET_URLS: devnet.url } });
}, 120_000);

afterAll(async () => {
  await gw?.close();
  await devnet?.close();
});

describe('nonce reconciler', () => {
  it('re-broadcasts a sent transaction the node never got, then forgets it once mined', async () => {
    const adapter = gw.ctx.registry.get<EvmAdapter>('ethereum', 'mainnet');
    const sender = generateEvmKey();
    const receiver = generateEvmKey();
    await devnet.faucetNative(sender.address, parseEther('1'));
    const nonces = new NonceManager(gw.ctx.store.db, gw.ctx.store.dialect);
    // The answer to the broadcast is lost: the manager keeps the signed transaction as sent.
    const lostAnswer = {
      chain: adapter.chain,
      network: adapter.network,
      getTransactionCount: adapter.getTransactionCount.bind(adapter),
      broadcast: async () => {
        throw new Error('socket hang up');
      },
    };
    const tx = await adapter.buildTransfer(sender.address, receiver.address, parseEther('0.1'));
    await expect(
      nonces.send(
        { chain: 'ethereum', network: 'mainnet', address: sender.address },
        lostAnswer,
        async (nonce) => (await adapter.sign(withTransactionNonce(tx, nonce), sender.privateKey)).raw,
      ),
    ).rejects.toThrow();
    expect(await adapter.getBalance(receiver.address)).toBe(0n);
    const pending = () => gw.ctx.store.db.selectFrom('evm_pending').selectAll().execute();
    expect((await pending()).map((r) => r.state)).toEqual(['sent']);

    const reconciler = new NonceReconciler(
      gw.ctx.store.db,
      gw.ctx.store.dialect,
      gw.ctx.registry,
      createLogger('silent'),
    );
    await reconciler.runOnce();
    await devnet.mine(1);
    expect(await adapter.getBalance(receiver.address)).toBe(parseEther('0.1'));
    await reconciler.runOnce();
    expect(await pending()).toEqual([]);
  });
});
