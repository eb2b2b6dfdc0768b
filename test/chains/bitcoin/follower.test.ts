import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BitcoinAdapter, bitcoinAdapterFactory } from '../../../src/chains/bitcoin/adapter.ts';
import type { BitcoinTx } from '../../../src/chains/bitcoin/backend.ts';
import { transfersOf } from '../../../src/chains/bitcoin/block-transfers.ts';
import { CoreRpcBackend } from '../../../src/chains/bitcoin/core-rpc.ts';
import { EsploraBackend } from '../../../src/chains/bitcoin/esplora.ts';
import { BITCOIN_FINALITY } from '../../../src/chains/bitcoin/finality.ts';
import { BitcoinFollower } from '../../../src/chains/bitcoin/follower.ts';
import { BITCOIN_NETWORKS } from '../../../src/chains/bitcoin/networks.ts';
import { bitcoinHeadProbe, bitcoinNetworkProbe } from '../../../src/chains/bitcoin/probe.ts';
import type { Env } from '../../../src/config/setting.ts';
import { BLOCK_HASH, block, coinbaseTx, PARENT_HASH, paymentTx, startCoreNode, txid } from './core-node.ts';
import { clientOf, closedAfterEachTest, ESPLORA, json, startEsploraServer, text } from './node-server.ts';

const TX = ESPLORA['GET /tx/:txid']!['response'] as Record<string, unknown>;
const BLOCK = ESPLORA['GET /block/:hash']!['response'] as Record<string, unknown>;
const SENDER = 'bc1qy4a6r67fs7p3m05wu4syry5zfqaldpvg8vsqzz';
const RECEIVER = 'bc1qjj09853tfpztjgrk4jeyzj4ml59fv9cmslv3c4gxxf57u0k3kxmqllx29y';

const open = closedAfterEachTest();

async function esploraTx(): Promise<BitcoinTx> {
  const server = await startEsploraServer(open, () => json(TX));
  const client = clientOf(server.url);
  open.push(client);
  const tx = await new EsploraBackend(client).transaction(TX['txid'] as string);
  if (tx === null) throw new Error('no transaction');
  return tx;
}

describe('transfersOf', () => {
  const where = {
    height: 875626,
    hash: '0000000000000000000086de1f4815ff0f7f0411d846301c5efa1e437130dc22',
    time: 1734720142,
  };

  it('reports the recorded transaction’s output, from the first input’s address', async () => {
    expect(transfersOf(await esploraTx(), where, 'mainnet')).toEqual([
      {
        chain: 'bitcoin',
        network: 'mainnet',
        blockNumber: 875626n,
        blockHash: where.hash,
        txid: TX['txid'],
        logIndex: 0,
        from: SENDER,
        to: RECEIVER,
        contractAddress: null,
        tokenId: null,
        type: 'BTC',
        amountRaw: 2546637n,
        decimals: 8,
        time: new Date(1734720142 * 1000),
      },
    ]);
  });

  it('reports change, leaves out OP_RETURN and addressless outputs, has no sender for a coinbase', async () => {
    const tx = await esploraTx();
    const output = tx.outputs[0]!;
    const spread: BitcoinTx = {
      ...tx,
      outputs: [
        output,
        { n: 1, address: null, script: '6a00', type: 'op_return', value: 0n },
        { n: 2, address: SENDER.toUpperCase(), script: '00', type: 'v0_p2wpkh', value: 5n },
        { n: 3, address: null, script: '51', type: 'unknown', value: 7n },
      ],
    };
    expect(transfersOf(spread, where, 'mainnet').map((t) => [t.logIndex, t.from, t.to, t.amountRaw])).toEqual(
      [
        [0, SENDER, RECEIVER, 2546637n],
        // Bech32 in the lower case webhooks compare.
        [2, SENDER, SENDER, 5n],
      ],
    );
    const coinbase: BitcoinTx = {
      ...tx,
      inputs: [{ txid: '0'.repeat(64), vout: 0xffffffff, coinbase: true, sequence: 0, prevout: null }],
    };
    expect(transfersOf(coinbase, where, 'mainnet')[0]?.from).toBeNull();
  });
});

