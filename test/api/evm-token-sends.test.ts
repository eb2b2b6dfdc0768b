import { encodeFunctionData, type Hex, parseAbi, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvmNonceDatabase } from '../../src/chains/evm/nonce-store.ts';
import { type RequestOptions, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { sendOutcomesOf } from '../helpers/send-outcomes.ts';
import { type SharedEvmDevnet, sharedEvmDevnet } from '../helpers/shared-devnets.ts';

/**
 * Token sends that cannot work are refused before signing (no nonce, no quota, a failure in the
 * history); a mined token call that moved nothing reads FAILED in the lookups and the history.
 */
const TOKEN_ABI = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);
const GWEI = 1_000_000_000n;

let devnet: SharedEvmDevnet;
let gw: TestGateway;
let token: string;
let userId: string;

const api = (method: string, path: string, options: RequestOptions = {}) =>
  gw.request(method, `/api/v2/ethereum${path}`, { token, ...options });

/** An address nothing was ever deployed to. */
const noCode = () => privateKeyToAccount(generatePrivateKey()).address;

async function newAddress() {
  const res = await api('POST', '/addresses', { json: {} });
  expect(res.status, res.text).toBe(201);
  return res.body.data[0] as { address: string; privateKey: string };
}

async function fundedSender() {
  const from = await newAddress();
  await devnet.faucetNative(from.address, parseEther('1'));
  return from;
}

async function transactionsUsed(): Promise<number> {
  const rows = await gw.ctx.store.db
    .selectFrom('quota_usage')
    .select('transactions')
    .where('user_id', '=', userId)
    .execute();
  return rows.reduce((sum, row) => sum + Number(row.transactions), 0);
}

/** The nonce manager's rows for `address`: none when no nonce was ever taken for it. */
async function nonceRows(address: string) {
  const lower = address.toLowerCase();
  const db = gw.ctx.store.db.withTables<EvmNonceDatabase>();
  const [nonces, pending] = await Promise.all([
    db.selectFrom('evm_nonces').selectAll().where('address', '=', lower).execute(),
    db.selectFrom('evm_pending').selectAll().where('address', '=', lower).execute(),
  ]);
  return nonces.length + pending.length;
}

interface HistoryItem {
  txid: string | null;
  type: string;
  from: string | null;
  amount: string | null;
  /** Text, as Chaingateway lists it: "201", "422". */
  httpStatus: string;
  /** The stored answer, parsed from the JSON text the list gives. */
  responseJson: Record<string, unknown>;
}

async function history(): Promise<HistoryItem[]> {
  const res = await api('GET', '/transactions?page=1');
  expect(res.status, res.text).toBe(200);
  return (res.body.data as (Omit<HistoryItem, 'responseJson'> & { responseJson: string })[]).map((r) => ({
    ...r,
    responseJson: JSON.parse(r.responseJson),
  }));
}

beforeAll(async () => {
  devnet = await sharedEvmDevnet('ethereum');
  gw = await startGateway({ env: { ETHEREUM_MAINNET_URLS: devnet.url, NODE_RETRIES: '1' } });
  ({ token, userId } = await gw.userToken(undefined, 'enterprise'));
}, 120_000);

afterAll(async () => {
  await gw?.close();
});

