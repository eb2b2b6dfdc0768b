// Wire shapes of the query endpoints: blocks, solidified view, not-found {}, visible, and the
// little HTTP rules (GET with query, HTTP 413).
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { TronWeb } from 'tronweb';
import { describe, expect, it } from 'vitest';
import { parseAddress } from '../../../devnets/tron/address.ts';
import { blockIdOf, encodeHeaderRaw } from '../../../devnets/tron/block.ts';
import { startTronDevnet, type TronDevnet } from '../../../devnets/tron/index.ts';
import { recoverSigner } from '../../../devnets/tron/signature.ts';
import { post, useTronDevnet } from './helpers.ts';

type BlockJson = {
  blockID: string;
  block_header: {
    raw_data: {
      number?: number;
      txTrieRoot: string;
      witness_address: string;
      parentHash: string;
      version: number;
      timestamp?: number;
    };
    witness_signature: string;
  };
  transactions?: { txID: string }[];
};

let devnet: TronDevnet;
let tw: TronWeb;

useTronDevnet(3, (started, web) => {
  devnet = started;
  tw = web;
});

const block = (num: number) => post<BlockJson>(devnet.url, '/wallet/getblockbynum', { num });

describe('blocks', () => {
  it('chain ids like the real chain: number prefix, sha256(header raw), parentHash links, witness signature', async () => {
    const tx = await tw.transactionBuilder.sendTrx(
      (await tw.createAccount()).address.base58,
      1_000_000,
      devnet.faucet.address,
    );
    await tw.trx.sendRawTransaction(await tw.trx.sign(tx, devnet.faucet.privateKey));
    const [mined] = await devnet.chain.mine(1);
    await devnet.mine(1);
    const head = await post<BlockJson>(devnet.url, '/wallet/getnowblock');
    const n = head.block_header.raw_data.number as number;
    expect(n).toBe(Number(mined?.header.number) + 1);
    expect(head.transactions).toBeUndefined();

    const withTx = await block(n - 1);
    expect(withTx.transactions?.map((t) => t.txID)).toEqual([tx.txID]);
    expect(head.block_header.raw_data.parentHash).toBe(withTx.blockID);
    expect(head.block_header.raw_data.timestamp).toBe(
      (withTx.block_header.raw_data.timestamp as number) + 3000,
    );

    for (const b of [head, withTx]) {
      const r = b.block_header.raw_data;
      expect(b.blockID.slice(0, 16)).toBe(
        BigInt(r.number ?? 0)
          .toString(16)
          .padStart(16, '0'),
      );
      const raw = {
        timestamp: BigInt(r.timestamp ?? 0),
        txTrieRoot: hexToBytes(r.txTrieRoot),
        parentHash: hexToBytes(r.parentHash),
        number: BigInt(r.number ?? 0),
        witnessAddress: r.witness_address,
        version: r.version,
      };
      expect(blockIdOf(raw)).toBe(b.blockID);
      const signer = recoverSigner(
        sha256(encodeHeaderRaw(raw)),
        hexToBytes(b.block_header.witness_signature),
      );
      expect(signer).toBe(r.witness_address);
    }
    expect(head.block_header.raw_data.txTrieRoot).toBe('0'.repeat(64));
    expect(withTx.block_header.raw_data.txTrieRoot).not.toBe('0'.repeat(64));

    // Genesis has no number and no timestamp field (both 0, omitted like mainnet's).
    const genesis = await block(0);
    expect(genesis.block_header.raw_data.number).toBeUndefined();
    expect(genesis.block_header.raw_data.timestamp).toBeUndefined();

    expect(await post(devnet.url, '/wallet/getblockbyid', { value: withTx.blockID })).toEqual(withTx);
    const lite = await post<BlockJson>(devnet.url, '/wallet/getblock', {
      id_or_num: String(n - 1),
      detail: false,
    });
    expect(lite.transactions).toBeUndefined();
    expect(lite.blockID).toBe(withTx.blockID);
    const range = await post<{ block: BlockJson[] }>(devnet.url, '/wallet/getblockbylimitnext', {
      startNum: n - 1,
      endNum: n + 1,
    });
    expect(range.block.map((b) => b.blockID)).toEqual([withTx.blockID, head.blockID]);
    const infos = await post<unknown[]>(devnet.url, '/wallet/gettransactioninfobyblocknum', { num: n - 1 });
    expect(infos).toHaveLength(1);
  });

  it('the solidified head lags by solidifyLag and /walletsolidity/ answers from it', async () => {
    const to = await tw.createAccount();
    const tx = await tw.transactionBuilder.sendTrx(to.address.base58, 7_000_000, devnet.faucet.address);
    await tw.trx.sendRawTransaction(await tw.trx.sign(tx, devnet.faucet.privateKey));
    await devnet.mine(1);
    const head = await post<BlockJson>(devnet.url, '/wallet/getnowblock');
    const solid = await post<BlockJson>(devnet.url, '/walletsolidity/getnowblock');
    expect(solid.block_header.raw_data.number).toBe((head.block_header.raw_data.number as number) - 3);

    const q = { address: to.address.base58, visible: true };
    expect(await post(devnet.url, '/wallet/getaccount', q)).toMatchObject({ balance: 7_000_000 });
    expect(await post(devnet.url, '/walletsolidity/getaccount', q)).toEqual({});
    expect(await post(devnet.url, '/walletsolidity/gettransactionbyid', { value: tx.txID })).toEqual({});
    await devnet.mine(3);
    expect(await post(devnet.url, '/walletsolidity/getaccount', q)).toMatchObject({ balance: 7_000_000 });
    expect(
      await post(devnet.url, '/walletsolidity/gettransactioninfobyid', { value: tx.txID }),
    ).toMatchObject({
      id: tx.txID,
    });
    // Builder endpoints reference the solidified block (trx.reference.block = solid).
    const built = await post<{ raw_data: { ref_block_bytes: string; ref_block_hash: string } }>(
      devnet.url,
      '/wallet/createtransaction',
      { owner_address: devnet.faucet.address, to_address: to.address.base58, amount: 1, visible: true },
    );
    const solidNow = await post<BlockJson>(devnet.url, '/walletsolidity/getnowblock');
    expect(built.raw_data.ref_block_bytes).toBe(solidNow.blockID.slice(12, 16));
    expect(built.raw_data.ref_block_hash).toBe(solidNow.blockID.slice(16, 32));
  });

  it('produces blocks on its own when blockIntervalMs is set', async () => {
    const auto = await startTronDevnet({ blockIntervalMs: 30, solidifyLag: 0 });
    try {
      const start = auto.chain.head.header.number;
      await new Promise((r) => setTimeout(r, 300));
      expect(auto.chain.head.header.number).toBeGreaterThan(start + 2n);
    } finally {
      await auto.close();
    }
  });
});