describe('BitcoinFollower', () => {
  async function follower() {
    const node = await startCoreNode(({ method, params }) => {
      if (method === 'getblockcount') return 101;
      if (method === 'getblockhash') return params[0] === 101 ? BLOCK_HASH : '00'.repeat(32);
      if (method === 'getblock' && params[1] === 1) return { ...block([]), nTx: 2, tx: [txid(1), txid(2)] };
      if (method === 'getblock')
        return block([coinbaseTx(txid(1)), paymentTx(txid(2), { txid: txid(9), vout: 0 })]);
      if (method === 'getrawmempool') return [txid(3)];
      if (method === 'getrawtransaction') return paymentTx(txid(3), { txid: txid(9), vout: 0 });
    });
    const client = clientOf(node.url);
    open.push(client, node);
    return new BitcoinFollower(new CoreRpcBackend(client), 'mainnet');
  }

  it('reads the head, a block with its parent and transfers, and not-yet above the tip', async () => {
    const f = await follower();
    expect(f.finality).toEqual({ finalityDepth: 6, reorgDepth: 10 });
    expect(await f.head()).toBe(101n);
    expect(await f.read(102n)).toEqual({ kind: 'not-yet' });
    const reading = await f.read(101n);
    if (reading.kind !== 'block') throw new Error(`read ${reading.kind}`);
    expect(reading.block).toMatchObject({
      number: 101n,
      hash: BLOCK_HASH,
      parent: { number: 100n, hash: PARENT_HASH },
      time: new Date(1700000000 * 1000),
    });
    expect(
      reading.block.transfers.map((t) => [t.txid, t.logIndex, t.from, t.amountRaw, t.blockNumber]),
    ).toEqual([
      [txid(1), 0, null, 2099999997690000n, 101n],
      [txid(2), 0, 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 10000000n, 101n],
      [txid(2), 1, 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 39990000n, 101n],
    ]);
  });

  it('reports the mempool’s transfers of the addresses, each transaction once, unconfirmed', async () => {
    const f = await follower();
    const transfers = await f.unconfirmed([
      'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080',
      'bcrt1qcr8te4kr609gcawutmrza0j4xv80jy8zeqchgx',
      'bcrt1q8c6fshw2dlwun7ekn9qwf37cu2rn755ufhry49',
    ]);
    expect(transfers.map((t) => [t.txid, t.logIndex, t.blockNumber, t.blockHash])).toEqual([
      [txid(3), 0, 0n, ''],
      [txid(3), 1, 0n, ''],
    ]);
  });
});

