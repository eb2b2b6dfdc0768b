// snapshotFile: a devnet closed and started again on its file carries on (balances, jettons, blocks and
// transactions, seqnos) and takes new messages.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beginCell, Cell } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../../devnets/ton/index.ts';
import { getJson, newWallet, postJson, sendBoc, transferBoc, txs, walletInfo } from './helpers.ts';

let dir: string;
const running: TonDevnet[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ton-devnet-'));
});
afterAll(async () => {
  await Promise.all(running.map((d) => d.close().catch(() => {})));
  await rm(dir, { recursive: true, force: true });
});

async function start(file: string, saveIntervalMs?: number): Promise<TonDevnet> {
  const devnet = await startTonDevnet({
    blockIntervalMs: null,
    snapshotFile: file,
    ...(saveIntervalMs === undefined ? {} : { saveIntervalMs }),
  });
  running.push(devnet);
  return devnet;
}

async function stop(devnet: TonDevnet): Promise<void> {
  running.splice(running.indexOf(devnet), 1);
  await devnet.close();
}

async function usdtBalance(
  devnet: TonDevnet,
  owner: import('@ton/core').Address,
): Promise<string | undefined> {
  const slice = beginCell().storeAddress(owner).endCell().toBoc().toString('base64');
  const { json } = await postJson(devnet.url, '/api/v3/runGetMethod', {
    address: devnet.tokens.jetton.USDT,
    method: 'get_wallet_address',
    stack: [{ type: 'slice', value: slice }],
  });
  const stack = (json as { stack: { value: string }[] }).stack;
  const wallet = Cell.fromBase64(stack[0]?.value ?? '')
    .beginParse()
    .loadAddress();
  const data = await postJson(devnet.url, '/api/v3/runGetMethod', {
    address: wallet.toString(),
    method: 'get_wallet_data',
    stack: [],
  });
  return (data.json as { stack: { value: string }[] }).stack[0]?.value;
}

describe('TON devnet persistence', () => {
  it('carries on after close and start: balances, jettons, blocks, transactions, seqnos', async () => {
    const file = join(dir, 'chain.json');
    const first = await start(file);
    const alice = newWallet();
    const bob = newWallet();
    await first.fund(alice.address.toString(), 3_000_000_000n);
    await first.mintJetton(first.tokens.jetton.USDT, alice.address.toString(), 9_000_000n);
    const sent = await sendBoc(
      first.url,
      transferBoc(alice, { to: bob.address, value: 500_000_000n, seqno: 0, comment: 'before restart' }),
    );
    await first.advance();
    const [oldTx] = await txs(
      first.url,
      `/api/v3/transactionsByMessage?msg_hash=${encodeURIComponent(sent.message_hash_norm)}`,
    );
    const info = await getJson(first.url, '/api/v3/masterchainInfo');
    const oldBlock = await getJson(
      first.url,
      `/api/v3/transactionsByMasterchainBlock?seqno=${oldTx?.mc_block_seqno}`,
    );
    const aliceInfo = await walletInfo(first.url, alice.address);
    const aliceUsdt = await usdtBalance(first, alice.address);
    expect(aliceUsdt).toBe('0x895440');
    await stop(first);

    const second = await start(file);
    expect(second.faucet).toEqual(first.faucet);
    expect(second.tokens).toEqual(first.tokens);
    expect(await getJson(second.url, '/api/v3/masterchainInfo')).toEqual(info);
    expect(
      await getJson(second.url, `/api/v3/transactionsByMasterchainBlock?seqno=${oldTx?.mc_block_seqno}`),
    ).toEqual(oldBlock);
    expect(
      await txs(second.url, `/api/v3/transactions?hash=${encodeURIComponent(oldTx?.hash ?? '')}`),
    ).toEqual([oldTx]);
    expect(await walletInfo(second.url, alice.address)).toEqual(aliceInfo);
    expect(await walletInfo(second.url, bob.address)).toMatchObject({ balance: '500000000' });
    expect(await usdtBalance(second, alice.address)).toBe(aliceUsdt);

    // The wallet goes on at seqno 1, in the block after the saved head, linked to it.
    const next = await sendBoc(
      second.url,
      transferBoc(alice, { to: bob.address, value: 100_000_000n, seqno: 1 }),
    );
    await second.advance();
    const [newTx] = await txs(
      second.url,
      `/api/v3/transactionsByMessage?msg_hash=${encodeURIComponent(next.message_hash_norm)}`,
    );
    const head = (info as { last: { seqno: number } }).last.seqno;
    expect(newTx?.mc_block_seqno).toBe(head + 1);
    const { blocks } = (await getJson(second.url, `/api/v3/blocks?workchain=-1&seqno=${head + 1}`)) as {
      blocks: { prev_blocks: { seqno: number }[] }[];
    };
    expect(blocks[0]?.prev_blocks).toEqual([{ workchain: -1, shard: '8000000000000000', seqno: head }]);
    await second.mintJetton(second.tokens.jetton.USDT, bob.address.toString(), 1_000_000n);
    await stop(second);

    const third = await start(file);
    expect(await walletInfo(third.url, alice.address)).toMatchObject({ seqno: 2 });
    // Two credits to an account without code, less the storage fee of its second transaction.
    const bobBalance = BigInt((await walletInfo(third.url, bob.address)).balance);
    expect(bobBalance).toBeGreaterThan(599_000_000n);
    expect(bobBalance).toBeLessThanOrEqual(600_000_000n);
    expect(await usdtBalance(third, bob.address)).toBe('0xf4240');
    await stop(third);
  });

  it('saveIntervalMs: the file follows new transactions without a close', async () => {
    const file = join(dir, 'timed.json');
    const devnet = await start(file, 20);
    const before = await readFile(file, 'utf8');
    const carol = newWallet();
    await devnet.fund(carol.address.toString(), 1_000_000_000n);
    await expect.poll(() => readFile(file, 'utf8'), { timeout: 5000 }).not.toBe(before);
    const copy = await start(join(dir, 'timed.json'));
    expect((await walletInfo(copy.url, carol.address)).balance).toBe('1000000000');
    await stop(copy);
    await stop(devnet);
  });

  it('refuses a file saved on the other network', async () => {
    const file = join(dir, 'mainnet.json');
    await stop(await start(file));
    await expect(startTonDevnet({ snapshotFile: file, globalId: -3 })).rejects.toThrow(/another network/);
  });
});
