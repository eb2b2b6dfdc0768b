// Blocks: each masterchain block links to the one before and reports the network's global_id; a
// basechain block beside it holds the transactions; bad requests get the indexer's error answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../../devnets/ton/index.ts';
import { getJson, newWallet, postJson } from './helpers.ts';

interface Block {
  workchain: number;
  shard: string;
  seqno: number;
  root_hash: string;
  global_id: number;
  gen_utime: string;
  prev_blocks: { workchain: number; shard: string; seqno: number }[];
  tx_count: number;
}

let mainnet: TonDevnet;
beforeAll(async () => {
  mainnet = await startTonDevnet({ blockIntervalMs: null });
});
afterAll(async () => {
  await mainnet?.close();
});

describe('TON devnet: blocks', () => {
  it('links each masterchain block to the last and reports global_id -239', async () => {
    await mainnet.fund(newWallet().address.toString(), 1_000_000_000n);
    await mainnet.advance(2);
    const info = (await getJson(mainnet.url, '/api/v3/masterchainInfo')) as { last: Block; first: Block };
    expect(info.last.workchain).toBe(-1);
    expect(info.first.seqno).toBe(0);
    const seqno = info.last.seqno;
    expect(seqno).toBeGreaterThanOrEqual(3);
    const seen = new Set<string>();
    for (let s = seqno; s >= seqno - 2; s--) {
      const { blocks } = (await getJson(mainnet.url, `/api/v3/blocks?workchain=-1&seqno=${s}`)) as {
        blocks: Block[];
      };
      expect(blocks).toHaveLength(1);
      const [block] = blocks;
      expect(block).toMatchObject({ workchain: -1, shard: '8000000000000000', seqno: s, global_id: -239 });
      expect(block?.prev_blocks).toEqual([{ workchain: -1, shard: '8000000000000000', seqno: s - 1 }]);
      expect(typeof block?.gen_utime).toBe('string');
      seen.add(block?.root_hash ?? '');
    }
    expect(seen.size).toBe(3);
    // The funding's block has a basechain block with its transactions.
    const { blocks } = (await getJson(mainnet.url, `/api/v3/blocks?workchain=0&seqno=${seqno - 2}`)) as {
      blocks: Block[];
    };
    expect(blocks[0]).toMatchObject({ workchain: 0, seqno: seqno - 2 });
    expect(blocks[0]?.tx_count).toBeGreaterThan(0);
  });

  it('closes blocks on its timer, with global_id -3 on testnet', async () => {
    const testnet = await startTonDevnet({ blockIntervalMs: 50, globalId: -3 });
    try {
      expect(testnet.faucet.address.startsWith('0Q') || testnet.faucet.address.startsWith('kQ')).toBe(true);
      await expect
        .poll(
          async () => ((await getJson(testnet.url, '/api/v3/masterchainInfo')) as { last: Block }).last.seqno,
        )
        .toBeGreaterThanOrEqual(3);
      const { last } = (await getJson(testnet.url, '/api/v3/masterchainInfo')) as { last: Block };
      expect(last.global_id).toBe(-3);
    } finally {
      await testnet.close();
    }
  });

  it('answers bad requests as the indexer does', async () => {
    expect(await postJson(mainnet.url, '/api/v3/message', { boc: 'bm90IGEgYm9j' })).toMatchObject({
      status: 422,
      json: { error: expect.any(String) },
    });
    expect((await postJson(mainnet.url, '/api/v3/message', {})).status).toBe(401);
    expect((await postJson(mainnet.url, '/api/v3/message', '{not json')).status).toBe(422);
    expect(await getJson(mainnet.url, '/api/v3/walletInformation?address=nonsense', 422)).toHaveProperty(
      'error',
    );
    expect(await getJson(mainnet.url, '/api/v3/walletInformation', 401)).toHaveProperty('error');
    expect(await getJson(mainnet.url, '/api/v3/transactions?hash=xyz', 422)).toHaveProperty('error');
    expect(await getJson(mainnet.url, `/api/v3/account?address=${newWallet().address}`, 404)).toEqual({
      error: 'account not found',
    });
    expect((await fetch(`${mainnet.url}/api/v3/nothing`)).status).toBe(404);
    const big = await postJson(mainnet.url, '/api/v3/message', { boc: 'A'.repeat(5 * 1024 * 1024) });
    expect(big.status).toBe(413);
  });
});
