// Concurrent Bitcoin sends from one address on the shared Bitcoin devnet (as mainnet): the coins a send
// chooses are reserved until it is broadcast or abandoned, so sends racing for the same coins never reach
// the node with a conflicting transaction (whose refusal would be the node's `rejecting replacement`).
// Every send the coins can pay answers 201 and is on chain; the rest answer 422 insufficient funds. Two
// gateway instances on one Postgres share the reservations; a send refused after its coins were chosen
// gives them back.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../devnets/bitcoin/helpers.ts';
import { type ApiResponse, startGateway, type TestGateway, testDatabase } from '../helpers/gateway.ts';
import { p2wpkhAddress } from '../helpers/p2wpkh.ts';
import { type SharedBitcoinDevnet, sharedBitcoinDevnet } from '../helpers/shared-devnets.ts';
import { encodeWif } from '../helpers/wif.ts';

const PASSWORD = 'correct horse battery';
/** 0.01 BTC. */
const COIN = 1_000_000n;
/**
 * The i-th send's amount: nine tenths of a coin, so each send needs a whole coin of its own (the changes
 * of the others, which a send may spend unconfirmed, do not add up to it), and each a little different,
 * so that two sends spending one coin are conflicting transactions (not the same one).
 */
const shareOf = (i: number) => 900_000n + BigInt(i) * 1_000n;
const btcText = (sats: bigint) => (Number(sats) / 1e8).toFixed(8);

let devnet: SharedBitcoinDevnet;
let first: TestGateway;
/** Postgres only: a second instance on the same schema (two processes would share an SQLite file). */
let second: TestGateway | undefined;
const onPostgres = testDatabase() === 'postgres';
let token: string;

beforeAll(async () => {
  devnet = await sharedBitcoinDevnet();
  const env = { BITCOIN_MAINNET_URLS: devnet.url, NODE_RETRIES: '1', LOG_LEVEL: 'warn' };
  first = await startGateway({ env });
  // A second instance on the same database, as two gateways behind one load balancer.
  if (onPostgres) second = await startGateway({ env, database: first.database });
  ({ token } = await first.userToken(undefined, 'enterprise'));
}, 60_000);

afterAll(async () => {
  await second?.close();
  await first?.close();
});

const api = (gw: TestGateway, method: string, path: string, json?: unknown): Promise<ApiResponse> =>
  gw.request(method, `/api/v2/bitcoin${path}`, { token, ...(method === 'POST' ? { json: json ?? {} } : {}) });

/** A key of the caller's, never stored in the gateway (sends sign with `privatekey`: no scrypt per send). */
function newKey() {
  const secret = secp256k1.utils.randomSecretKey();
  return {
    address: p2wpkhAddress('bc', secp256k1.getPublicKey(secret, true)),
    privatekey: encodeWif(secret),
  };
}

/** `count` confirmed coins of `value` at `address`. */
async function coins(address: string, count: number, value: bigint): Promise<void> {
  for (let i = 0; i < count; i++) await devnet.faucet(address, value);
  await devnet.mine(1);
}

async function sats(address: string): Promise<bigint> {
  const res = await api(first, 'GET', `/balances/${address}`);
  expect(res.status, res.text).toBe(200);
  return BigInt(res.body.data.balance_sats);
}

/** Sends `count` payments at once (shareOf(i) each), alternating between the gateways given. */
async function race(gateways: TestGateway[], from: ReturnType<typeof newKey>, to: string, count: number) {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => ({
      amount: shareOf(i),
      res: await api(gateways[i % gateways.length]!, 'POST', '/transactions', {
        from: from.address,
        privatekey: from.privatekey,
        to,
        amount: btcText(shareOf(i)),
        feerate: 2,
      }),
    })),
  );
}

/**
 * Every answer is a 201 or a 422 insufficient funds, never the node's refusal of a conflicting
 * transaction; the 201s' txids, each in the mempool, and what they promised the receiver.
 */
async function expectOnlyPaidOrInsufficient(answers: { amount: bigint; res: ApiResponse }[], paid: number) {
  for (const { res } of answers) {
    expect(res.text).not.toMatch(/replacement|conflict|already/i);
    if (res.status !== 201) {
      expect(res.status, res.text).toBe(422);
      expect(res.body.message).toMatch(/^Insufficient funds: /);
    }
  }
  const sent = answers.filter(({ res }) => res.status === 201);
  expect(sent).toHaveLength(paid);
  const txids = sent.map(({ res }) => res.body.data.txid as string);
  for (const txid of txids) {
    const receipt = await api(first, 'GET', `/transactions/${txid}/receipt`);
    expect(receipt.status, receipt.text).toBe(200);
  }
  return { txids, promised: sent.reduce((total, { amount }) => total + amount, 0n) };
}

