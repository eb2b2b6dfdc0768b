// Bitcoin's HD wallets and sends through the HTTP API, on the shared Bitcoin devnet (as mainnet): a
// wallet's receive addresses, a send by walletname spending coins of several of its addresses, the fee
// speeds and an explicit fee rate, subtractfee, the refusals before signing, and a wallet that holds
// coins refused deletion. The gateway signs with @scure/btc-signer; the devnet verifies every input with
// bitcoinjs-lib.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type SharedBitcoinDevnet, sharedBitcoinDevnet } from '../helpers/shared-devnets.ts';

const PASSWORD = 'correct horse battery';
const SATS = 100_000_000n;

let devnet: SharedBitcoinDevnet;
let gw: TestGateway;
let token: string;

beforeAll(async () => {
  devnet = await sharedBitcoinDevnet();
  gw = await startGateway({
    env: { BITCOIN_MAINNET_URLS: devnet.url, NODE_RETRIES: '1', LOG_LEVEL: 'warn' },
  });
  ({ token } = await gw.userToken(undefined, 'enterprise'));
}, 60_000);

afterAll(async () => {
  await gw?.close();
});

const api = (method: string, path: string, json?: unknown): Promise<ApiResponse> =>
  gw.request(method, `/api/v2/bitcoin${path}`, { token, ...(method === 'POST' ? { json: json ?? {} } : {}) });

function expectStatus(res: ApiResponse, status: number) {
  expect(res.status, res.text).toBe(status);
  return res.body;
}

async function newWallet(): Promise<string> {
  const created = expectStatus(await api('POST', '/wallets', { password: PASSWORD }), 201);
  expect(created.data.bitcoinwallet).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  return created.data.bitcoinwallet;
}

async function sats(address: string): Promise<bigint> {
  return BigInt(expectStatus(await api('GET', `/balances/${address}`), 200).data.balance_sats);
}

async function paid(address: string, amount: bigint): Promise<void> {
  await devnet.faucet(address, amount);
  await devnet.mine(1);
}

describe('Bitcoin wallets', () => {
  it('lists a new wallet with its first address, and makes a fresh receive address on each POST', async () => {
    const name = await newWallet();
    expect(expectStatus(await api('GET', '/wallets'), 200).data.wallets).toContain(name);
    const first = expectStatus(await api('GET', `/wallets/${name}/addresses`), 200).data;
    expect(first.address).toMatch(/^bc1q/);
    expect(first.addresses).toEqual([
      expect.objectContaining({ address: first.address, path: "m/84'/0'/0'/0/0" }),
    ]);
    const fresh = expectStatus(await api('POST', `/wallets/${name}/addresses`), 201).data;
    expect(fresh).toMatchObject({ index: 1, path: "m/84'/0'/0'/0/1" });
    expect(fresh.address).not.toBe(first.address);
    const wallet = expectStatus(await api('GET', `/wallets/${name}`), 200).data;
    expect(wallet).toMatchObject({
      name,
      address: fresh.address,
      addresses: 2,
      balance: '0.00000000',
      transactions: 0,
    });
  });

  it('sends by walletname with coins of two addresses, change back to the wallet', async () => {
    const name = await newWallet();
    const first = expectStatus(await api('GET', `/wallets/${name}/addresses`), 200).data.address;
    const second = expectStatus(await api('POST', `/wallets/${name}/addresses`), 201).data.address;
    await paid(first, SATS / 2n);
    await paid(second, SATS / 2n);
    const held = expectStatus(await api('GET', `/wallets/${name}`), 200).data;
    expect(held).toMatchObject({ balance: '1.00000000', transactions: 2 });

    const to = expectStatus(await api('POST', '/addresses'), 201).data[0].address;
    const sent = expectStatus(
      await api('POST', '/transactions', {
        walletname: name,
        to,
        amount: '0.7',
        password: PASSWORD,
        feerate: 3,
      }),
      201,
    ).data;
    expect(sent.feerate).toBe('3');
    await devnet.mine(1);
    expect(await sats(to)).toBe(70_000_000n);

    const inputs = expectStatus(await api('GET', `/transactions/${sent.txid}/receipt/decoded`), 200).data
      .inputs;
    expect(new Set(inputs.map((input: { address: string }) => input.address))).toEqual(
      new Set([first, second]),
    );
    const after = expectStatus(await api('GET', `/wallets/${name}`), 200).data;
    expect(after.balance).toBe((0.3 - Number(sent.fee)).toFixed(8));
  });

  it("sends twice in one block interval, the second spending the first's unconfirmed change", async () => {
    const name = await newWallet();
    const first = expectStatus(await api('GET', `/wallets/${name}/addresses`), 200).data.address;
    await paid(first, SATS / 2n);
    const to = expectStatus(await api('POST', '/addresses'), 201).data[0].address;
    const payment = { walletname: name, to, password: PASSWORD, feerate: 2 };
    const one = expectStatus(await api('POST', '/transactions', { ...payment, amount: '0.2' }), 201).data;
    const two = expectStatus(await api('POST', '/transactions', { ...payment, amount: '0.25' }), 201).data;
    const inputs = expectStatus(await api('GET', `/transactions/${two.txid}/receipt/decoded`), 200).data
      .inputs;
    expect(inputs.map((input: { txid: string }) => input.txid)).toEqual([one.txid]);
    await devnet.mine(1);
    expect(await sats(to)).toBe(45_000_000n);
  });

  it("refuses a wrong wallet password with 422 in Core's words, and deleting a wallet that holds coins with 422", async () => {
    const name = await newWallet();
    const address = expectStatus(await api('GET', `/wallets/${name}/addresses`), 200).data.address;
    await paid(address, SATS / 10n);
    const to = expectStatus(await api('POST', '/addresses'), 201).data[0].address;
    const wrong = await api('POST', '/transactions', {
      walletname: name,
      to,
      amount: '0.01',
      password: 'not it',
    });
    expect(wrong.status, wrong.text).toBe(422);
    expect(wrong.body.message).toBe('Error: The wallet passphrase entered was incorrect.');
    const refused = await api('DELETE', `/wallets/${name}`);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.message).toMatch(/^The wallet still holds 0\.1 BTC/);
    const exported = expectStatus(
      await api('POST', `/wallets/${name}/export`, { password: PASSWORD }),
      200,
    ).data;
    expect(exported.mnemonic.split(' ')).toHaveLength(24);
    const empty = await newWallet();
    expectStatus(await api('DELETE', `/wallets/${empty}`), 200);
    expect((await api('GET', `/wallets/${empty}`)).status).toBe(404);
  });
});