describe('timed blocks', () => {
  it('makes each at the start of its slot (the multiples of the interval), as a witness does', async () => {
    const timed = await startTronDevnet({ blockIntervalMs: 1_000, solidifyLag: 0 });
    const madeAt: number[] = [];
    const mine = timed.chain.mine.bind(timed.chain);
    timed.chain.mine = (count) => {
      madeAt.push(Date.now());
      return mine(count);
    };
    try {
      await new Promise((r) => setTimeout(r, 2_300));
      expect(madeAt.length).toBeGreaterThanOrEqual(2);
      // Off by the timer's and the event loop's delay at most, whenever the devnet started.
      for (const at of madeAt) expect(Math.min(at % 1_000, 1_000 - (at % 1_000))).toBeLessThan(200);
    } finally {
      await timed.close();
    }
  });
});

describe('lookups and formats', () => {
  it('not found is {} for transactions, infos, blocks, accounts, contracts', async () => {
    const missing = 'ab'.repeat(32);
    const stranger = (await tw.createAccount()).address.hex;
    expect(await post(devnet.url, '/wallet/gettransactionbyid', { value: missing })).toEqual({});
    expect(await post(devnet.url, '/wallet/gettransactioninfobyid', { value: missing })).toEqual({});
    expect(await post(devnet.url, '/wallet/getblockbynum', { num: 1_000_000 })).toEqual({});
    expect(await post(devnet.url, '/wallet/getaccount', { address: stranger })).toEqual({});
    expect(await post(devnet.url, '/wallet/getaccountresource', { address: stranger })).toEqual({});
    expect(await post(devnet.url, '/wallet/getcontract', { value: stranger })).toEqual({});
  });

  it('getaccount: hex by default, base58 with visible=true, balance omitted at zero, frozenV2 BANDWIDTH is {}', async () => {
    const acct = await tw.createAccount();
    await devnet.faucetTrc10(Object.values(devnet.tokens.trc10)[0] as string, acct.address.base58, 5n);
    const hexView = await post<Record<string, unknown>>(devnet.url, '/wallet/getaccount', {
      address: acct.address.hex,
    });
    expect(hexView['address']).toBe(acct.address.hex.toLowerCase());
    expect(hexView['balance']).toBeUndefined();
    expect(hexView['frozenV2']).toEqual([{}, { type: 'ENERGY' }, { type: 'TRON_POWER' }]);
    expect(hexView['owner_permission']).toEqual({
      permission_name: 'owner',
      threshold: 1,
      keys: [{ address: acct.address.hex.toLowerCase(), weight: 1 }],
    });
    const res = await fetch(`${devnet.url}/wallet/getaccount?address=${acct.address.base58}&visible=true`);
    const visible = (await res.json()) as Record<string, unknown>;
    expect(visible['address']).toBe(acct.address.base58);
    expect(visible['create_time']).toBe(Number(devnet.chain.head.header.timestamp) - 3000);
  });

  it('getcontract: java-tron SmartContract shape with abi.entrys', async () => {
    const c = await post<{
      contract_address: string;
      origin_address: string;
      name: string;
      code_hash: string;
      abi: { entrys: { type: string; name?: string; stateMutability?: string; constant?: boolean }[] };
    }>(devnet.url, '/wallet/getcontract', { value: devnet.tokens.trc20.USDT, visible: true });
    expect(c.contract_address).toBe(devnet.tokens.trc20.USDT);
    expect(c.origin_address).toBe(devnet.faucet.address);
    expect(c.name).toBe('TRC20Token');
    expect(c.abi.entrys.find((e) => e.name === 'balanceOf')).toMatchObject({
      type: 'Function',
      stateMutability: 'View',
      constant: true,
    });
    expect(c.abi.entrys.find((e) => e.name === 'Transfer')?.type).toBe('Event');
    const info = await post<{ runtimecode: string }>(devnet.url, '/wallet/getcontractinfo', {
      value: devnet.tokens.trc20.USDT,
      visible: true,
    });
    expect(bytesToHex(keccak_256(hexToBytes(info.runtimecode)))).toBe(c.code_hash);
    const decimals = await tw.transactionBuilder.triggerConstantContract(
      devnet.tokens.trc20.USDT,
      'decimals()',
      {},
      [],
      devnet.faucet.address,
    );
    expect(BigInt(`0x${decimals.constant_result?.[0]}`)).toBe(6n);
  });

  it('validateaddress, getchainparameters and getaccountresource shapes', async () => {
    expect(await post(devnet.url, '/wallet/validateaddress', { address: devnet.faucet.address })).toEqual({
      result: true,
      message: 'Base58check format',
    });
    expect(
      await post(devnet.url, '/wallet/validateaddress', { address: parseAddress(devnet.faucet.address) }),
    ).toEqual({ result: true, message: 'Hex string format' });
    expect(await post(devnet.url, '/wallet/validateaddress', { address: 'T123' })).toEqual({
      result: false,
      message: 'Length error',
    });
    const params = await post<{ chainParameter: { key: string; value?: number }[] }>(
      devnet.url,
      '/wallet/getchainparameters',
    );
    const get = (k: string) => params.chainParameter.find((p) => p.key === k);
    expect(get('getFreeNetLimit')).toEqual({ key: 'getFreeNetLimit', value: 600 });
    expect(get('getCreateNewAccountFeeInSystemContract')?.value).toBe(1_000_000);
    expect(get('getAllowUpdateAccountName')).toEqual({ key: 'getAllowUpdateAccountName' });

    const fresh = await tw.createAccount();
    await devnet.faucetTrx(fresh.address.base58, 1_000_000n);
    const r = await post<Record<string, unknown>>(devnet.url, '/wallet/getaccountresource', {
      address: fresh.address.base58,
      visible: true,
    });
    expect(Object.keys(r).sort()).toEqual(
      ['TotalEnergyLimit', 'TotalEnergyWeight', 'TotalNetLimit', 'TotalNetWeight', 'freeNetLimit'].sort(),
    );
    expect(r['freeNetLimit']).toBe(600);
  });

  it('oversized bodies get HTTP 413; malformed JSON gets a 200 {"Error"}', async () => {
    const big = await fetch(`${devnet.url}/wallet/getaccount`, {
      method: 'POST',
      body: 'x'.repeat(5 * 1024 * 1024),
    });
    expect(big.status).toBe(413);
    const bad = await fetch(`${devnet.url}/wallet/getaccount`, { method: 'POST', body: '{"address":' });
    expect(bad.status).toBe(200);
    expect(Object.keys((await bad.json()) as object)).toEqual(['Error']);
  });
});

