import { TronWeb, utils } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTronDevnet, type TronDevnet } from '../../devnets/tron/index.ts';
import { type ApiResponse, type RequestOptions, startGateway, type TestGateway } from '../helpers/gateway.ts';

/**
 * Every Tron route through the real HTTP API, against two Tron devnets (mainnet and testnet), on the
 * test database. Keys and signatures are checked independently with tronweb.
 */
const PLANS = [
  {
    name: 'roomy',
    period: 'month',
    quotas: { webhooks: 10, addresses: 40, requests: null, transactions: 200 },
  },
  {
    name: 'cramped',
    period: 'month',
    quotas: { webhooks: 1, addresses: 1, requests: null, transactions: 1 },
  },
];
const PASSWORD = 'correct horse battery';

let gw: TestGateway;
let mainnet: TronDevnet;
let testnet: TronDevnet;
let token: string;
let userId: string;
let USDT: string;
let NFT: string;
let TRC10: string;

const api = (method: string, path: string, options: RequestOptions = {}) =>
  gw.request(method, `/api/v2/tron${path}`, { token, ...options });

const tronweb = new TronWeb({ fullHost: 'http://127.0.0.1:1' });
const derive = (privateKey: string) => tronweb.address.fromPrivateKey(privateKey) as string;

async function newAddress(password?: string, network: 'mainnet' | 'testnet' = 'mainnet') {
  const res = await api('POST', '/addresses', {
    json: password ? { password } : {},
    headers: { 'x-network': network },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data[0] as { address: string; hexAddress: string; publicKey: string; privateKey?: string };
}

async function trxBalance(address: string, network: 'mainnet' | 'testnet' = 'mainnet'): Promise<bigint> {
  const res = await api('GET', `/balances/${address}`, { headers: { 'x-network': network } });
  expect(res.status, res.text).toBe(200);
  return BigInt(res.body.data.balance);
}

function expectCreated(res: ApiResponse): string {
  expect(res.status, res.text).toBe(201);
  expect(res.body.data.txid).toMatch(/^[0-9a-f]{64}$/);
  return res.body.data.txid;
}

beforeAll(async () => {
  [mainnet, testnet] = await Promise.all([
    startTronDevnet({ blockIntervalMs: null, solidifyLag: 0 }),
    startTronDevnet({ blockIntervalMs: null, solidifyLag: 0 }),
  ]);
  USDT = mainnet.tokens.trc20.USDT;
  NFT = mainnet.tokens.trc721.NFT;
  TRC10 = Object.values(mainnet.tokens.trc10)[0]!;
  gw = await startGateway({
    env: {
      PLANS: JSON.stringify(PLANS),
      TRON_MAINNET_URLS: mainnet.url,
      TRON_TESTNET_URLS: testnet.url,
      NODE_RETRIES: '1',
      NODE_TIMEOUT_MS: '5000',
    },
  });
  ({ token, userId } = await gw.userToken(undefined, 'roomy'));
}, 120_000);

afterAll(async () => {
  await gw?.close();
  await Promise.all([mainnet?.close(), testnet?.close()]);
});

describe('blocks and chain', () => {
  it('gives the head number and blocks by number and by id, under both prefixes', async () => {
    await mainnet.mine(2);
    const head = await api('GET', '/blocks/number');
    expect(head.body).toMatchObject({ status: 200, ok: true, data: { blocknumber: expect.any(Number) } });
    const number = head.body.data.blocknumber as number;
    const byNumber = await gw.request('GET', `/v2/tron/blocks/${number}`, { token });
    expect(byNumber.body.data.block_header.raw_data.number).toBe(number);
    const byId = await api('GET', `/blocks/${byNumber.body.data.blockID}`);
    expect(byId.body.data.blockID).toBe(byNumber.body.data.blockID);
    expect((await api('GET', `/blocks/${number + 1000}`)).status).toBe(404);
    expect((await api('GET', '/blocks/not-a-block')).status).toBe(422);
  });

  it('serves chain parameters as the node does', async () => {
    const res = await api('GET', '/chainparameters');
    expect(res.status).toBe(200);
    const keys = res.body.data.chainParameter.map((p: { key: string }) => p.key);
    expect(keys).toContain('getEnergyFee');
    expect(keys).toContain('getTransactionFee');
  });

  it('keeps mainnet and testnet apart', async () => {
    const a = await newAddress(undefined, 'testnet');
    await testnet.faucetTrx(a.address, 7_000_000n);
    expect(await trxBalance(a.address, 'testnet')).toBe(7_000_000n);
    expect(await trxBalance(a.address, 'mainnet')).toBe(0n);
    const listed = await api('GET', '/addresses', { headers: { 'x-network': 'testnet' } });
    expect(listed.body.data.map((r: { address: string }) => r.address)).toContain(a.address);
    const other = await api('GET', '/addresses');
    expect(other.body.data.map((r: { address: string }) => r.address)).not.toContain(a.address);
  });
});

describe('addresses', () => {
  it('creates an unsecure address whose private key derives it, and keeps no key', async () => {
    const a = await newAddress();
    expect(a.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(a.privateKey).toMatch(/^[0-9a-f]{64}$/);
    expect(derive(a.privateKey!)).toBe(a.address);
    expect(tronweb.address.toHex(a.address).toLowerCase()).toBe(a.hexAddress);
    const export_ = await api('POST', `/addresses/export/${a.address}`, { json: { password: PASSWORD } });
    expect(export_.status).toBe(422);
  });

  it('creates a password address: no key in the answer, export with the password only', async () => {
    const a = await newAddress(PASSWORD);
    expect(a.privateKey).toBeUndefined();
    const exported = await api('POST', `/addresses/export/${a.address}`, { json: { password: PASSWORD } });
    expect(exported.status).toBe(200);
    expect(derive(exported.body.data.privateKey)).toBe(a.address);
    const wrong = await api('POST', `/addresses/export/${a.address}`, {
      json: { password: 'not the password' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe('Wrong password provided');
    // The key is sealed in the database, never stored as text.
    const rows = await gw.ctx.store.db.selectFrom('addresses').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(exported.body.data.privateKey);
  });

  it('imports a key, refuses it twice and refuses malformed keys', async () => {
    const privateKey = utils.accounts.generateAccount().privateKey.toLowerCase();
    const res = await api('POST', '/addresses/import', {
      form: { privatekey: privateKey, password: PASSWORD },
    });
    expect(res.status).toBe(201);
    expect(res.body.data[0].address).toBe(derive(privateKey));
    expect(res.body.data[0].privateKey).toBeUndefined();
    expect((await api('POST', '/addresses/import', { json: { privatekey: privateKey } })).status).toBe(422);
    for (const bad of ['00', 'zz'.repeat(32), '0'.repeat(64), 'f'.repeat(64)]) {
      const rejected = await api('POST', '/addresses/import', { json: { privatekey: bad } });
      expect(rejected.status, bad).toBe(422);
      expect(rejected.text).not.toContain(bad);
    }
  });

  it('changes the password with PUT and PATCH; the old one stops working', async () => {
    const a = await newAddress(PASSWORD);
    const put = await api('PUT', `/addresses/${a.address}`, {
      json: { old_password: PASSWORD, new_password: 'second password' },
    });
    expect(put.status, put.text).toBe(200);
    expect(
      (await api('POST', `/addresses/export/${a.address}`, { json: { password: PASSWORD } })).status,
    ).toBe(401);
    const patch = await api('PATCH', `/addresses/${a.address}`, {
      json: { old_password: 'second password', new_password: 'third password' },
    });
    expect(patch.status).toBe(200);
    const wrongOld = await api('PATCH', `/addresses/${a.address}`, {
      json: { old_password: 'second password', new_password: 'fourth password' },
    });
    expect(wrongOld.status).toBe(401);
    expect(
      (await api('POST', `/addresses/export/${a.address}`, { json: { password: 'third password' } })).status,
    ).toBe(200);
  });

  it('lists and forgets addresses; another user sees none of them', async () => {
    const a = await newAddress(PASSWORD);
    expect((await api('GET', '/addresses')).body.data.map((r: { address: string }) => r.address)).toContain(
      a.address,
    );
    const { token: stranger } = await gw.userToken(undefined, 'roomy');
    const theirs = await gw.request('GET', '/api/v2/tron/addresses', { token: stranger });
    expect(theirs.body.data).toEqual([]);
    const steal = await gw.request('POST', `/api/v2/tron/addresses/export/${a.address}`, {
      token: stranger,
      json: { password: PASSWORD },
    });
    expect(steal.status).toBe(404);
    expect((await api('DELETE', `/addresses/${a.address}`)).status).toBe(200);
    expect((await api('DELETE', `/addresses/${a.address}`)).status).toBe(404);
  });

  it('counts addresses against the plan', async () => {
    const { token: small } = await gw.userToken(undefined, 'cramped');
    const first = await gw.request('POST', '/api/v2/tron/addresses', { token: small, json: {} });
    expect(first.status).toBe(201);
    const second = await gw.request('POST', '/api/v2/tron/addresses', { token: small, json: {} });
    expect(second.status).toBe(422);
    expect(second.body.message).toBe('Your address limit exceeded. Please upgrade your plan');
  });
});

describe('balances and tokens', () => {
  it('reads TRX, TRC20 and TRC10 balances in base units', async () => {
    const a = await newAddress();
    await mainnet.faucetTrx(a.address, 12_345_678n);
    await mainnet.faucetTrc20(USDT, a.address, 5_500_000n);
    await mainnet.faucetTrc10(TRC10, a.address, 42n);
    expect((await api('GET', `/balances/${a.address}`)).body.data).toEqual({
      tronaddress: a.address,
      decimals: 6,
      balance: '12345678',
    });
    expect((await api('GET', `/balances/${a.hexAddress}/trc20/${USDT}`)).body.data).toEqual({
      tronaddress: a.address,
      decimals: 6,
      balance: '5500000',
      contractaddress: USDT,
    });
    expect((await api('GET', `/balances/${a.address}/trc10/${TRC10}`)).body.data).toMatchObject({
      balance: '42',
      tokenid: TRC10,
    });
  });

  it('describes a TRC20 contract and refuses what is not one', async () => {
    const info = await api('GET', `/trc20/${USDT}`);
    expect(info.body.data).toMatchObject({ address: USDT, decimals: '6', symbol: expect.any(String) });
    expect(info.body.data.totalSupply).toMatch(/^\d+$/);
    const plain = await newAddress();
    const notContract = await api('GET', `/trc20/${plain.address}`);
    expect(notContract.status).toBe(400);
    expect(notContract.body.message).toBe('Error fetching TRC20 contract');
  });
});

describe('sending', () => {
  it('sends TRX with a stored key; the receiver gets it; decoded and receipt agree', async () => {
    const from = await newAddress(PASSWORD);
    const to = await newAddress();
    await mainnet.faucetTrx(from.address, 10_000_000n);
    const txid = expectCreated(
      await api('POST', '/transactions', {
        json: { from: from.address, to: to.address, amount: 1.5, password: PASSWORD },
      }),
    );
    await mainnet.mine(1);
    expect(await trxBalance(to.address)).toBe(1_500_000n);
    // A new account costs the sender the 1 TRX creation fee on top of the amount.
    expect(await trxBalance(from.address)).toBeLessThanOrEqual(10_000_000n - 1_500_000n - 1_000_000n);
    const decoded = await api('GET', `/transactions/${txid}/decoded`);
    expect(decoded.body.data.transaction).toMatchObject({
      txid,
      from: from.address,
      to: to.address,
      amount: '1.500000',
      type: 'Tron',
      status: 'SUCCESS',
      confirmations: expect.any(Number),
    });
    const raw = await api('GET', `/transactions/${txid}`);
    expect(raw.body.data.transaction.txID).toBe(txid);
    const receipt = await api('GET', `/transactions/${txid}/receipt/decoded`);
    expect(receipt.body.data).toMatchObject({ txid, status: 'SUCCESS' });
    expect((await api('GET', `/transactions/${txid}/receipt`)).body.data.transaction.id).toBe(txid);
  });

  it('sends TRX with the private key of an unsecure address', async () => {
    const from = await newAddress();
    const to = await newAddress();
    await mainnet.faucetTrx(from.address, 5_000_000n);
    await mainnet.faucetTrx(to.address, 1_000_000n);
    expectCreated(
      await api('POST', '/transactions', {
        form: { from: from.address, to: to.address, amount: '0.25', privatekey: from.privateKey! },
      }),
    );
    await mainnet.mine(1);
    expect(await trxBalance(to.address)).toBe(1_250_000n);
  });

  it("refuses a key or password that is not the sender's with the node's signature error", {
    timeout: 60_000,
  }, async () => {
    const from = await newAddress(PASSWORD);
    const other = await newAddress();
    await mainnet.faucetTrx(from.address, 5_000_000n);
    const wrongKey = await api('POST', '/transactions', {
      json: { from: from.address, to: other.address, amount: 1, privatekey: other.privateKey },
    });
    expect(wrongKey.status).toBe(422);
    expect(wrongKey.body.message).toMatch(
      /^Validate signature error: [0-9a-f]{64} is signed by T\w+ but it is not contained of permission\.$/,
    );
    expect(wrongKey.body.message).toContain(other.address);
    // A wrong password is refused in the same words, as Chaingateway's Tron sends document it, on each send.
    const wrong = { from: from.address, to: other.address, password: 'not the password' };
    for (const [path, fields] of [
      ['/transactions', { amount: 1 }],
      ['/transactions/trc20', { contractaddress: USDT, amount: 1 }],
      ['/transactions/trc10', { tokenId: TRC10, amount: 1 }],
      ['/transactions/trc721', { contractaddress: NFT, tokenid: '1', amount: 1 }],
    ] as const) {
      const wrongPassword = await api('POST', path, { json: { ...wrong, ...fields } });
      expect(wrongPassword.status, path).toBe(422);
      expect(wrongPassword.body.message).toBe(
        `Validate signature error: the password does not open the key of ${from.address}`,
      );
    }
    const noProof = await api('POST', '/transactions', {
      json: { from: from.address, to: other.address, amount: 1 },
    });
    expect(noProof.status).toBe(422);
    // Another user's password address cannot be used even with the right password.
    const { token: stranger } = await gw.userToken(undefined, 'roomy');
    const foreign = await gw.request('POST', '/api/v2/tron/transactions', {
      token: stranger,
      json: { from: from.address, to: other.address, amount: 1, password: PASSWORD },
    });
    expect(foreign.status).toBe(404);
    expect(await trxBalance(other.address)).toBe(0n);
  });

  it('answers balance is not sufficient, and bad amounts with 422, changing nothing', async () => {
    const from = await newAddress();
    const to = await newAddress();
    await mainnet.faucetTrx(from.address, 2_000_000n);
    const tooMuch = await api('POST', '/transactions', {
      json: { from: from.address, to: to.address, amount: '50', privatekey: from.privateKey },
    });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.message).toBe('balance is not sufficient');
    for (const amount of ['-1', '0', '1.0000001', 'abc', '1e400', 1e21]) {
      const res = await api('POST', '/transactions', {
        json: { from: from.address, to: to.address, amount, privatekey: from.privateKey },
      });
      expect(res.status, String(amount)).toBe(422);
      expect(res.body.errors[0]?.field ?? 'amount', String(amount)).toBe('amount');
    }
    await mainnet.mine(1);
    expect(await trxBalance(from.address)).toBe(2_000_000n);
  });

  it('sends TRC20 after a resource pre-flight and reports the estimate', async () => {
    const from = await newAddress(PASSWORD);
    const to = await newAddress();
    await mainnet.faucetTrx(from.address, 50_000_000n);
    await mainnet.faucetTrc20(USDT, from.address, 10_000_000n);
    const res = await api('POST', '/transactions/trc20', {
      json: { from: from.address, to: to.address, contractaddress: USDT, amount: '2.5', password: PASSWORD },
    });
    const txid = expectCreated(res);
    expect(BigInt(res.body.data.estimate.energy)).toBeGreaterThan(0n);
    await mainnet.mine(1);
    const balance = await api('GET', `/balances/${to.address}/trc20/${USDT}`);
    expect(balance.body.data.balance).toBe('2500000');
    const receipt = await api('GET', `/transactions/${txid}/receipt/decoded`);
    expect(receipt.body.data.transfers).toEqual([
      { contractaddress: USDT, from: from.address, to: to.address, value: '2500000' },
    ]);
    const decoded = await api('GET', `/transactions/${txid}/decoded`);
    expect(decoded.body.data.transaction).toMatchObject({
      type: 'TRC20',
      amount: '2.500000',
      to: to.address,
    });
  });

  it('refuses a TRC20 transfer that would burn fees it cannot pay or more than fee_limit', async () => {
    const tokenOnly = await newAddress();
    const to = await newAddress();
    await mainnet.faucetTrc20(USDT, tokenOnly.address, 10_000_000n);
    const broke = await api('POST', '/transactions/trc20', {
      json: {
        from: tokenOnly.address,
        to: to.address,
        contractaddress: USDT,
        amount: 1,
        privatekey: tokenOnly.privateKey,
      },
    });
    expect(broke.status).toBe(422);
    expect(broke.body.message).toMatch(/refused before broadcast/);
    expect(broke.body.message).toMatch(/TRX/);

    const rich = await newAddress();
    await mainnet.faucetTrx(rich.address, 50_000_000n);
    await mainnet.faucetTrc20(USDT, rich.address, 10_000_000n);
    const capped = await api('POST', '/transactions/trc20', {
      json: {
        from: rich.address,
        to: to.address,
        contractaddress: USDT,
        amount: 1,
        fee_limit: '0.1',
        privatekey: rich.privateKey,
      },
    });
    expect(capped.status).toBe(422);
    expect(capped.body.message).toMatch(/fee.?limit/i);
    await mainnet.mine(1);
    expect((await api('GET', `/balances/${to.address}/trc20/${USDT}`)).body.data.balance).toBe('0');
  });

  it('sends TRC10 and TRC721', async () => {
    const from = await newAddress();
    const to = await newAddress();
    await mainnet.faucetTrx(from.address, 100_000_000n);
    await mainnet.faucetTrc10(TRC10, from.address, 5_000_000n);
    const tokenId = await mainnet.faucetTrc721(NFT, from.address);
    expectCreated(
      await api('POST', '/transactions/trc10', {
        json: {
          from: from.address,
          to: to.address,
          tokenId: TRC10,
          amount: '1.5',
          privatekey: from.privateKey,
        },
      }),
    );
    const nft = await api('POST', '/transactions/trc721', {
      json: {
        from: from.address,
        to: to.address,
        contractaddress: NFT,
        tokenid: tokenId.toString(),
        amount: 1,
        privatekey: from.privateKey,
      },
    });
    const nftTxid = expectCreated(nft);
    await mainnet.mine(1);
    expect((await api('GET', `/balances/${to.address}/trc10/${TRC10}`)).body.data.balance).toBe('1500000');
    const decoded = await api('GET', `/transactions/${nftTxid}/decoded`);
    expect(decoded.body.data.transaction).toMatchObject({
      type: 'TRC721',
      tokenid: tokenId.toString(),
      to: to.address,
    });
  });

  it('builds an unsigned TRC20 transfer that tronweb signs and the gateway broadcasts', async () => {
    const account = utils.accounts.generateAccount();
    const from = derive(account.privateKey);
    const to = await newAddress();
    await mainnet.faucetTrx(from, 50_000_000n);
    await mainnet.faucetTrc20(USDT, from, 3_000_000n);
    const built = await api('POST', '/transactions/trc20/build', {
      json: { from, to: to.address, contractaddress: USDT, amount: '3' },
    });
    expect(built.status, built.text).toBe(200);
    expect(built.body.data).toMatchObject({
      txID: expect.stringMatching(/^[0-9a-f]{64}$/),
      raw_data_hex: expect.any(String),
    });
    expect(built.body.data.signature).toBeUndefined();
    await mainnet.mine(1);
    expect((await api('GET', `/balances/${to.address}/trc20/${USDT}`)).body.data.balance).toBe('0');

    const signed = utils.crypto.signTransaction(account.privateKey, built.body.data);
    const broadcast = await api('POST', '/transactions/broadcast', { json: { transaction: signed } });
    expect(broadcast.status, broadcast.text).toBe(201);
    expect(broadcast.body.data.txid).toBe(built.body.data.txID);
    await mainnet.mine(1);
    expect((await api('GET', `/balances/${to.address}/trc20/${USDT}`)).body.data.balance).toBe('3000000');
  });

  it('broadcasts a top-level signed TRX transfer and refuses a forged signature', async () => {
    const account = utils.accounts.generateAccount();
    const from = derive(account.privateKey);
    const to = await newAddress();
    await mainnet.faucetTrx(from, 5_000_000n);
    await mainnet.faucetTrx(to.address, 1_000_000n);
    const node = new TronWeb({ fullHost: mainnet.url });
    const unsigned = await node.transactionBuilder.sendTrx(to.address, 1_000_000, from);
    const stranger = utils.accounts.generateAccount();
    const forged = utils.crypto.signTransaction(stranger.privateKey, structuredClone(unsigned));
    const refused = await api('POST', '/transactions/broadcast', { json: forged });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/^Validate signature error/);
    const signed = utils.crypto.signTransaction(account.privateKey, unsigned);
    expectCreated(await api('POST', '/transactions/broadcast', { json: signed }));
    await mainnet.mine(1);
    expect(await trxBalance(to.address)).toBe(2_000_000n);
    const garbage = await api('POST', '/transactions/broadcast', { json: { txID: 'x', raw_data: {} } });
    expect(garbage.status).toBe(422);
  });
});

describe('staking', () => {
  it("freezes, delegates, undelegates and unfreezes with the node's own refusals", async () => {
    const owner = await newAddress(PASSWORD);
    const receiver = await newAddress();
    await mainnet.faucetTrx(owner.address, 200_000_000n);
    await mainnet.faucetTrx(receiver.address, 1_000_000n);
    const body = (extra: Record<string, unknown>) => ({
      json: { address: owner.address, password: PASSWORD, ...extra },
    });

    const wrongPassword = await api('POST', '/freeze', {
      json: { address: owner.address, password: 'not the password', amount: 100, resource: 'ENERGY' },
    });
    expect(wrongPassword.status).toBe(422);
    expect(wrongPassword.body.message).toMatch(/^Validate signature error: /);
    const frozen = await api('POST', '/freeze', body({ amount: 100, resource: 'ENERGY' }));
    expect(frozen.status, frozen.text).toBe(200);
    expect(frozen.body).toMatchObject({
      message: 'Balance frozen',
      data: { result: true, txid: expect.any(String) },
    });
    await mainnet.mine(1);

    const self = await api(
      'POST',
      '/delegate',
      body({ amount: 10, resource: 'ENERGY', receiver: owner.address }),
    );
    expect(self.status).toBe(422);
    expect(self.body.message).toMatch(/receiverAddress must not be the same as ownerAddress/);

    const delegated = await api(
      'POST',
      '/delegate',
      body({ amount: 50, resource: 'ENERGY', receiver: receiver.address }),
    );
    expect(delegated.body).toMatchObject({ status: 200, message: 'Delegated' });
    await mainnet.mine(1);
    const missing = await api(
      'POST',
      '/undelegate',
      body({ amount: 10, resource: 'BANDWIDTH', receiver: receiver.address }),
    );
    expect(missing.status).toBe(422);
    const undelegated = await api(
      'POST',
      '/undelegate',
      body({ amount: 50, resource: 'ENERGY', receiver: receiver.address }),
    );
    expect(undelegated.body).toMatchObject({ status: 200, message: 'Undelegated' });
    await mainnet.mine(1);
    const unfrozen = await api('POST', '/unfreeze', body({ amount: 100, resource: 'ENERGY' }));
    expect(unfrozen.body).toMatchObject({ status: 200, message: 'Balance unfrozen' });
    expect((await api('POST', '/freeze', body({ amount: 1, resource: 'WATER' }))).status).toBe(422);
  });
});

describe('history and transaction quota', () => {
  it('lists every send made through the gateway, failures too, in pages of 50', async () => {
    const res = await api('GET', '/transactions?page=1');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ current_page: 1, per_page: 50, from: 1 });
    expect(res.body.total).toBeGreaterThan(5);
    const records = res.body.data as Record<string, unknown>[];
    expect(records[0]).toMatchObject({
      blockchain: 'tron',
      network: 'mainnet',
      // Every amount with exactly its asset's decimals: TRX and the demo tokens have 6.
      amount: expect.stringMatching(/^\d+\.\d{6}$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    });
    // As Chaingateway: user_id an integer (the user's number), responseJson and httpStatus text.
    const owner = await gw.ctx.store.db
      .selectFrom('users')
      .select('number')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(Number.isInteger(owner.number) && owner.number >= 1).toBe(true);
    expect(records.every((r) => r['user_id'] === owner.number)).toBe(true);
    const failure = records.find((r) => r['httpStatus'] === '422');
    expect(typeof failure?.['responseJson']).toBe('string');
    expect(JSON.parse(String(failure?.['responseJson']))).toHaveProperty('message');
    const sent = records.find((r) => r['httpStatus'] === '201' && r['type'] === 'TRC20');
    expect(JSON.parse(String(sent?.['responseJson']))).toMatchObject({ txid: sent?.['txid'] });
    expect(records.every((r) => r['httpStatus'] === null || /^\d{3}$/.test(String(r['httpStatus'])))).toBe(
      true,
    );
    const beyond = await api('GET', '/transactions?page=99');
    expect(beyond.body.data).toEqual([]);
    expect((await api('GET', '/transactions?page=0')).status).toBe(422);
  });

  it('reads rows stored padded to 12 decimals by the amount rule', async () => {
    const at = new Date().toISOString();
    const row = { user_id: userId, blockchain: 'tron', network: 'mainnet', http_status: 201 };
    const stored = [
      { type: 'TRX', amount: '1.500000000000', reads: '1.500000' },
      { type: 'FREEZE', amount: '100.000000000000', reads: '100.000000' },
      { type: 'TRC721', amount: '1.000000000000', reads: '1' },
      // A token's decimals are its contract's, which the row does not name: it reads as stored.
      { type: 'TRC20', amount: '12.500000000000', reads: '12.500000000000' },
    ];
    for (const [i, { type, amount }] of stored.entries()) {
      await gw.ctx.store.db
        .insertInto('transactions')
        .values({
          ...row,
          type,
          amount,
          txid: `old${i}`,
          from: null,
          to: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
    }
    const first = await api('GET', '/transactions?page=1');
    const last = await api('GET', `/transactions?page=${first.body.last_page}`);
    const records = last.body.data as Record<string, unknown>[];
    for (const [i, { type, reads }] of stored.entries()) {
      expect(records.find((r) => r['txid'] === `old${i}`)).toMatchObject({ type, amount: reads });
    }
  });

  it('counts a send as a transaction and refuses one over the plan', async () => {
    const { token: small } = await gw.userToken(undefined, 'cramped');
    const from = utils.accounts.generateAccount();
    const address = derive(from.privateKey);
    await mainnet.faucetTrx(address, 10_000_000n);
    const to = await newAddress();
    const send = () =>
      gw.request('POST', '/api/v2/tron/transactions', {
        token: small,
        json: { from: address, to: to.address, amount: 1, privatekey: from.privateKey },
      });
    expectCreated(await send());
    const refused = await send();
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe('Your transaction limit exceeded. Please upgrade your plan');
  });
});
