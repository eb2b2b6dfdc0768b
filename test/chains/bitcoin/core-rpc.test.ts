import { describe, expect, it } from 'vitest';
import { BitcoinAnswerError } from '../../../src/chains/bitcoin/answer-reader.ts';
import { BroadcastRefusedError } from '../../../src/chains/bitcoin/backend.ts';
import { CoreRpcBackend, CoreRpcError } from '../../../src/chains/bitcoin/core-rpc.ts';
import { type NodeClient, NodeError, NodeUnavailableError } from '../../../src/chains/node-client.ts';
import {
  ADDR_A,
  ADDR_B,
  BLOCK_HASH,
  block,
  btcAmount,
  coinbaseTx,
  PARENT_HASH,
  paymentTx,
  RpcFailure,
  type RpcHandler,
  startCoreNode,
  txid,
} from './core-node.ts';
import { clientOf, closedAfterEachTest, type NodeServer, startNodeServer, text } from './node-server.ts';

const open = closedAfterEachTest();

/** A backend over a Core node answering with `handler`; the client retries twice, so a retried error shows. */
async function core(
  handler: RpcHandler,
  options: { url?: (url: string) => string; mempoolScanLimit?: number; mempoolMaxAgeMs?: number } = {},
) {
  const node = await startCoreNode(handler);
  const client: NodeClient = clientOf((options.url ?? ((u) => u))(node.url), 'mainnet', 2);
  open.push(client, node);
  const { mempoolScanLimit, mempoolMaxAgeMs } = options;
  return { backend: new CoreRpcBackend(client, { mempoolScanLimit, mempoolMaxAgeMs }), node };
}

const notFound = () => {
  throw new RpcFailure(
    -5,
    'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.',
  );
};

