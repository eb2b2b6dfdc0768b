import { describe, expect, it } from 'vitest';
import { BitcoinAnswerError } from '../../../src/chains/bitcoin/answer-reader.ts';
import { BroadcastRefusedError } from '../../../src/chains/bitcoin/backend.ts';
import { EsploraBackend } from '../../../src/chains/bitcoin/esplora.ts';
import { NodeError, NodeUnavailableError } from '../../../src/chains/node-client.ts';
import {
  clientOf,
  closedAfterEachTest,
  ESPLORA,
  type Hit,
  json,
  type Reply,
  startEsploraServer,
  text,
} from './node-server.ts';

const BLOCK = ESPLORA['GET /block/:hash']!['response'] as Record<string, unknown>;
const TX = ESPLORA['GET /tx/:txid']!['response'] as Record<string, unknown>;
const UTXOS = ESPLORA['GET /address/:address/utxo']!;
const FEES = ESPLORA['GET /fee-estimates']!['response_example'];
const BLOCK_HASH = BLOCK['id'] as string;
const TXID = TX['txid'] as string;
const ADDRESS = 'bc1qjj09853tfpztjgrk4jeyzj4ml59fv9cmslv3c4gxxf57u0k3kxmqllx29y';

const open = closedAfterEachTest();

async function esplora(route: (hit: Hit) => Reply | undefined, retries = 0) {
  const server = await startEsploraServer(open, route);
  const client = clientOf(server.url, 'mainnet', retries);
  open.push(client);
  return { backend: new EsploraBackend(client), server };
}

/** A transaction of the vector's shape with its own txid, paying `value` to ADDRESS. */
function txNumbered(i: number): Record<string, unknown> {
  return { ...TX, txid: i.toString(16).padStart(64, '0') };
}

