// A devnet started on its snapshot is the same chain: every view a client has of it answers alike, and
// new transactions carry on from its head.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hexToBytes } from '@noble/hashes/utils.js';
import { afterAll, describe, expect, it } from 'vitest';
import { hexAddressToBase58, parseAddress } from '../../../devnets/tron/address.ts';
import { startTronDevnet, type TronDevnet } from '../../../devnets/tron/index.ts';
import { signHash } from '../../../devnets/tron/signature.ts';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type TronSnapshot } from '../../../devnets/tron/snapshot.ts';
import { addressWord, post } from './helpers.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-tron-snapshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Two recipients with keys nobody needs: they only receive.
const ALICE = hexAddressToBase58(`41${'a1'.repeat(20)}`);
const BOB = hexAddressToBase58(`41${'b0'.repeat(20)}`);

/** Builds with the node, signs with the faucet key, broadcasts: what a wallet does. */
async function faucetSends(devnet: TronDevnet, endpoint: string, body: Record<string, unknown>) {
  const built = await post<{ txID: string } & Record<string, unknown>>(devnet.url, `/wallet/${endpoint}`, {
    owner_address: devnet.faucet.address,
    ...body,
    visible: true,
  });
  expect(built, endpoint).toHaveProperty('txID');
  const signature = signHash(hexToBytes(built.txID), hexToBytes(devnet.faucet.privateKey));
  const sent = await post(devnet.url, '/wallet/broadcasttransaction', {
    ...built,
    signature: [Buffer.from(signature).toString('hex')],
  });
  expect(sent, endpoint).toMatchObject({ result: true });
  return built.txID;
}

/** Everything a client can read of what the chain holds, head and solidified. */
async function views(devnet: TronDevnet, txids: string[]) {
  const head = (
    await post<{ block_header: { raw_data: { number: number } } }>(devnet.url, '/wallet/getnowblock')
  ).block_header.raw_data.number;
  const out: Record<string, unknown> = { head };
  const usdt = devnet.tokens.trc20.USDT;
  for (const address of [ALICE, BOB, devnet.faucet.address]) {
    for (const root of ['wallet', 'walletsolidity']) {
      out[`${root} account ${address}`] = await post(devnet.url, `/${root}/getaccount`, {
        address,
        visible: true,
      });
      // The answer's transaction is built now (its timestamp is the clock's): only the result is state.
      out[`${root} usdt ${address}`] = await post<{ constant_result: unknown }>(
        devnet.url,
        `/${root}/triggerconstantcontract`,
        {
          owner_address: address,
          contract_address: usdt,
          function_selector: 'balanceOf(address)',
          parameter: addressWord(parseAddress(address) as string),
          visible: true,
        },
      ).then((answer) => answer.constant_result);
    }
    out[`resources ${address}`] = await post(devnet.url, '/wallet/getaccountresource', {
      address,
      visible: true,
    });
  }
  out['delegation'] = await post(devnet.url, '/wallet/getdelegatedresourcev2', {
    fromAddress: devnet.faucet.address,
    toAddress: BOB,
    visible: true,
  });
  out['usdt contract'] = await post(devnet.url, '/wallet/getcontract', { value: usdt, visible: true });
  for (const id of Object.values(devnet.tokens.trc10)) {
    out[`asset ${id}`] = await post(devnet.url, '/wallet/getassetissuebyid', { value: id });
  }
  for (const txid of txids) {
    out[`tx ${txid}`] = await post(devnet.url, '/wallet/gettransactionbyid', { value: txid });
    out[`info ${txid}`] = await post(devnet.url, '/wallet/gettransactioninfobyid', { value: txid });
    out[`solid info ${txid}`] = await post(devnet.url, '/walletsolidity/gettransactioninfobyid', {
      value: txid,
    });
  }
  for (let n = 0; n <= head; n++) {
    out[`block ${n}`] = await post(devnet.url, '/wallet/getblockbynum', { num: n, visible: true });
  }
  return out;
}