describe('CoreRpcBackend reads', () => {
  it('sends JSON-RPC 1.0 to the endpoint URL with its credentials; an error answer is not retried', async () => {
    const { backend, node } = await core(
      ({ method, params }) => {
        if (method === 'getblockcount') return 101;
        if (method === 'getblockhash' && params[0] === 0) return PARENT_HASH;
        if (method === 'getblockhash') throw new RpcFailure(-8, 'Block height out of range');
      },
      { url: (u) => u.replace('http://', 'http://user:secret@') + '/wallet/hot' },
    );
    expect(await backend.tipHeight()).toBe(101);
    expect(await backend.blockHash(0)).toBe(PARENT_HASH);
    expect(await backend.blockHash(102)).toBeNull();
    expect(node.calls.map((c) => c.method)).toEqual(['getblockcount', 'getblockhash', 'getblockhash']);
    const first = node.hits[0]!;
    expect(first.path).toBe('/wallet/hot');
    expect(first.authorization).toBe(`Basic ${Buffer.from('user:secret').toString('base64')}`);
    expect(JSON.parse(first.body)).toMatchObject({ jsonrpc: '1.0', method: 'getblockcount', params: [] });
  });

  it('reads a header through getblock, by hash or height; an unknown block is null', async () => {
    const { backend } = await core(({ method, params }) => {
      if (method === 'getblockhash') return BLOCK_HASH;
      if (method === 'getblock' && params[0] === BLOCK_HASH && params[1] === 1)
        return { ...block([]), nTx: 2, tx: [txid(1), txid(2)] };
      if (method === 'getblock') throw new RpcFailure(-5, 'Block not found');
    });
    const expected = {
      hash: BLOCK_HASH,
      height: 101,
      previousHash: PARENT_HASH,
      time: 1700000000,
      txCount: 2,
      size: 400,
      weight: 1300,
      merkleRoot: 'ef'.repeat(32),
      version: 536870912,
      bits: '207fffff',
      nonce: 3,
      difficulty: 4.656542373906925e-10,
      mediantime: 1699999000,
    };
    expect(await backend.blockHeader(BLOCK_HASH)).toEqual(expected);
    expect(await backend.blockHeader('101')).toEqual(expected);
    expect(await backend.blockHeader('12'.repeat(32))).toBeNull();
  });

  it('reads a block’s transactions at verbosity 3 with exact amounts, prevouts and Esplora’s type names', async () => {
    const coinbase = coinbaseTx(txid(1));
    const payment = paymentTx(txid(2), { txid: txid(9), vout: 0 });
    const { backend, node } = await core(({ method }) =>
      method === 'getblock' ? block([coinbase, payment]) : undefined,
    );
    const [cb, tx] = await backend.blockTransactions(BLOCK_HASH);
    expect(node.calls[0]).toEqual({ method: 'getblock', params: [BLOCK_HASH, 3] });
    const status = { confirmed: true, blockHeight: 101, blockHash: BLOCK_HASH, blockTime: 1700000000 };
    expect(cb).toMatchObject({ fee: null, status, vsize: 141 });
    expect(cb!.inputs).toEqual([
      { txid: '0'.repeat(64), vout: 0xffffffff, coinbase: true, sequence: 4294967295, prevout: null },
    ]);
    expect(cb!.outputs[0]!.value).toBe(2099999997690000n);
    expect(tx).toMatchObject({ txid: txid(2), fee: 10000n, version: 2, weight: 561, status });
    expect(tx!.inputs[0]!.prevout).toEqual({
      n: 0,
      address: ADDR_A,
      script: '0014751e76e8199196d454941c45d1b3a323f1433bd6',
      type: 'v0_p2wpkh',
      value: 50000000n,
    });
    expect(tx!.outputs.map((o) => [o.n, o.address, o.type, o.value])).toEqual([
      [0, ADDR_B, 'v0_p2wpkh', 10000000n],
      [1, ADDR_A, 'v0_p2wpkh', 39990000n],
      [2, null, 'op_return', 0n],
    ]);
  });

  it('reads amounts from their text: a double would be a satoshi off here', async () => {
    const payment = paymentTx(txid(2), { txid: txid(9), vout: 0 });
    payment.vout[0]!.value = btcAmount('37969626.43899588');
    const { backend } = await core(() => payment);
    expect(Math.round(37969626.43899588 * 1e8)).not.toBe(3796962643899588);
    expect((await backend.transaction(txid(2)))?.outputs[0]?.value).toBe(3796962643899588n);
  });

  it('refuses a block whose transaction list does not match nTx', async () => {
    const { backend } = await core(() => ({ ...block([coinbaseTx(txid(1))]), nTx: 2 }));
    await expect(backend.blockTransactions(BLOCK_HASH)).rejects.toThrow(/lists 1 transactions, not nTx 2/);
  });

  it('reads a transaction (its block height from getblockheader), its hex, and null when unknown', async () => {
    const payment = {
      ...paymentTx(txid(2), { txid: txid(9), vout: 0 }),
      blockhash: BLOCK_HASH,
      confirmations: 3,
      blocktime: 1700000000,
    };
    const { backend } = await core(({ method, params }) => {
      if (params[0] !== txid(2) && params[0] !== BLOCK_HASH) notFound();
      if (method === 'getrawtransaction') return params[1] === 0 ? '0200000000010' + '1' : payment;
      if (method === 'getblockheader') return { hash: BLOCK_HASH, height: 101 };
    });
    const tx = await backend.transaction(txid(2));
    expect(tx?.status).toEqual({
      confirmed: true,
      blockHeight: 101,
      blockHash: BLOCK_HASH,
      blockTime: 1700000000,
    });
    expect(await backend.transactionHex(txid(2))).toBe('02000000000101');
    expect(await backend.transaction(txid(3))).toBeNull();
    expect(await backend.transactionHex(txid(3))).toBeNull();
  });
});