describe('token sends refused before signing', () => {
  it('refuses an ERC721 send to an address without code: 422, no nonce, no quota, a failure in the history', async () => {
    const from = await fundedSender();
    const to = await newAddress();
    const used = await transactionsUsed();
    const contract = noCode();
    const res = await api('POST', '/transactions/erc721', {
      json: {
        from: from.address,
        to: to.address,
        contractaddress: contract,
        tokenId: '1',
        privatekey: from.privateKey,
      },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.message).toMatch(/^not a token contract/);
    expect(await transactionsUsed()).toBe(used);
    expect(await nonceRows(from.address)).toBe(0);
    expect(await devnet.rpc<Hex>('eth_getTransactionCount', [from.address, 'pending'])).toBe('0x0');
    const failure = (await history()).find((r) => r.from === from.address && r.type === 'ERC721');
    expect(failure).toMatchObject({ txid: null, httpStatus: '422' });
    expect(String(failure?.responseJson['error'])).toMatch(/^not a token contract/);
  });

  it('refuses an ERC20 send to an address without code, and a build of either token', async () => {
    const from = await fundedSender();
    const to = await newAddress();
    const contract = noCode();
    const erc20 = await api('POST', '/transactions/erc20', {
      json: {
        from: from.address,
        to: to.address,
        contractaddress: contract,
        amount: '1',
        privatekey: from.privateKey,
      },
    });
    expect(erc20.status, erc20.text).toBe(422);
    expect(erc20.body.message).toMatch(/^not a token contract/);
    for (const extra of [{ amount: '1' }, { tokenId: '1' }]) {
      const built = await api('POST', '/transactions/build', {
        json: { from: from.address, to: to.address, contractaddress: contract, ...extra },
      });
      expect(built.status, built.text).toBe(422);
      expect(built.body.message).toMatch(/^not a token contract/);
    }
    expect(await nonceRows(from.address)).toBe(0);
  });

  it('refuses an ERC721 send of a token the sender does not own, with the revert reason, gas given or not', async () => {
    const from = await fundedSender();
    const to = await newAddress();
    const nft = devnet.tokens.erc721.NFT;
    const tokenId = await devnet.faucetErc721(nft, devnet.accounts[4]!.address);
    const used = await transactionsUsed();
    for (const gas of [{}, { gas: '200000' }]) {
      const res = await api('POST', '/transactions/erc721', {
        json: {
          from: from.address,
          to: to.address,
          contractaddress: nft,
          tokenId: tokenId.toString(),
          privatekey: from.privateKey,
          ...gas,
        },
      });
      expect(res.status, res.text).toBe(422);
      expect(res.body.message).toBe('execution reverted: ERC721: transfer from incorrect owner');
    }
    expect(await transactionsUsed()).toBe(used);
    expect(await nonceRows(from.address)).toBe(0);
    const owner = await api('GET', `/nfts/${nft}/owner/${tokenId}`);
    expect(owner.body.data.owner).toBe(devnet.accounts[4]!.address);
  });

  it('refuses an ERC20 send above the balance', async () => {
    const from = await fundedSender();
    const to = await newAddress();
    const usdt = devnet.tokens.erc20.USDT;
    await devnet.faucetErc20(usdt, from.address, 1_000_000n);
    const used = await transactionsUsed();
    const res = await api('POST', '/transactions/erc20', {
      json: {
        from: from.address,
        to: to.address,
        contractaddress: usdt,
        amount: '1.000001',
        privatekey: from.privateKey,
      },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.message).toBe('execution reverted: ERC20: transfer amount exceeds balance');
    expect(await transactionsUsed()).toBe(used);
    expect(await nonceRows(from.address)).toBe(0);
    // The whole balance goes: the refusal took no nonce, so this one lands with nonce 0.
    const ok = await api('POST', '/transactions/erc20', {
      json: {
        from: from.address,
        to: to.address,
        contractaddress: usdt,
        amount: '1',
        privatekey: from.privateKey,
      },
    });
    expect(ok.status, ok.text).toBe(201);
    expect(await transactionsUsed()).toBe(used + 1);
    const sent = await api('GET', `/transactions/${ok.body.data.txid}`);
    expect(sent.body.data.transaction.nonce).toBe('0');
  });
});

describe('a mined token call that moved nothing', () => {
  it('reads FAILED in the decoded lookups and, once its outcome was recorded, in the history', async () => {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    await devnet.faucetNative(account.address, parseEther('1'));
    const rawtx = await account.signTransaction({
      type: 'eip1559',
      chainId: devnet.chainId,
      nonce: 0,
      to: noCode(),
      data: encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [noCode(), 5n] }),
      gas: 100_000n,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: GWEI,
    });
    const sent = await api('POST', '/transactions/broadcast', { json: { rawtx } });
    expect(sent.status, sent.text).toBe(201);
    const txid = sent.body.data.txid as string;
    // The node calls it a success: the call reverted nowhere, it just had nothing to run.
    const node = await devnet.rpc<{ status: Hex }>('eth_getTransactionReceipt', [txid]);
    expect(node.status).toBe('0x1');

    const decoded = await api('GET', `/transactions/${txid}/decoded`);
    expect(decoded.body.data.transaction).toMatchObject({ status: 'FAILED', type: 'ERC20' });
    const receipt = await api('GET', `/transactions/${txid}/receipt/decoded`);
    expect(receipt.body.data.status).toBe('FAILED');

    // A real token transfer beside it stays a success.
    const from = await fundedSender();
    const usdt = devnet.tokens.erc20.USDT;
    await devnet.faucetErc20(usdt, from.address, 3_000_000n);
    const ok = await api('POST', '/transactions/erc20', {
      json: {
        from: from.address,
        to: account.address,
        contractaddress: usdt,
        amount: '2',
        privatekey: from.privateKey,
      },
    });
    expect(ok.status, ok.text).toBe(201);
    const okTxid = ok.body.data.txid as string;
    expect((await api('GET', `/transactions/${okTxid}/decoded`)).body.data.transaction.status).toBe(
      'SUCCESS',
    );
    expect((await api('GET', `/transactions/${okTxid}/receipt/decoded`)).body.data.status).toBe('SUCCESS');

    const before = await history();
    expect(before.find((r) => r.txid === txid)?.responseJson).toEqual({ txid });
    await sendOutcomesOf(gw).runOnce();
    const after = await history();
    const failed = after.find((r) => r.txid === txid);
    // Read from the signed transaction: a transfer call, of a token whose decimals nobody can say.
    expect(failed).toMatchObject({ httpStatus: '201', type: 'ERC20', from: account.address, amount: null });
    expect(failed?.responseJson).toMatchObject({
      txid,
      status: 'FAILED',
      error: expect.stringMatching(/no Transfer event/),
    });
    expect(after.find((r) => r.txid === okTxid)?.responseJson).toEqual({ txid: okTxid, status: 'SUCCESS' });
  });
});