describe('Bitcoin concurrent sends from one address', () => {
  it('ten sends at once from five coins: five are paid and on chain, five refused for funds', async () => {
    const from = newKey();
    const to = newKey().address;
    await coins(from.address, 5, COIN);
    const answers = await race([first], from, to, 10);
    const { txids, promised } = await expectOnlyPaidOrInsufficient(answers, 5);
    await devnet.mine(1);
    for (const txid of txids) {
      const receipt = await api(first, 'GET', `/transactions/${txid}/receipt`);
      expect(receipt.body.data.status).toBe('confirmed');
    }
    // The receiver gets exactly what the 201s promised.
    expect(await sats(to)).toBe(promised);
  });

  it.runIf(onPostgres)('two gateway instances on one Postgres never take the same coin', async () => {
    const from = newKey();
    const to = newKey().address;
    await coins(from.address, 3, COIN);
    const answers = await race([first, second!], from, to, 8);
    const { promised } = await expectOnlyPaidOrInsufficient(answers, 3);
    await devnet.mine(1);
    expect(await sats(to)).toBe(promised);
  });
});

describe('Bitcoin sends given up after their coins were chosen', () => {
  /** A send of the whole balance from `from`, signed with its key: 201 only when no coin is held. */
  const sendAll = (from: ReturnType<typeof newKey>, amount: string) =>
    api(first, 'POST', '/transactions', {
      from: from.address,
      privatekey: from.privatekey,
      to: newKey().address,
      amount,
      subtractfee: true,
      feerate: 2,
    });

  it("a key that is not the address's gives the coins back", async () => {
    const from = newKey();
    await coins(from.address, 1, COIN);
    const refused = await api(first, 'POST', '/transactions', {
      from: from.address,
      privatekey: newKey().privatekey,
      to: newKey().address,
      amount: '0.001',
    });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.message).toBe(`The private key does not belong to ${from.address}`);
    const all = await sendAll(from, '0.01');
    expect(all.status, all.text).toBe(201);
    await devnet.mine(1);
  });

  it('a wrong wallet password gives the coins back', async () => {
    const created = await api(first, 'POST', '/wallets', { password: PASSWORD });
    expect(created.status, created.text).toBe(201);
    const wallet = created.body.data.bitcoinwallet;
    const address = (await api(first, 'GET', `/wallets/${wallet}/addresses`)).body.data.address;
    await coins(address, 1, COIN);
    const payment = { walletname: wallet, to: newKey().address, amount: '0.01', subtractfee: true };
    const wrong = await api(first, 'POST', '/transactions', { ...payment, password: 'not the password' });
    expect(wrong.status, wrong.text).toBe(422);
    const sent = await api(first, 'POST', '/transactions', { ...payment, password: PASSWORD });
    expect(sent.status, sent.text).toBe(201);
    await devnet.mine(1);
  });

  it('a transaction the node refuses gives the coins back', async () => {
    // A coinbase is listed as confirmed at once, but the node refuses to spend it before 100 blocks.
    const from = newKey();
    await call(devnet.coreUrl, 'generatetoaddress', [1, from.address]);
    for (let attempt = 0; attempt < 2; attempt++) {
      // The second attempt reaches the node too: the first one's coin was given back.
      const refused = await sendAll(from, '0.001');
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.message).toMatch(
        /^The node refused the transaction: bad-txns-premature-spend-of-coinbase/,
      );
    }
  });
});

