// Bitcoin Core's JSON-RPC front: auth, envelopes (1.0, 2.0, batches), errors with Core's codes and HTTP
// statuses, and the methods' shapes over the same chain the Esplora front shows.
import { sha256 } from '@noble/hashes/sha2.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BitcoinDevnet, startBitcoinDevnet } from '../../../devnets/bitcoin/index.ts';
import { call, getJson, outputTo, rpc, rpcRaw, spend, testKey } from './helpers.ts';

let devnet: BitcoinDevnet;
const gina = testKey('rpc.gina');
const hank = testKey('rpc.hank');
let minedTxid: string;
let pendingTxid: string;
let blockHash: string;

beforeAll(async () => {
  devnet = await startBitcoinDevnet();
  const funding = await devnet.faucet(gina.address, 123_456_789n);
  [blockHash] = (await devnet.mine()) as [string];
  minedTxid = funding;
  const coin = { ...(await outputTo(devnet.url, funding, gina.script)), key: gina };
  pendingTxid = await call<string>(devnet.coreUrl, 'sendrawtransaction', [
    spend([coin], [{ script: hank.script, value: 123_000_000n }]).toHex(),
  ]);
});
afterAll(async () => {
  await devnet.close();
});

describe('transport', () => {
  it('wants basic auth devnet:devnet', async () => {
    const url = new URL(devnet.coreUrl);
    url.username = '';
    url.password = '';
    const res = await fetch(url, { method: 'POST', body: '{"method":"getblockcount","params":[],"id":1}' });
    expect(res.status).toBe(401);
    expect((await fetch(url)).status).toBe(405);
    const wrong = new URL(devnet.coreUrl);
    wrong.password = 'nope';
    expect((await rpcRaw(wrong.toString(), { method: 'getblockcount', id: 1 })).status).toBe(401);
  });

  it('answers JSON-RPC 1.0 errors with HTTP 500 (404 for an unknown method), 2.0 with 200', async () => {
    const unknown = await rpc(devnet.coreUrl, 'nosuchmethod');
    expect(unknown.status).toBe(404);
    expect(unknown.error).toEqual({ code: -32601, message: 'Method not found' });
    const missing = await rpc(devnet.coreUrl, 'getblock', ['00'.repeat(32)]);
    expect(missing.status).toBe(500);
    expect(JSON.parse(missing.text)).toEqual({
      result: null,
      error: { code: -5, message: 'Block not found' },
      id: 'test',
    });
    const v2 = await rpcRaw(devnet.coreUrl, {
      jsonrpc: '2.0',
      method: 'getblockhash',
      params: [9999],
      id: 7,
    });
    expect(v2.status).toBe(200);
    expect(JSON.parse(v2.text)).toEqual({
      jsonrpc: '2.0',
      error: { code: -8, message: 'Block height out of range' },
      id: 7,
    });
    const ok2 = await rpcRaw(devnet.coreUrl, { jsonrpc: '2.0', method: 'getblockcount', id: 8 });
    expect(JSON.parse(ok2.text)).toEqual({ jsonrpc: '2.0', result: devnet.height(), id: 8 });
  });

  it('answers batches in order, and a parse error with -32700', async () => {
    const batch = await rpcRaw(devnet.coreUrl, [
      { method: 'getblockcount', id: 1 },
      { method: 'getbestblockhash', id: 2 },
      { method: 'nosuch', id: 3 },
    ]);
    expect(batch.status).toBe(200);
    const answers = JSON.parse(batch.text) as {
      id: number;
      result: unknown;
      error: { code: number } | null;
    }[];
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    expect(answers[0]?.result).toBe(devnet.height());
    expect(answers[1]?.result).toBe(blockHash);
    expect(answers[2]?.error?.code).toBe(-32601);
    const url = new URL(devnet.coreUrl);
    const auth = Buffer.from('devnet:devnet').toString('base64');
    url.username = '';
    url.password = '';
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Basic ${auth}` },
      body: '{oops',
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: { code: -32700 } });
  });

  it('takes named parameters', async () => {
    const reply = await rpcRaw(devnet.coreUrl, { method: 'getblockhash', params: { height: 0 }, id: 1 });
    expect(JSON.parse(reply.text).result).toBe(
      '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
    );
  });
});

describe('methods', () => {
  it('getblock at verbosity 0..3 and getblockheader', async () => {
    const hex = await call<string>(devnet.coreUrl, 'getblock', [blockHash, 0]);
    expect(hex.slice(0, 160)).toBe(await call<string>(devnet.coreUrl, 'getblockheader', [blockHash, false]));
    const v1 = await call<{ tx: string[]; height: number; confirmations: number; bits: string }>(
      devnet.coreUrl,
      'getblock',
      [blockHash],
    );
    expect(v1).toMatchObject({ height: devnet.height(), confirmations: 1, bits: '207fffff' });
    expect(v1.tx).toEqual(await getJson(devnet.url, `/block/${blockHash}/txids`));
    const v2 = await call<{ tx: { txid: string; fee?: number; vin: { prevout?: unknown }[] }[] }>(
      devnet.coreUrl,
      'getblock',
      [blockHash, 2],
    );
    expect(v2.tx[1]?.txid).toBe(minedTxid);
    expect(typeof v2.tx[1]?.fee).toBe('number');
    expect(v2.tx[1]?.vin[0]?.prevout).toBeUndefined();
    const v3 = await call<{ tx: { vin: { prevout?: { generated: boolean; value: number } }[] }[] }>(
      devnet.coreUrl,
      'getblock',
      [blockHash, 3],
    );
    expect(v3.tx[1]?.vin[0]?.prevout).toMatchObject({ generated: true, value: 50 });
  });

  it('writes difficulty as Core does (16 significant digits) and real wtxids', async () => {
    const info = await rpcRaw(devnet.coreUrl, { method: 'getblockchaininfo', id: 1 });
    expect(info.text).toContain('"difficulty":4.656542373906925e-10,');
    const block = await call<{
      tx: { txid: string; hash: string; hex: string; vout: { scriptPubKey: { hex: string } }[] }[];
    }>(devnet.coreUrl, 'getblock', [blockHash, 2]);
    const [coinbase, funding] = block.tx as [(typeof block.tx)[0], (typeof block.tx)[0]];
    const dsha = (b: Uint8Array) => sha256(sha256(b));
    const wtxid = (hex: string) =>
      Buffer.from(dsha(Buffer.from(hex, 'hex')))
        .reverse()
        .toString('hex');
    expect(coinbase.hash).toBe(wtxid(coinbase.hex));
    expect(coinbase.hash).not.toBe(coinbase.txid); // it carries the witness reserved value
    expect(funding.hash).toBe(wtxid(funding.hex));
    // BIP-141: the coinbase commits to the witness merkle root (coinbase counted as zero) and zero reserved value
    const root = dsha(Buffer.concat([Buffer.alloc(32), Buffer.from(funding.hash, 'hex').reverse()]));
    const commitment = Buffer.from(dsha(Buffer.concat([root, Buffer.alloc(32)]))).toString('hex');
    expect(coinbase.vout[1]?.scriptPubKey.hex).toBe(`6a24aa21a9ed${commitment}`);
  });

  it('getrawtransaction: hex, verbose, verbosity 2, mempool, unknown', async () => {
    expect(await call(devnet.coreUrl, 'getrawtransaction', [minedTxid])).toBe(
      await fetch(`${devnet.url}/tx/${minedTxid}/hex`).then((r) => r.text()),
    );
    const verbose = await call<Record<string, unknown>>(devnet.coreUrl, 'getrawtransaction', [
      minedTxid,
      true,
    ]);
    expect(verbose).toMatchObject({ txid: minedTxid, blockhash: blockHash, confirmations: 1 });
    expect(verbose['fee']).toBeUndefined();
    const raw = await rpcRaw(devnet.coreUrl, {
      method: 'getrawtransaction',
      params: [pendingTxid, 2],
      id: 1,
    });
    // amounts are written with their 8 places
    expect(raw.text).toContain('"value":1.23000000,');
    expect(raw.text).toContain('"value":1.23456789,');
    expect(raw.text).toContain('"fee":0.00456789,');
    expect(raw.text).not.toContain('blockhash');
    const unknown = await rpc(devnet.coreUrl, 'getrawtransaction', ['ab'.repeat(32)]);
    expect(unknown.error).toEqual({
      code: -5,
      message: 'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.',
    });
  });

  it('testmempoolaccept and the mempool views', async () => {
    const [accepted] = await call<{ allowed: boolean; 'reject-reason'?: string }[]>(
      devnet.coreUrl,
      'testmempoolaccept',
      [[await call<string>(devnet.coreUrl, 'getrawtransaction', [pendingTxid])]],
    );
    expect(accepted).toMatchObject({ allowed: false, 'reject-reason': 'txn-already-in-mempool' });
    expect(await call(devnet.coreUrl, 'getrawmempool')).toEqual([pendingTxid]);
    const verbose = await call<
      Record<string, { fees: { base: number }; vsize: number; 'bip125-replaceable': boolean }>
    >(devnet.coreUrl, 'getrawmempool', [true]);
    expect(verbose[pendingTxid]).toMatchObject({ fees: { base: 0.00456789 }, 'bip125-replaceable': true });
    expect(await call(devnet.coreUrl, 'getmempoolentry', [pendingTxid])).toEqual(verbose[pendingTxid]);
    expect((await rpc(devnet.coreUrl, 'getmempoolentry', [minedTxid])).error).toEqual({
      code: -5,
      message: 'Transaction not in mempool',
    });
  });

  it('gettxout sees mempool spends and outputs', async () => {
    expect(await call(devnet.coreUrl, 'gettxout', [minedTxid, 0])).toBeNull();
    expect(await call(devnet.coreUrl, 'gettxout', [minedTxid, 0, false])).toMatchObject({
      confirmations: 1,
      value: 1.23456789,
    });
    expect(await call(devnet.coreUrl, 'gettxout', [pendingTxid, 0])).toMatchObject({
      confirmations: 0,
      value: 1.23,
      scriptPubKey: { address: hank.address, type: 'witness_v0_keyhash' },
    });
  });

  it('scantxoutset finds confirmed coins by addr() descriptors', async () => {
    const scan = await rpcRaw(devnet.coreUrl, {
      method: 'scantxoutset',
      params: ['start', [{ desc: `addr(${gina.address})` }]],
      id: 1,
    });
    const parsed = JSON.parse(scan.text).result as {
      unspents: Record<string, unknown>[];
      success: boolean;
      height: number;
    };
    expect(parsed).toMatchObject({ success: true, height: devnet.height() });
    expect(parsed.unspents).toEqual([
      expect.objectContaining({
        txid: minedTxid,
        vout: 0,
        amount: 1.23456789,
        coinbase: false,
        height: devnet.height(),
      }),
    ]);
    expect(scan.text).toContain('"total_amount":1.23456789}');
    expect(String(parsed.unspents[0]?.['desc'])).toMatch(
      new RegExp(`^addr\\(${gina.address}\\)#[a-z0-9]{8}$`),
    );
    const bare = await call<{ unspents: unknown[] }>(devnet.coreUrl, 'scantxoutset', [
      'start',
      [`addr(${hank.address})`],
    ]);
    expect(bare.unspents).toEqual([]);
  });

  it('generatetoaddress mines blocks paying the address', async () => {
    const before = devnet.height();
    const hashes = await call<string[]>(devnet.coreUrl, 'generatetoaddress', [2, hank.address]);
    expect(hashes).toHaveLength(2);
    expect(devnet.height()).toBe(before + 2);
    const [coinbase] = await getJson<string[]>(devnet.url, `/block/${hashes[0]}/txids`);
    const tx = await getJson<{ vout: { scriptpubkey_address?: string; value: number }[] }>(
      devnet.url,
      `/tx/${coinbase}`,
    );
    expect(tx.vout[0]?.scriptpubkey_address).toBe(hank.address);
    expect((await rpc(devnet.coreUrl, 'generatetoaddress', [1, 'nonsense'])).error?.code).toBe(-5);
  });

  it('sendrawtransaction refuses a fee over maxfeerate with -25', async () => {
    const coinTx = await devnet.faucet(gina.address, 1_000_000n);
    await devnet.mine();
    const coin = { ...(await outputTo(devnet.url, coinTx, gina.script)), key: gina };
    const greedy = spend([coin], [{ script: hank.script, value: 500_000n }]);
    const [tested] = await call<{ allowed: boolean; 'reject-reason': string }[]>(
      devnet.coreUrl,
      'testmempoolaccept',
      [[greedy.toHex()], 0.001],
    );
    expect(tested).toMatchObject({ allowed: false, 'reject-reason': 'max-fee-exceeded' });
    const [fine] = await call<{ allowed: boolean; vsize: number }[]>(devnet.coreUrl, 'testmempoolaccept', [
      [greedy.toHex()],
      0,
    ]);
    expect(fine).toMatchObject({ allowed: true, vsize: greedy.virtualSize() });
    const refused = await rpc(devnet.coreUrl, 'sendrawtransaction', [greedy.toHex(), 0.001]);
    expect(refused.error).toEqual({
      code: -25,
      message: 'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)',
    });
    expect(await call(devnet.coreUrl, 'sendrawtransaction', [greedy.toHex(), 0])).toBe(greedy.getId());
  });
});