describe('CoreRpcBackend addresses: scantxoutset and the mempool', () => {
  /** ADDR_A holds txid(9):0 (0.5 BTC, height 100) and txid(8):1 (1 BTC, height 90); the mempool spends the first. */
  function wallet(mempool: string[]): RpcHandler {
    return ({ method, params }) => {
      if (method === 'scantxoutset') {
        const [action, [descriptor]] = params as [string, string[]];
        expect(action).toBe('start');
        const unspents =
          descriptor === `addr(${ADDR_A})`
            ? [
                {
                  txid: txid(9),
                  vout: 0,
                  scriptPubKey: '',
                  desc: '',
                  amount: btcAmount('0.50000000'),
                  coinbase: false,
                  height: 100,
                },
                {
                  txid: txid(8),
                  vout: 1,
                  scriptPubKey: '',
                  desc: '',
                  amount: btcAmount('1.00000000'),
                  coinbase: false,
                  height: 90,
                },
              ]
            : [];
        return {
          success: true,
          txouts: 10,
          height: 101,
          bestblock: BLOCK_HASH,
          unspents,
          total_amount: btcAmount('1.5'),
        };
      }
      if (method === 'getrawmempool') return mempool;
      if (method === 'getrawtransaction' && params[0] === txid(2))
        return paymentTx(txid(2), { txid: txid(9), vout: 0 });
      if (method === 'getrawtransaction' && params[0] === txid(3))
        return paymentTx(txid(3), { txid: txid(7), vout: 0 });
      if (method === 'getrawtransaction' && params.length === 3) {
        return {
          ...paymentTx(String(params[0]), { txid: txid(6), vout: 0 }),
          blockhash: params[2],
          blocktime: 1,
        };
      }
      if (method === 'getrawtransaction') notFound();
      if (method === 'getblockhash') return `${params[0]}`.padStart(64, 'b');
    };
  }

  it('counts confirmed coins from the UTXO set and the mempool’s change as unconfirmed', async () => {
    const { backend, node } = await core(wallet([txid(2)]));
    expect(await backend.balance(ADDR_A)).toEqual({
      confirmed: 150000000n,
      // 0.3999 back minus the 0.5 spent.
      unconfirmed: -10010000n,
      txCount: 3,
    });
    expect(await backend.balance(ADDR_B)).toEqual({ confirmed: 0n, unconfirmed: 10000000n, txCount: 1 });
    expect(node.calls.find((c) => c.method === 'scantxoutset')?.params).toEqual([
      'start',
      [`addr(${ADDR_A})`],
    ]);
  });

  it('lists UTXOs without those the mempool spends, with the mempool’s new ones', async () => {
    const { backend } = await core(wallet([txid(2)]));
    expect(await backend.utxos(ADDR_A)).toEqual([
      { txid: txid(8), vout: 1, value: 100000000n, confirmed: true, height: 90 },
      { txid: txid(2), vout: 1, value: 39990000n, confirmed: false, height: null },
    ]);
    expect(await backend.utxos(ADDR_B)).toEqual([
      { txid: txid(2), vout: 0, value: 10000000n, confirmed: false, height: null },
    ]);
  });

  it('reads each mempool transaction once, shares a scan under way, forgets those gone, skips evicted ones', async () => {
    let mempool = [txid(2)];
    const { backend, node } = await core(
      (call) => (call.method === 'getrawmempool' ? mempool : wallet(mempool)(call)),
      { mempoolMaxAgeMs: 0 },
    );
    const reads = () => node.calls.filter((c) => c.method === 'getrawtransaction').map((c) => c.params[0]);
    const [a, b] = await Promise.all([
      backend.mempoolTransactions(ADDR_A),
      backend.mempoolTransactions(ADDR_B),
    ]);
    expect(a.map((tx) => tx.txid)).toEqual([txid(2)]);
    expect(b.map((tx) => tx.txid)).toEqual([txid(2)]);
    expect(node.calls.filter((c) => c.method === 'getrawmempool')).toHaveLength(1);
    expect(reads()).toEqual([txid(2)]);
    mempool = [txid(2), txid(3), txid(4)]; // txid(4) is evicted before it is read
    expect((await backend.mempoolTransactions(ADDR_B)).map((tx) => tx.txid)).toEqual([txid(2), txid(3)]);
    expect(reads()).toEqual([txid(2), txid(3), txid(4)]);
    mempool = [];
    expect(await backend.mempoolTransactions(ADDR_A)).toEqual([]);
  });

  it('answers the watcher from a scan finished within the maximum age, a balance from a fresh one', async () => {
    const { backend, node } = await core(wallet([txid(2)]), { mempoolMaxAgeMs: 60_000 });
    await backend.mempoolTransactions(ADDR_A);
    await backend.mempoolTransactions(ADDR_B);
    expect(node.calls.filter((c) => c.method === 'getrawmempool')).toHaveLength(1);
    await backend.balance(ADDR_B);
    expect(node.calls.filter((c) => c.method === 'getrawmempool')).toHaveLength(2);
  });

  it('scans at most the limit of mempool transactions', async () => {
    const { backend, node } = await core(wallet([txid(2), txid(3)]), { mempoolScanLimit: 1 });
    expect((await backend.mempoolTransactions(ADDR_B)).map((tx) => tx.txid)).toEqual([txid(2)]);
    expect(node.calls.filter((c) => c.method === 'getrawtransaction')).toHaveLength(1);
  });

  it('lists an address’s transactions: the mempool’s, then those of its coins, newest first', async () => {
    const { backend, node } = await core(wallet([txid(2)]));
    const txs = await backend.addressTransactions(ADDR_A);
    expect(txs.map((tx) => [tx.txid, tx.status.blockHeight])).toEqual([
      [txid(2), null],
      [txid(9), 100],
      [txid(8), 90],
    ]);
    const confirmedRead = node.calls.find((c) => c.method === 'getrawtransaction' && c.params[0] === txid(9));
    expect(confirmedRead?.params).toEqual([txid(9), 2, '100'.padStart(64, 'b')]);
  });

  it('refuses an address that could reach into the descriptor', async () => {
    const { backend, node } = await core(wallet([]));
    await expect(backend.utxos(`${ADDR_A}),raw(00`)).rejects.toThrow(RangeError);
    expect(node.calls.filter((c) => c.method === 'scantxoutset')).toHaveLength(0);
  });
});

