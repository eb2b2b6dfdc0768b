// Esplora's answers compared key by key with the captured shapes in esplora_responses.json: JSON objects,
// plain-text bodies, and the error texts with their statuses.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BitcoinDevnet, startBitcoinDevnet } from '../../../devnets/bitcoin/index.ts';
import { get, getJson, outputTo, postTx, spend, testKey } from './helpers.ts';

type Obj = Record<string, unknown>;
const shapes = JSON.parse(readFileSync('/work/shared/vectors/esplora_responses.json', 'utf8')) as Record<
  string,
  Obj
>;
const sample = (endpoint: string, key: string) => (shapes[endpoint] as Obj)[key] as Obj;

/** Same keys, and the same JSON type under each (recursively into objects and the first array item). */
function expectSameShape(actual: unknown, expected: unknown, path = '$', optional: string[] = []): void {
  if (expected === null || actual === null) return;
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual), path).toBe(true);
    if (expected.length > 0 && (actual as unknown[]).length > 0) {
      expectSameShape((actual as unknown[])[0], expected[0], `${path}[0]`, optional);
    }
    return;
  }
  expect(typeof actual, path).toBe(typeof expected);
  if (typeof expected !== 'object') return;
  const want = Object.keys(expected as Obj).filter((k) => !optional.includes(k));
  expect(Object.keys(actual as Obj).sort(), path).toEqual(want.sort());
  for (const k of want) expectSameShape((actual as Obj)[k], (expected as Obj)[k], `${path}.${k}`, optional);
}

let devnet: BitcoinDevnet;
const erin = testKey('shapes.erin');
const frank = testKey('shapes.frank');
let confirmedTxid: string;
let pendingTxid: string;
let blockHash: string;

beforeAll(async () => {
  devnet = await startBitcoinDevnet({ network: 'mainnet' });
  const funding = await devnet.faucet(devnet.faucetAddress, 2_000_000n);
  await devnet.mine();
  const faucetKey = testKey(Buffer.from(devnet.faucetPrivateKey, 'hex'));
  const coin = { ...(await outputTo(devnet.url, funding, faucetKey.script)), key: faucetKey };
  const tx = spend(
    [coin],
    [
      { script: erin.script, value: 1_000_000n },
      { script: frank.script, value: 990_000n },
    ],
  );
  expect((await postTx(devnet.url, tx.toHex())).status).toBe(200);
  confirmedTxid = tx.getId();
  [blockHash] = (await devnet.mine()) as [string];
  pendingTxid = await devnet.faucet(devnet.faucetAddress, 3_000n);
});
afterAll(async () => {
  await devnet.close();
});