describe('EsploraBackend reads', () => {
  it('reads the tip height and block hashes as text, 404 above the tip as null', async () => {
    const { backend } = await esplora((hit) => {
      if (hit.path === '/blocks/tip/height')
        return text(ESPLORA['GET /blocks/tip/height']!['response_body'] as string);
      if (hit.path === '/block-height/363366') return text(BLOCK_HASH);
      if (hit.path === '/block-height/999999') return text('Block not found', 404);
    });
    expect(await backend.tipHeight()).toBe(698767);
    expect(await backend.blockHash(363366)).toBe(BLOCK_HASH);
    expect(await backend.blockHash(999999)).toBeNull();
  });

  it('reads a block header (by hash or height) from the recorded block', async () => {
    const { backend } = await esplora((hit) => {
      if (hit.path === `/block/${BLOCK_HASH}`) return json(BLOCK);
      if (hit.path === '/block-height/363366') return text(BLOCK_HASH);
    });
    const expected = {
      hash: BLOCK_HASH,
      height: 363366,
      previousHash: BLOCK['previousblockhash'],
      time: 1435766771,
      txCount: 494,
      size: 286494,
      weight: 1145976,
      merkleRoot: BLOCK['merkle_root'],
      version: 2,
      bits: 404111758,
      nonce: 2892644888,
      difficulty: 49402014931.2275,
      mediantime: 1435763435,
    };
    expect(await backend.blockHeader(BLOCK_HASH)).toEqual(expected);
    expect(await backend.blockHeader('363366')).toEqual(expected);
    expect(await backend.blockHeader('f'.repeat(64))).toBeNull();
  });

  it('normalizes the recorded transaction: sats as bigint, prevouts, status, vsize', async () => {
    const { backend } = await esplora((hit) => {
      if (hit.path === `/tx/${TXID}`) return json(TX);
      if (hit.path === `/tx/${TXID}/hex`) return text('0200000001ab');
      return text('Transaction not found', 404);
    });
    const tx = await backend.transaction(TXID);
    expect(tx).toEqual({
      txid: TXID,
      version: 2,
      locktime: 875625,
      size: 351,
      weight: 756,
      vsize: 189,
      fee: 4206n,
      inputs: [
        {
          txid: 'ce361fed5996aec6d440556383164e9e4e5b8be8c2a213c4b36ae711efda3b3f',
          vout: 1,
          coinbase: false,
          sequence: 4294967294,
          prevout: {
            n: 1,
            address: 'bc1qy4a6r67fs7p3m05wu4syry5zfqaldpvg8vsqzz',
            script: '0014257ba1ebc987831dbe8ee560419282483bf68588',
            type: 'v0_p2wpkh',
            value: 1831200n,
          },
        },
      ],
      outputs: [
        {
          n: 0,
          address: ADDRESS,
          script: '0020949e53d22b4844b92076acb2414abbfd0a96171b87d91c55063269ee3ed1b1b6',
          type: 'v0_p2wsh',
          value: 2546637n,
        },
      ],
      status: {
        confirmed: true,
        blockHeight: 875626,
        blockHash: '0000000000000000000086de1f4815ff0f7f0411d846301c5efa1e437130dc22',
        blockTime: 1734720142,
      },
    });
    expect(await backend.transactionHex(TXID)).toBe('0200000001ab');
    expect(await backend.transaction('e'.repeat(64))).toBeNull();
    expect(await backend.transactionHex('e'.repeat(64))).toBeNull();
  });

  it('reads an unconfirmed transaction and a coinbase (no fee, no prevout)', async () => {
    const coinbase = {
      ...TX,
      fee: 0,
      vin: [
        {
          txid: '0'.repeat(64),
          vout: 4294967295,
          prevout: null,
          is_coinbase: true,
          sequence: 4294967295,
          scriptsig: '03',
        },
      ],
      status: ESPLORA['GET /tx/:txid']!['unconfirmed_status'],
    };
    const { backend } = await esplora(() => json(coinbase));
    const tx = await backend.transaction(TXID);
    expect(tx?.fee).toBeNull();
    expect(tx?.inputs[0]).toEqual({
      txid: '0'.repeat(64),
      vout: 4294967295,
      coinbase: true,
      sequence: 4294967295,
      prevout: null,
    });
    expect(tx?.status).toEqual({ confirmed: false, blockHeight: null, blockHash: null, blockTime: null });
  });

  it('pages a block’s transactions 25 at a time and keeps block order', async () => {
    const count = 60;
    const { backend, server } = await esplora((hit) => {
      if (hit.path === `/block/${BLOCK_HASH}`) return json({ ...BLOCK, tx_count: count });
      const page = /^\/block\/[0-9a-f]{64}\/txs\/(\d+)$/.exec(hit.path);
      if (page) {
        const start = Number(page[1]);
        return json(Array.from({ length: Math.min(25, count - start) }, (_, i) => txNumbered(start + i)));
      }
    });
    const txs = await backend.blockTransactions(BLOCK_HASH);
    expect(txs.map((tx) => Number.parseInt(tx.txid, 16))).toEqual(Array.from({ length: count }, (_, i) => i));
    const pages = server.hits
      .filter((hit) => hit.path.includes('/txs/'))
      .map((hit) => hit.path.split('/').at(-1));
    expect(pages.sort()).toEqual(['0', '25', '50']);
  });

  it('refuses a block whose page is short: a half-read block must not pass as whole', async () => {
    const { backend } = await esplora((hit) => {
      if (hit.path === `/block/${BLOCK_HASH}`) return json({ ...BLOCK, tx_count: 30 });
      if (hit.path.endsWith('/txs/0')) return json([txNumbered(0)]);
      if (hit.path.endsWith('/txs/25')) return json([0, 1, 2, 3, 4].map(txNumbered));
    });
    await expect(backend.blockTransactions(BLOCK_HASH)).rejects.toThrow(
      /page at 0 has 1 transactions, not 25/,
    );
  });

  it('reads balances (mempool may spend more than it adds), UTXOs, address transactions', async () => {
    const { backend } = await esplora((hit) => {
      if (hit.path === `/address/${ADDRESS}`) {
        return json({
          address: ADDRESS,
          chain_stats: {
            funded_txo_count: 3,
            funded_txo_sum: 5000,
            spent_txo_count: 1,
            spent_txo_sum: 1500,
            tx_count: 4,
          },
          mempool_stats: {
            funded_txo_count: 1,
            funded_txo_sum: 300,
            spent_txo_count: 1,
            spent_txo_sum: 1000,
            tx_count: 1,
          },
        });
      }
      if (hit.path === `/address/${ADDRESS}/utxo`)
        return json([...(UTXOS['response'] as unknown[]), UTXOS['unconfirmed_item']]);
      if (hit.path === `/address/${ADDRESS}/txs`) return json([txNumbered(1), txNumbered(2)]);
      if (hit.path === `/address/${ADDRESS}/txs/mempool`) return json([txNumbered(3)]);
    });
    expect(await backend.balance(ADDRESS)).toEqual({ confirmed: 3500n, unconfirmed: -700n, txCount: 5 });
    // The vector's unconfirmed item writes its txid as "..." (elided): read it, it must be refused.
    await expect(backend.utxos(ADDRESS)).rejects.toThrow(BitcoinAnswerError);
    expect((await backend.addressTransactions(ADDRESS)).map((tx) => tx.txid.slice(-1))).toEqual(['1', '2']);
    expect((await backend.mempoolTransactions(ADDRESS)).map((tx) => tx.txid.slice(-1))).toEqual(['3']);
  });

  it('reads the recorded UTXO list, confirmed and unconfirmed', async () => {
    const unconfirmed = { ...(UTXOS['unconfirmed_item'] as object), txid: 'ab'.repeat(32) };
    const { backend } = await esplora(() => json([...(UTXOS['response'] as unknown[]), unconfirmed]));
    expect(await backend.utxos(ADDRESS)).toEqual([
      {
        txid: '12f96289f8f9cd51ccfe390879a46d7eeb0435d9e0af9297776e6bdf249414ff',
        vout: 0,
        value: 644951084n,
        confirmed: true,
        height: 698642,
      },
      { txid: 'ab'.repeat(32), vout: 0, value: 1n, confirmed: false, height: null },
    ]);
  });

  it('reads fee estimates (sat/vB rates by target)', async () => {
    const { backend } = await esplora((hit) => (hit.path === '/fee-estimates' ? json(FEES) : undefined));
    const estimates = await backend.feeEstimates();
    expect(estimates[1]).toBe(87.882);
    expect(estimates[144]).toBe(1.027);
    expect(Object.keys(estimates)).toHaveLength(9);
  });
});