describe('CoreRpcBackend broadcast and fees', () => {
  it('answers the txid of a sent transaction', async () => {
    const { backend, node } = await core(() => txid(5));
    expect(await backend.broadcast('0200')).toBe(txid(5));
    expect(node.calls).toEqual([{ method: 'sendrawtransaction', params: ['0200'] }]);
  });

  it.each([
    [-26, 'min relay fee not met, 100 < 141'],
    [-25, 'bad-txns-inputs-missingorspent'],
    [-22, 'TX decode failed'],
    [-27, 'Transaction outputs already in utxo set'],
  ])('a refusal %i is BroadcastRefusedError with Core’s words, asked once', async (code, message) => {
    const { backend, node } = await core(() => {
      throw new RpcFailure(code, message);
    });
    const error = await backend.broadcast('0200').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BroadcastRefusedError);
    expect(error).toMatchObject({ code, reason: message });
    expect(node.hits).toHaveLength(1);
  });

  it('a node still warming up is a node error, not a refusal', async () => {
    const { backend } = await core(() => {
      throw new RpcFailure(-28, 'Loading block index…');
    });
    const error = await backend.broadcast('0200').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CoreRpcError);
    expect(error).toBeInstanceOf(NodeError);
  });

  it('turns estimatesmartfee’s BTC/kvB into sat/vB exactly, leaving out targets without an estimate', async () => {
    const rates: Record<number, string> = { 1: '0.00012345', 3: '0.00002000', 6: '0.00001000' };
    const { backend } = await core(({ params }) => {
      const target = params[0] as number;
      return rates[target] === undefined
        ? { errors: ['Insufficient data or no feerate found'], blocks: target }
        : { feerate: btcAmount(rates[target]), blocks: target };
    });
    expect(await backend.feeEstimates()).toEqual({ 1: 12.345, 3: 2, 6: 1 });
  });
});

describe('CoreRpcBackend node failures are NodeErrors', () => {
  it.each([
    ['a body that is not JSON', '<html>proxy</html>'],
    ['a truncated answer', '{"result":{"hash":"ab'],
    ['an envelope without result', '{"error":null,"id":1}'],
    ['a result of the wrong shape', '{"result":"101","error":null,"id":1}'],
    ['an error of the wrong shape', '{"result":null,"error":"boom","id":1}'],
  ])('%s', async (_, body) => {
    const server: NodeServer = await startNodeServer(() => ({ body }));
    const client = clientOf(server.url, 'mainnet');
    open.push(client, server);
    const error = await new CoreRpcBackend(client).tipHeight().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BitcoinAnswerError);
    expect(String(error)).toMatch(/bitcoin mainnet node answered getblockcount wrongly/);
  });

  it('an amount Core would never write (nine decimals) is refused, not rounded', async () => {
    const payment = paymentTx(txid(2), { txid: txid(9), vout: 0 });
    payment.vout[0]!.value = btcAmount('0.100000001');
    const { backend } = await core(() => payment);
    await expect(backend.transaction(txid(2))).rejects.toThrow(
      /vout\[0\]\.value 0.100000001 is not an amount of BTC/,
    );
  });

  it('an HTTP 500 that is not a JSON-RPC answer is retried, then unavailable', async () => {
    const server = await startNodeServer(() => text('Internal Server Error', 500));
    const client = clientOf(server.url, 'mainnet', 1);
    open.push(client, server);
    await expect(new CoreRpcBackend(client).tipHeight()).rejects.toThrow(NodeUnavailableError);
    expect(server.hits).toHaveLength(2);
  });
});