describe('Bitcoin sends spending their own unconfirmed change', () => {
  /** A payment of `amount` BTC from `from`, signed with its key. */
  const pay = (from: ReturnType<typeof newKey>, to: string, amount: string, feerate = 2) =>
    api(first, 'POST', '/transactions', {
      from: from.address,
      privatekey: from.privatekey,
      to,
      amount,
      feerate,
    });

  /** The mempool's view of `txid`: its ancestors with itself, their fees and sizes. */
  const mempoolEntry = (txid: string) =>
    call<{ ancestorcount: number; ancestorsize: number; fees: { ancestor: number }; depends: string[] }>(
      devnet.coreUrl,
      'getmempoolentry',
      [txid],
    );

  /** Two sends in a row from a fresh address with one coin, through `gw`: the answers. */
  async function twoInARow(gw: TestGateway, gwToken: string, to: string) {
    const from = newKey();
    await coins(from.address, 1, COIN);
    const send = (amount: string, feerate: number) =>
      gw.request('POST', '/api/v2/bitcoin/transactions', {
        token: gwToken,
        json: { from: from.address, privatekey: from.privatekey, to, amount, feerate },
      });
    const firstSend = await send('0.002', 1);
    expect(firstSend.status, firstSend.text).toBe(201);
    // Within the same block interval: the only coin left is the first send's unconfirmed change.
    const secondSend = await send('0.003', 10);
    expect(secondSend.status, secondSend.text).toBe(201);
    return [firstSend, secondSend] as const;
  }

  it('two sends in a row from one address both land; the second pays for the first to reach its rate', async () => {
    const to = newKey().address;
    const [firstSend, secondSend] = await twoInARow(first, token, to);
    const [parent, child] = [firstSend.body.data.txid as string, secondSend.body.data.txid as string];
    const spent = await call<{ vin: { txid: string }[] }>(devnet.coreUrl, 'getrawtransaction', [child, 1]);
    expect(spent.vin.map((input) => input.txid)).toEqual([parent]);
    // Both wait in the mempool, and the package pays the child's 10 sat/vB.
    const entry = await mempoolEntry(child);
    expect(entry.ancestorcount).toBe(2);
    expect(Math.round(entry.fees.ancestor * 1e8)).toBeGreaterThanOrEqual(10 * entry.ancestorsize);
    await devnet.mine(1);
    for (const txid of [parent, child]) {
      const receipt = await api(first, 'GET', `/transactions/${txid}/receipt`);
      expect(receipt.body.data.status).toBe('confirmed');
    }
    expect(await sats(to)).toBe(500_000n);
  });

  it('does the same on a Bitcoin Core backend', async () => {
    const core = await startGateway({
      env: {
        BITCOIN_MAINNET_URLS: devnet.coreUrl,
        BITCOIN_MAINNET_BACKEND: 'core',
        NODE_RETRIES: '1',
        LOG_LEVEL: 'warn',
      },
    });
    try {
      const { token: coreToken } = await core.userToken(undefined, 'enterprise');
      const to = newKey().address;
      const [parent, child] = await twoInARow(core, coreToken, to);
      const entry = await mempoolEntry(child.body.data.txid);
      expect(entry.ancestorcount).toBe(2);
      expect(Math.round(entry.fees.ancestor * 1e8)).toBeGreaterThanOrEqual(10 * entry.ancestorsize);
      expect(entry).toMatchObject({ depends: [parent.body.data.txid] });
      await devnet.mine(1);
      expect(await sats(to)).toBe(500_000n);
    } finally {
      await core.close();
    }
  }, 60_000);

  it("never spends someone else's unconfirmed coin, only the change of its own sends", async () => {
    const from = newKey();
    await coins(from.address, 1, COIN);
    const firstSend = await pay(from, newKey().address, '0.008');
    expect(firstSend.status, firstSend.text).toBe(201);
    // A payment to the address from outside, unconfirmed: its sender could still replace it.
    await devnet.faucet(from.address, 5n * COIN);
    const tooMuch = await pay(from, newKey().address, '0.01');
    expect(tooMuch.status, tooMuch.text).toBe(422);
    expect(tooMuch.body.message).toMatch(/^Insufficient funds: .*; 0\.05 BTC more is still unconfirmed$/);
    const withinChange = await pay(from, newKey().address, '0.001');
    expect(withinChange.status, withinChange.text).toBe(201);
    const spent = await call<{ vin: { txid: string }[] }>(devnet.coreUrl, 'getrawtransaction', [
      withinChange.body.data.txid,
      1,
    ]);
    expect(spent.vin.map((input) => input.txid)).toEqual([firstSend.body.data.txid]);
    // A payment this gateway sent to another address is that address's incoming coin, not its change.
    const receiver = newKey();
    const toReceiver = await pay(from, receiver.address, '0.0005');
    expect(toReceiver.status, toReceiver.text).toBe(201);
    const onward = await pay(receiver, newKey().address, '0.0001');
    expect(onward.status, onward.text).toBe(422);
    expect(onward.body.message).toMatch(/^Insufficient funds: .*; 0\.0005 BTC more is still unconfirmed$/);
    await devnet.mine(1);
  });

  it('refuses a payment that would be the 26th unconfirmed transaction of a chain, with why', async () => {
    const from = newKey();
    const to = newKey().address;
    await coins(from.address, 1, COIN);
    for (let i = 1; i <= 25; i++) {
      const sent = await pay(from, to, '0.0001');
      expect(sent.status, `send ${i}: ${sent.text}`).toBe(201);
    }
    const refused = await pay(from, to, '0.0001');
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.message).toBe(
      'Unconfirmed chain too long: the payment would have 25 unconfirmed ancestors, the mempool allows 24 (25 with the payment); wait for the next block',
    );
    await devnet.mine(1);
    const afterBlock = await pay(from, to, '0.0001');
    expect(afterBlock.status, afterBlock.text).toBe(201);
    await devnet.mine(1);
    expect(await sats(to)).toBe(26n * 10_000n);
  });
});