describe('Tron devnet snapshot', () => {
  const file = path.join(dir, 'chain.json');

  it('a devnet started on its snapshot answers every read alike and carries on from its head', async () => {
    const first = await startTronDevnet({ blockIntervalMs: null, solidifyLag: 3, snapshotFile: file });
    const txids: string[] = [];
    let before: Record<string, unknown>;
    try {
      txids.push(await first.faucetTrx(ALICE, 25_000_000n));
      txids.push(await first.faucetTrc20(first.tokens.trc20.USDT, ALICE, 7_000_000n));
      await first.faucetTrc721(first.tokens.trc721.NFT, BOB);
      const [assetId] = Object.values(first.tokens.trc10) as [string];
      txids.push(await first.faucetTrc10(assetId, BOB, 3n));
      txids.push(
        await faucetSends(first, 'freezebalancev2', { frozen_balance: 2_000_000_000, resource: 'ENERGY' }),
      );
      await first.mine(1);
      txids.push(
        await faucetSends(first, 'delegateresource', {
          receiver_address: BOB,
          balance: 300_000_000,
          resource: 'ENERGY',
        }),
      );
      txids.push(
        await faucetSends(first, 'unfreezebalancev2', { unfreeze_balance: 500_000_000, resource: 'ENERGY' }),
      );
      txids.push(
        await faucetSends(first, 'createtransaction', { to_address: BOB, amount: 1_000, extra_data: 'memo' }),
      );
      await first.mine(1);
      // The last transfer is within the solidify lag: the solidified view does not show it yet.
      txids.push(await first.faucetTrx(BOB, 5_000_000n));
      before = await views(first, txids);
    } finally {
      await first.close();
    }
    // What is compared holds stake, an unfreeze waiting, a delegation, TRC10 and token balances.
    expect(before[`wallet account ${first.faucet.address}`]).toHaveProperty('unfrozenV2');
    expect(before[`wallet account ${first.faucet.address}`]).toHaveProperty(
      'account_resource.delegated_frozenV2_balance_for_energy',
    );
    expect(before['delegation']).toHaveProperty('delegatedResource');
    expect(before[`wallet account ${BOB}`]).toHaveProperty('assetV2');
    expect(before[`wallet usdt ${ALICE}`]).toEqual([(7_000_000).toString(16).padStart(64, '0')]);
    expect(before[`walletsolidity account ${BOB}`]).not.toEqual(before[`wallet account ${BOB}`]);

    const second = await startTronDevnet({ blockIntervalMs: null, solidifyLag: 3, snapshotFile: file });
    try {
      expect(second.tokens).toEqual(first.tokens);
      expect(await views(second, txids)).toEqual(before);
      // New transactions reference the carried-on head (TaPoS) and land right after it.
      const txid = await second.faucetTrx(ALICE, 1_000_000n);
      const info = await post<{ blockNumber: number }>(second.url, '/wallet/gettransactioninfobyid', {
        value: txid,
      });
      expect(info.blockNumber).toBe((before['head'] as number) + 1);
    } finally {
      await second.close();
    }
  }, 60_000);

  it('is a small versioned JSON: bigints as strings, one world for a run of blocks that left it alike', async () => {
    const own = path.join(dir, 'format.json');
    const devnet = await startTronDevnet({ blockIntervalMs: null, solidifyLag: 19, snapshotFile: own });
    await devnet.faucetTrx(ALICE, 3_000_000n);
    await devnet.mine(35);
    await devnet.close();
    const saved = JSON.parse(readFileSync(own, 'utf8')) as TronSnapshot;
    expect(saved).toMatchObject({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION });
    expect(saved.blocks).toHaveLength(38);
    const alice = parseAddress(ALICE) as string;
    const last = saved.worlds[saved.worlds.length - 1];
    expect(last?.world.accounts[alice]?.balance).toBe('3000000');
    // The worlds kept (the last 32 blocks, the deepest reorg, more than the solidified 19) after 35 empty
    // blocks: one world.
    expect(saved.worlds).toHaveLength(1);
    expect(saved.worlds[0]).toMatchObject({ fromBlock: '5', toBlock: '37' });
  });

  it('saves on a timer, so a devnet that dies without closing keeps what was mined', async () => {
    const own = path.join(dir, 'timer.json');
    const devnet = await startTronDevnet({
      blockIntervalMs: null,
      solidifyLag: 0,
      snapshotFile: own,
      saveIntervalMs: 50,
    });
    try {
      const txid = await devnet.faucetTrx(BOB, 8_000_000n);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Read while the first still runs, as after a kill -9: only its timer wrote the file.
      const copy = path.join(dir, 'timer-copy.json');
      writeFileSync(copy, readFileSync(own));
      const after = await startTronDevnet({ blockIntervalMs: null, solidifyLag: 0, snapshotFile: copy });
      try {
        const info = await post<{ id?: string }>(after.url, '/wallet/gettransactioninfobyid', {
          value: txid,
        });
        expect(info.id).toBe(txid);
      } finally {
        await after.close();
      }
    } finally {
      await devnet.close();
    }
  });

  it('refuses a snapshot of another version, naming --reset', async () => {
    const own = path.join(dir, 'old.json');
    writeFileSync(own, JSON.stringify({ format: SNAPSHOT_FORMAT, version: 99 }));
    await expect(startTronDevnet({ blockIntervalMs: null, snapshotFile: own })).rejects.toThrow(/--reset/);
    writeFileSync(own, '{"format": "switchyard-tron-dev');
    await expect(startTronDevnet({ blockIntervalMs: null, snapshotFile: own })).rejects.toThrow(/--reset/);
  });
});