describe('BitcoinAdapter', () => {
  const logger = pino({ level: 'silent' });
  const context = (network: 'mainnet' | 'testnet', settings: Env, url = 'http://127.0.0.1:9') => ({
    chain: 'bitcoin' as const,
    network,
    endpoints: [{ url, headers: {} }],
    timeoutMs: 2000,
    retries: 0,
    logger,
    settings,
  });

  it('is built from the settings: backend kind and Bitcoin network', async () => {
    const core = bitcoinAdapterFactory(
      context('testnet', { BITCOIN_TESTNET_BACKEND: 'core', BITCOIN_TESTNET_NETWORK: 'testnet4' }),
    );
    const esplora = bitcoinAdapterFactory(context('mainnet', {}));
    if (!(core instanceof BitcoinAdapter) || !(esplora instanceof BitcoinAdapter))
      throw new Error('not a BitcoinAdapter');
    open.push(core, esplora);
    expect(core.backend).toBeInstanceOf(CoreRpcBackend);
    expect(core.params).toBe(BITCOIN_NETWORKS.testnet4);
    expect(core.follower.finality).toEqual(BITCOIN_FINALITY.testnet);
    expect(esplora.backend).toBeInstanceOf(EsploraBackend);
    expect(esplora.params).toBe(BITCOIN_NETWORKS.mainnet);
    expect([esplora.chain, esplora.nativeSymbol, esplora.nativeDecimals]).toEqual(['bitcoin', 'BTC', 8]);
  });

  it('checks the form of this network’s addresses', () => {
    const mainnet = new BitcoinAdapter({
      network: 'mainnet',
      params: BITCOIN_NETWORKS.mainnet,
      backendKind: 'esplora',
      endpoints: [{ url: 'http://127.0.0.1:9', headers: {} }],
    });
    const regtest = new BitcoinAdapter({
      network: 'testnet',
      params: BITCOIN_NETWORKS.regtest,
      backendKind: 'core',
      endpoints: [{ url: 'http://127.0.0.1:9', headers: {} }],
    });
    open.push(mainnet, regtest);
    for (const good of [
      SENDER,
      RECEIVER,
      SENDER.toUpperCase(),
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
      '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    ]) {
      expect(mainnet.isAddress(good)).toBe(true);
    }
    for (const bad of [
      'bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
      'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
      'bc1qb1',
      'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn',
      '',
    ]) {
      expect(mainnet.isAddress(bad)).toBe(false);
    }
    expect(regtest.isAddress('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080')).toBe(true);
    expect(regtest.isAddress('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn')).toBe(true);
    expect(regtest.isAddress(SENDER)).toBe(false);
  });

  it('reads its block number over the backend', async () => {
    const server = await startEsploraServer(open, (hit) =>
      hit.path === '/blocks/tip/height' ? text('875630') : undefined,
    );
    const adapter = bitcoinAdapterFactory(context('mainnet', {}, server.url));
    if (adapter === null) throw new Error('no adapter');
    open.push(adapter);
    expect(await adapter.getBlockNumber()).toBe(875630n);
  });
});

describe('Bitcoin probes', () => {
  async function esploraGenesis(genesis: string) {
    const server = await startEsploraServer(open, (hit) => {
      if (hit.path === '/block-height/0') return text(genesis);
      if (hit.path === '/blocks/tip/height') return text(String(BLOCK['height']));
    });
    const client = clientOf(server.url, 'testnet');
    open.push(client);
    return client;
  }

  it('names the network an Esplora endpoint serves by its genesis hash', async () => {
    const client = await esploraGenesis(BITCOIN_NETWORKS.testnet.genesisHash);
    expect(await bitcoinNetworkProbe(client, 'testnet', {})).toEqual({
      expected: 'testnet',
      found: 'testnet',
      matches: true,
    });
    expect(await bitcoinNetworkProbe(client, 'testnet', { BITCOIN_TESTNET_NETWORK: 'testnet4' })).toEqual({
      expected: 'testnet4',
      found: 'testnet',
      matches: false,
    });
    expect(await bitcoinHeadProbe(client, 'testnet', {})()).toBe(363366n);
  });

  it('names an unknown chain by its genesis hash', async () => {
    const client = await esploraGenesis('12'.repeat(32));
    expect(await bitcoinNetworkProbe(client, 'mainnet', {})).toEqual({
      expected: 'mainnet',
      found: `genesis hash ${'12'.repeat(32)}`,
      matches: false,
    });
  });

  it('asks a Core endpoint getblockhash 0 and getblockcount', async () => {
    const node = await startCoreNode(({ method }) => {
      if (method === 'getblockhash') return BITCOIN_NETWORKS.regtest.genesisHash;
      if (method === 'getblockcount') return 7;
    });
    const client = clientOf(node.url, 'testnet');
    open.push(client, node);
    const settings = { BITCOIN_TESTNET_BACKEND: 'core', BITCOIN_TESTNET_NETWORK: 'regtest' };
    expect(await bitcoinNetworkProbe(client, 'testnet', settings)).toEqual({
      expected: 'regtest',
      found: 'regtest',
      matches: true,
    });
    expect(await bitcoinHeadProbe(client, 'testnet', settings)()).toBe(7n);
    expect(node.calls).toEqual([
      { method: 'getblockhash', params: [0] },
      { method: 'getblockcount', params: [] },
    ]);
  });
});