describe('Bitcoin sends', () => {
  async function funded(amount: bigint): Promise<string> {
    const address = expectStatus(await api('POST', '/addresses', { password: PASSWORD }), 201).data[0]
      .address;
    await paid(address, amount);
    return address;
  }

  it('pays the fee rate of the speed asked, from the node estimates', async () => {
    await devnet.setFeeEstimates({ '1': 12.5, '3': 6, '6': 2.25, '144': 1 });
    const from = await funded(SATS);
    const to = expectStatus(await api('POST', '/addresses'), 201).data[0].address;
    for (const [speed, rate] of [
      ['fast', '12.5'],
      ['medium', '6'],
      ['slow', '2.25'],
    ] as const) {
      const built = expectStatus(
        await api('POST', '/transactions/build', { from, to, amount: '0.1', speed }),
        200,
      );
      expect(built.data.feerate).toBe(rate);
      expect(Number(built.data.fee) * 1e8).toBeGreaterThanOrEqual(Number(rate) * built.data.vsize);
    }
  });

  it('with subtractfee, the receiver gets the amount less the fee and the sender is emptied', async () => {
    const from = await funded(SATS / 100n);
    const to = expectStatus(await api('POST', '/addresses'), 201).data[0].address;
    const sent = expectStatus(
      await api('POST', '/transactions', { from, to, amount: '0.01', subtractfee: true, password: PASSWORD }),
      201,
    ).data;
    await devnet.mine(1);
    const fee = BigInt(Math.round(Number(sent.fee) * 1e8));
    expect(await sats(to)).toBe(SATS / 100n - fee);
    expect(await sats(from)).toBe(0n);
  });

  it('refuses before signing: another network, dust, an unconfirmed balance, a bad fee rate', async () => {
    const from = await funded(SATS / 100n);
    const tb = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
    const other = await api('POST', '/transactions', { from, to: tb, amount: '0.001', password: PASSWORD });
    expect(other.status, other.text).toBe(422);
    expect(other.body.errors).toEqual([expect.objectContaining({ field: 'to' })]);
    const to = expectStatus(await api('POST', '/addresses'), 201).data[0].address;
    const dust = await api('POST', '/transactions', { from, to, amount: '0.00000100', password: PASSWORD });
    expect(dust.status, dust.text).toBe(422);
    expect(dust.body.errors).toEqual([expect.objectContaining({ field: 'amount' })]);
    const rate = await api('POST', '/transactions', {
      from,
      to,
      amount: '0.001',
      feerate: 0.5,
      password: PASSWORD,
    });
    expect(rate.body.errors).toEqual([expect.objectContaining({ field: 'feerate' })]);

    const waiting = expectStatus(await api('POST', '/addresses', { password: PASSWORD }), 201).data[0]
      .address;
    await devnet.faucet(waiting, SATS / 100n);
    const unconfirmed = await api('POST', '/transactions', {
      from: waiting,
      to,
      amount: '0.001',
      password: PASSWORD,
    });
    expect(unconfirmed.status, unconfirmed.text).toBe(422);
    expect(unconfirmed.body.message).toMatch(/^Insufficient funds: .*0\.01 BTC more is still unconfirmed$/);
    await devnet.mine(1);
  });

  it('answers a transaction as Chaingateway does, its raw hex under txid, and an unknown one with 422', async () => {
    const from = await funded(SATS / 100n);
    const to = expectStatus(await api('POST', '/addresses'), 201).data[0].address;
    const { txid } = expectStatus(
      await api('POST', '/transactions', { from, to, amount: '0.001', password: PASSWORD }),
      201,
    ).data;
    const raw = expectStatus(await api('GET', `/transactions/${txid}`), 200).data;
    expect(raw.txid).toMatch(/^02000000/);
    const receipt = expectStatus(await api('GET', `/transactions/${txid}/receipt`), 200).data;
    expect(receipt).toMatchObject({ status: 'unconfirmed', confirmations: 0, rbf: true });
    await devnet.mine(1);
    expect(expectStatus(await api('GET', `/transactions/${txid}/receipt`), 200).data).toMatchObject({
      status: 'confirmed',
      confirmations: 1,
    });
    const unknown = await api('GET', `/transactions/${'ab'.repeat(32)}`);
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toMatch(/^No such mempool or blockchain transaction/);
  });
});
