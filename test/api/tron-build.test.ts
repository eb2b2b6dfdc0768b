import { TronWeb, type Types, utils } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, type RequestOptions, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type SharedTronDevnet, sharedTronDevnet } from '../helpers/shared-devnets.ts';

/**
 * Unsigned builds of every Tron send, signed by tronweb exactly as a user runs it (`trx.sign` on the
 * object the gateway returned, nothing converted), broadcast through the gateway and checked through its
 * read routes, against a Tron devnet on the test database.
 */
const PLANS = [
  {
    name: 'roomy',
    period: 'month',
    quotas: { webhooks: 10, addresses: 40, requests: null, transactions: 200 },
  },
];

let gw: TestGateway;
let devnet: SharedTronDevnet;
let token: string;
let USDT: string;
let NFT: string;
let TRC10: string;

const api = (method: string, path: string, options: RequestOptions = {}) =>
  gw.request(method, `/api/v2/tron${path}`, { token, ...options });

/** A key the user holds, and the TronWeb instance they sign with. */
function userWallet() {
  const { privateKey } = utils.accounts.generateAccount();
  const tronWeb = new TronWeb({ fullHost: devnet.url, privateKey });
  return { privateKey, tronWeb, address: tronWeb.address.fromPrivateKey(privateKey) as string };
}

function newReceiver(): string {
  return utils.accounts.generateAccount().address.base58;
}

/** The unsigned transaction the gateway answered, as the JSON it is (no field touched). */
function expectUnsigned(res: ApiResponse): Types.Transaction {
  expect(res.status, res.text).toBe(200);
  expect(res.body.data).toMatchObject({
    txID: expect.stringMatching(/^[0-9a-f]{64}$/),
    raw_data: { contract: [expect.any(Object)] },
    raw_data_hex: expect.stringMatching(/^[0-9a-f]+$/),
  });
  expect(res.body.data.signature).toBeUndefined();
  return res.body.data;
}

/** Signs with tronweb as it is and broadcasts through the gateway; the txid is the one built. */
async function signAndBroadcast(wallet: ReturnType<typeof userWallet>, unsigned: Types.Transaction) {
  const signed = await wallet.tronWeb.trx.sign(unsigned, wallet.privateKey);
  const res = await api('POST', '/transactions/broadcast', { json: signed });
  expect(res.status, res.text).toBe(201);
  expect(res.body.data.txid).toBe(unsigned.txID);
  await devnet.mine(1);
  return res.body.data.txid as string;
}