describe('EsploraBackend broadcast', () => {
  const RAW = '0200000001';

  it('posts the raw hex as text/plain and answers the txid', async () => {
    const { backend, server } = await esplora(() => text(TXID));
    expect(await backend.broadcast(RAW)).toBe(TXID);
    expect(server.hits[0]).toMatchObject({
      method: 'POST',
      path: '/tx',
      contentType: 'text/plain',
      body: RAW,
    });
  });

  it.each([
    [
      ESPLORA['POST /tx']!['error_blockstream_since_2024_12'],
      -22,
      'TX decode failed. Make sure the tx has at least one input.',
    ],
    [ESPLORA['POST /tx']!['error_older_and_mempool_style'], -25, 'bad-txns-inputs-missingorspent'],
    [
      'sendrawtransaction RPC error -26: min relay fee not met, 100 < 141',
      -26,
      'min relay fee not met, 100 < 141',
    ],
    ['Invalid hex string', null, 'Invalid hex string'],
  ])('reads the refusal %j', async (body, code, reason) => {
    const { backend } = await esplora(() =>
      text(String(body).replace(/^HTTP 400 text\/plain '|'$/g, ''), 400),
    );
    const refusal = await backend.broadcast(RAW).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BroadcastRefusedError);
    expect(refusal).toMatchObject({ code, reason });
  });
});

describe('EsploraBackend node failures are NodeErrors', () => {
  const cases: [string, Reply][] = [
    ['garbage JSON', { body: '{"txid": nope' }],
    ['a truncated body', { body: JSON.stringify(TX).slice(0, 300) }],
    ['an amount as a string', json({ ...TX, fee: '4206' })],
    ['an amount with decimals', json({ ...TX, vout: [{ ...(TX['vout'] as object[])[0], value: 0.025 }] })],
    ['no status', json({ ...TX, status: undefined })],
    ['an array', json([TX])],
    ['a bad hash', json({ ...TX, txid: 'xyz' })],
  ];
  it.each(cases)('%s', async (_, reply) => {
    const { backend } = await esplora(() => reply);
    const error = await backend.transaction(TXID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeError);
    expect(error).toBeInstanceOf(BitcoinAnswerError);
    expect(String(error)).toMatch(/bitcoin mainnet node answered GET \/tx wrongly/);
  });

  it('a tip height that is not a number', async () => {
    const { backend } = await esplora(() => text('<html>oops</html>'));
    await expect(backend.tipHeight()).rejects.toThrow(BitcoinAnswerError);
  });

  it('a node that keeps failing is unavailable, after the retries', async () => {
    const { backend, server } = await esplora(() => text('overloaded', 503), 2);
    await expect(backend.tipHeight()).rejects.toThrow(NodeUnavailableError);
    expect(server.hits).toHaveLength(3);
  });
});