describe('reorg', () => {
  const balance = async (address: string) =>
    (await post<{ balance?: number }>(devnet.url, '/wallet/getaccount', { address, visible: true }))
      .balance ?? 0;

  it('replaces the newest blocks: their transactions and balances are gone, the new blocks link to the old base', async () => {
    const receiver = (await tw.createAccount()).address.base58;
    const base = await devnet.mine(1);
    const baseBlock = await block(base);
    const txid = await devnet.faucetTrx(receiver, 2_000_000n);
    const dropped = await block(base + 1);
    expect(dropped.transactions?.map((t) => t.txID)).toContain(txid);
    expect(await balance(receiver)).toBe(2_000_000);

    await devnet.reorg(1);
    const replaced = await block(base + 1);
    expect(replaced.blockID).not.toBe(dropped.blockID);
    expect(replaced.block_header.raw_data.parentHash).toBe(baseBlock.blockID);
    expect(replaced.transactions).toBeUndefined();
    expect(await post(devnet.url, '/wallet/gettransactionbyid', { value: txid })).toEqual({});
    expect(await post(devnet.url, '/wallet/getblockbyid', { value: dropped.blockID })).toEqual({});
    expect(await balance(receiver)).toBe(0);
    // The chain carries on from the new head.
    expect(await devnet.mine(1)).toBe(base + 2);
  });

  it('refuses to reach past the blocks whose world it kept', async () => {
    await expect(devnet.reorg(1_000_000)).rejects.toThrow(/at most 32 blocks/);
  });
});