async function balance(path: string): Promise<string> {
  const res = await api('GET', `/balances/${path}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.balance;
}

async function history(): Promise<Record<string, unknown>[]> {
  const res = await api('GET', '/transactions?page=1');
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/**
 * What the gateway's history says about `txid`: the amount without the padding zeros of its format, the
 * status as text (how the entry prints either is not what these tests are about).
 */
async function historyOf(txid: string) {
  const entry = (await history()).find((record) => record['txid'] === txid);
  expect(entry, txid).toBeDefined();
  const amount = String(entry!['amount'])
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
  return { ...entry, amount, httpStatus: String(entry!['httpStatus']) };
}

async function transactionsLeft(): Promise<number> {
  const res = await gw.request('GET', '/api/account', { token });
  return res.body.data.quotas_left.transactions;
}

beforeAll(async () => {
  devnet = await sharedTronDevnet();
  USDT = devnet.tokens.trc20.USDT;
  NFT = devnet.tokens.trc721.NFT;
  TRC10 = Object.values(devnet.tokens.trc10)[0]!;
  gw = await startGateway({
    env: {
      PLANS: JSON.stringify(PLANS),
      TRON_MAINNET_URLS: devnet.url,
      TRON_TESTNET_URLS: devnet.url,
      NODE_RETRIES: '1',
      NODE_TIMEOUT_MS: '5000',
    },
  });
  ({ token } = await gw.userToken(undefined, 'roomy'));
}, 120_000);

afterAll(async () => {
  await gw?.close();
});

describe('build, sign with tronweb, broadcast', () => {
  it('TRX: the receiver gets the amount built', async () => {
    const wallet = userWallet();
    const to = newReceiver();
    await devnet.faucetTrx(wallet.address, 10_000_000n);
    const unsigned = expectUnsigned(
      await api('POST', '/transactions/build', { json: { from: wallet.address, to, amount: '1.5' } }),
    );
    expect(unsigned.raw_data.contract).toMatchObject([{ type: 'TransferContract' }]);
    const txid = await signAndBroadcast(wallet, unsigned);
    expect(await balance(to)).toBe('1500000');
    expect(await historyOf(txid)).toMatchObject({
      type: 'TRX',
      from: wallet.address,
      to,
      amount: '1.5',
      contractaddress: null,
      tokenid: null,
      httpStatus: '201',
    });
  });

  it('TRC10: the receiver gets the amount built, in the asset units', async () => {
    const wallet = userWallet();
    const to = newReceiver();
    await devnet.faucetTrx(wallet.address, 10_000_000n);
    await devnet.faucetTrc10(TRC10, wallet.address, 5_000_000n);
    const unsigned = expectUnsigned(
      await api('POST', '/transactions/trc10/build', {
        json: { from: wallet.address, to, tokenId: TRC10, amount: '2.5' },
      }),
    );
    expect(unsigned.raw_data.contract).toMatchObject([{ type: 'TransferAssetContract' }]);
    const txid = await signAndBroadcast(wallet, unsigned);
    expect(await balance(`${to}/trc10/${TRC10}`)).toBe('2500000');
    expect(await historyOf(txid)).toMatchObject({
      type: 'TRC10',
      from: wallet.address,
      to,
      amount: '2.5',
      contractaddress: null,
      tokenid: TRC10,
    });
  });

  it('TRC20: the receiver gets the amount built, in the token units', async () => {
    const wallet = userWallet();
    const to = newReceiver();
    await devnet.faucetTrx(wallet.address, 50_000_000n);
    await devnet.faucetTrc20(USDT, wallet.address, 3_000_000n);
    const unsigned = expectUnsigned(
      await api('POST', '/transactions/trc20/build', {
        json: { from: wallet.address, to, contractaddress: USDT, amount: '3' },
      }),
    );
    expect(unsigned.raw_data.contract).toMatchObject([{ type: 'TriggerSmartContract' }]);
    const txid = await signAndBroadcast(wallet, unsigned);
    expect(await balance(`${to}/trc20/${USDT}`)).toBe('3000000');
    expect(await historyOf(txid)).toMatchObject({
      type: 'TRC20',
      from: wallet.address,
      to,
      amount: '3',
      contractaddress: USDT,
      tokenid: null,
    });
  });

  it('TRC721: the receiver owns the token built', async () => {
    const wallet = userWallet();
    const to = newReceiver();
    await devnet.faucetTrx(wallet.address, 50_000_000n);
    const tokenId = await devnet.faucetTrc721(NFT, wallet.address);
    const unsigned = expectUnsigned(
      await api('POST', '/transactions/trc721/build', {
        json: { from: wallet.address, to, contractaddress: NFT, tokenid: tokenId.toString() },
      }),
    );
    expect(unsigned.raw_data.contract).toMatchObject([{ type: 'TriggerSmartContract' }]);
    const txid = await signAndBroadcast(wallet, unsigned);
    // The gateway has no TRC721 owner route: its receipt shows the token moving, the contract confirms it.
    const receipt = await api('GET', `/transactions/${txid}/receipt/decoded`);
    expect(receipt.body.data).toMatchObject({
      status: 'SUCCESS',
      transfers: [{ contractaddress: NFT, from: wallet.address, to, value: tokenId.toString() }],
    });
    const nft = await wallet.tronWeb.contract().at(NFT);
    const owner = (await nft.methods.ownerOf(tokenId).call()) as string;
    expect(wallet.tronWeb.address.fromHex(owner)).toBe(to);
    expect(await historyOf(txid)).toMatchObject({
      type: 'TRC721',
      from: wallet.address,
      to,
      amount: '1',
      contractaddress: NFT,
      tokenid: tokenId.toString(),
    });
  });

  it("refuses a transaction signed with another key with the node's own message", async () => {
    const wallet = userWallet();
    const stranger = userWallet();
    const to = newReceiver();
    await devnet.faucetTrx(wallet.address, 10_000_000n);
    const unsigned = expectUnsigned(
      await api('POST', '/transactions/build', { json: { from: wallet.address, to, amount: '1' } }),
    );
    // tronweb signs with a key that is not the owner's only on the multisig path.
    await expect(stranger.tronWeb.trx.sign(unsigned, stranger.privateKey)).rejects.toThrow(
      /Private key does not match/,
    );
    const forged = await stranger.tronWeb.trx.sign(unsigned, stranger.privateKey, true, true);
    const res = await api('POST', '/transactions/broadcast', { json: forged });
    expect(res.status, res.text).toBe(422);
    expect(res.body.message).toBe(
      `Validate signature error: ${forged.signature[0]!.toLowerCase()} is signed by ${stranger.address} ` +
        'but it is not contained of permission.',
    );
    await devnet.mine(1);
    expect(await balance(to)).toBe('0');
    expect(await historyOf(unsigned.txID)).toMatchObject({
      type: 'TRX',
      from: wallet.address,
      to,
      amount: '1',
      httpStatus: '422',
    });
  });
});

describe('builds', () => {
  it('broadcast nothing, store nothing and use no transaction quota', async () => {
    const wallet = userWallet();
    const to = newReceiver();
    await devnet.faucetTrx(wallet.address, 50_000_000n);
    await devnet.faucetTrc10(TRC10, wallet.address, 1_000_000n);
    await devnet.faucetTrc20(USDT, wallet.address, 1_000_000n);
    const tokenId = await devnet.faucetTrc721(NFT, wallet.address);
    const [entries, left] = [(await history()).length, await transactionsLeft()];
    const from = wallet.address;
    for (const [path, json] of [
      ['/transactions/build', { from, to, amount: 1 }],
      ['/transactions/trc10/build', { from, to, tokenId: TRC10, amount: 1 }],
      ['/transactions/trc20/build', { from, to, contractaddress: USDT, amount: 1 }],
      ['/transactions/trc721/build', { from, to, contractaddress: NFT, tokenid: Number(tokenId) }],
    ] as const) {
      expectUnsigned(await api('POST', path, { json }));
    }
    await devnet.mine(1);
    expect(await balance(to)).toBe('0');
    expect((await history()).length).toBe(entries);
    expect(await transactionsLeft()).toBe(left);
  });

  it('take the send bodies, sign nothing, and refuse what they cannot build', async () => {
    const wallet = userWallet();
    const to = newReceiver();
    await devnet.faucetTrx(wallet.address, 5_000_000n);
    const from = wallet.address;
    // A key sent along is not used: the answer is still unsigned, and never quotes it.
    const withKey = await api('POST', '/transactions/build', {
      json: { from, to, amount: 1, privatekey: wallet.privateKey },
    });
    expectUnsigned(withKey);
    expect(withKey.text).not.toContain(wallet.privateKey);
    for (const amount of ['0', '-1', '1.0000001', 'abc']) {
      const res = await api('POST', '/transactions/build', { json: { from, to, amount } });
      expect(res.status, amount).toBe(422);
      expect(res.body.errors, amount).toEqual([{ field: 'amount', message: expect.any(String) }]);
    }
    const tooMuch = await api('POST', '/transactions/build', { json: { from, to, amount: '50' } });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.message).toBe('balance is not sufficient');
    const noAsset = await api('POST', '/transactions/trc10/build', {
      json: { from, to, tokenId: '1999999', amount: 1 },
    });
    expect(noAsset.status).toBe(400);
    expect(noAsset.body.message).toBe('TRC10 token 1999999 does not exist');
    const noToken = await api('POST', '/transactions/trc721/build', {
      json: { from, to, contractaddress: NFT, tokenid: 'one' },
    });
    expect(noToken.status).toBe(422);
  });
});