describe('JSON shapes', () => {
  it('GET /block/:hash', async () => {
    const block = await getJson<Obj>(devnet.url, `/block/${blockHash}`);
    expectSameShape(block, sample('GET /block/:hash', 'response'));
    expect(block).toMatchObject({ id: blockHash, height: devnet.height(), tx_count: 2, bits: 0x207fffff });
  });

  it('GET /tx/:txid (confirmed and in the mempool)', async () => {
    const expected = sample('GET /tx/:txid', 'response');
    const tx = await getJson<Obj>(devnet.url, `/tx/${confirmedTxid}`);
    expectSameShape(tx, expected, '$', ['sigops']);
    expect(tx['fee']).toBe(2_000_000 - 1_990_000);
    expect((tx['vout'] as Obj[])[0]).toMatchObject({ scriptpubkey_type: 'v0_p2wpkh', value: 1_000_000 });
    const pending = await getJson<Obj>(devnet.url, `/tx/${pendingTxid}`);
    expect(pending['status']).toEqual(sample('GET /tx/:txid', 'unconfirmed_status'));
  });

  it('a coinbase input: is_coinbase, null prevout', async () => {
    const [coinbase] = await getJson<string[]>(devnet.url, `/block/${blockHash}/txids`);
    const tx = await getJson<{ vin: Obj[] }>(devnet.url, `/tx/${coinbase}`);
    expect(tx.vin[0]).toMatchObject({
      is_coinbase: true,
      prevout: null,
      vout: 4294967295,
      txid: '0'.repeat(64),
    });
  });

  it('GET /tx/:txid/status, /block/:hash/txs', async () => {
    expectSameShape(
      await getJson(devnet.url, `/tx/${confirmedTxid}/status`),
      sample('GET /tx/:txid/status', 'response'),
    );
    const txs = await getJson<Obj[]>(devnet.url, `/block/${blockHash}/txs`);
    expect(txs).toHaveLength(2);
    const abbrev = sample('GET /block/:hash/txs[/:start_index]', 'response_first_item_abbrev');
    expect(Object.keys(txs[0] as Obj).sort()).toEqual(Object.keys(abbrev).sort());
    expect((await get(devnet.url, `/block/${blockHash}/txs/1`)).status).toBe(400);
  });

  it('GET /address/:a and /address/:a/utxo', async () => {
    const address = await getJson<Obj>(devnet.url, `/address/${erin.address.replace(/^bcrt/, 'bc')}`).catch(
      () => null,
    );
    void address;
    const mainnetErin = (
      await getJson<{ vout: { scriptpubkey_address: string }[] }>(devnet.url, `/tx/${confirmedTxid}`)
    ).vout[0]?.scriptpubkey_address as string;
    expect(mainnetErin).toMatch(/^bc1q/);
    const stats = await getJson<Obj>(devnet.url, `/address/${mainnetErin}`);
    expectSameShape(stats, sample('GET /address/:address', 'response_shape'));
    expect(stats['chain_stats']).toEqual({
      funded_txo_count: 1,
      funded_txo_sum: 1_000_000,
      spent_txo_count: 0,
      spent_txo_sum: 0,
      tx_count: 1,
    });
    const utxo = await getJson<Obj[]>(devnet.url, `/address/${mainnetErin}/utxo`);
    expectSameShape(utxo, sample('GET /address/:address/utxo', 'response'));
    expect(utxo).toEqual([
      {
        txid: confirmedTxid,
        vout: 0,
        status: {
          confirmed: true,
          block_height: devnet.height(),
          block_hash: blockHash,
          block_time: expect.any(Number),
        },
        value: 1_000_000,
      },
    ]);
    const txs = await getJson<Obj[]>(devnet.url, `/address/${mainnetErin}/txs`);
    expect(txs.map((t) => t['txid'])).toEqual([confirmedTxid]);
  });

  it('the faucet address lists mempool transactions first', async () => {
    const txs = await getJson<Obj[]>(devnet.url, `/address/${devnet.faucetAddress}/txs`);
    expect(txs[0]?.['txid']).toBe(pendingTxid);
    expect(txs.length).toBe(1 + 25);
    const mempoolOnly = await getJson<Obj[]>(devnet.url, `/address/${devnet.faucetAddress}/txs/mempool`);
    expect(mempoolOnly.map((t) => t['txid'])).toEqual([pendingTxid]);
    const chainPage = await getJson<Obj[]>(devnet.url, `/address/${devnet.faucetAddress}/txs/chain`);
    expect(chainPage).toHaveLength(25);
    const next = await getJson<Obj[]>(
      devnet.url,
      `/address/${devnet.faucetAddress}/txs/chain/${chainPage[24]?.['txid']}`,
    );
    expect(next).toHaveLength(25);
    expect(next[0]?.['txid']).not.toBe(chainPage[24]?.['txid']);
  });

  it('GET /mempool, /fee-estimates, /tx/:txid/outspends, /blocks', async () => {
    const mempool = await getJson<Obj>(devnet.url, '/mempool');
    expectSameShape(mempool, sample('GET /mempool', 'response'));
    expect(mempool['count']).toBe(1);
    const fees = await getJson<Obj>(devnet.url, '/fee-estimates');
    for (const key of Object.keys(sample('GET /fee-estimates', 'response_example')))
      expect(typeof fees[key]).toBe('number');
    const outspends = await getJson<Obj[]>(devnet.url, `/tx/${confirmedTxid}/outspends`);
    expect(outspends).toEqual([{ spent: false }, { spent: false }]);
    const blocks = await getJson<Obj[]>(devnet.url, '/blocks');
    expect(blocks).toHaveLength(10);
    expect(blocks[0]?.['id']).toBe(blockHash);
    expect((await getJson<Obj[]>(devnet.url, '/blocks/5')).map((b) => b['height'])).toEqual([
      5, 4, 3, 2, 1, 0,
    ]);
  });
});

describe('plain text and errors', () => {
  it('text bodies: tip height and hash, block-height, tx hex, block header', async () => {
    const height = await get(devnet.url, '/blocks/tip/height');
    expect(height.type).toMatch(/^text\/plain/);
    expect(height.text).toBe(String(devnet.height()));
    expect((await get(devnet.url, '/blocks/tip/hash')).text).toBe(blockHash);
    expect((await get(devnet.url, `/block-height/${devnet.height()}`)).text).toBe(blockHash);
    expect((await get(devnet.url, `/tx/${confirmedTxid}/hex`)).text).toMatch(/^02000000/);
    expect((await get(devnet.url, `/block/${blockHash}/header`)).text).toHaveLength(160);
  });

  it('error texts and statuses of electrs', async () => {
    const unknown = 'ab'.repeat(32);
    expect(await get(devnet.url, `/tx/${unknown}`)).toMatchObject({
      status: 404,
      text: 'Transaction not found',
    });
    expect(await get(devnet.url, `/tx/${unknown}/status`)).toMatchObject({
      status: 404,
      text: 'Transaction not found',
    });
    expect(await get(devnet.url, `/block/${unknown}`)).toMatchObject({
      status: 404,
      text: 'Block not found',
    });
    expect(await get(devnet.url, '/block-height/99999')).toMatchObject({
      status: 404,
      text: 'Block not found',
    });
    expect(await get(devnet.url, '/address/nonsense')).toMatchObject({
      status: 400,
      text: 'Invalid Bitcoin address',
    });
    expect(await get(devnet.url, `/address/${erin.address}`)).toMatchObject({
      status: 400,
      text: 'Address on invalid network',
    });
    const err = await get(devnet.url, '/tx/zz');
    expect(err.type).toMatch(/^text\/plain/);
  });
});
