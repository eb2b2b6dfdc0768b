import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Hex, parseEther, parseTransaction } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../devnets/evm/index.ts';
import { recoverSender } from '../../src/chains/evm/transactions.ts';
import { type RequestOptions, startGateway, type TestGateway } from '../helpers/gateway.ts';

/**
 * An overspend answers the node's own words, figures included, as Chaingateway passes them through.
 * anvil words its refusals without figures; geth's pool says `insufficient funds for gas * price + value:
 * balance X, tx cost Y, overshot Z`, while its eth_estimateGas, given a price, says only `insufficient
 * funds for transfer` or `gas required exceeds allowance (N)`. The gateway here talks to anvil through a
 * proxy that answers those two methods as geth does (core/txpool/validation.go, eth/gasestimator).
 */
let devnet: EvmDevnet;
let geth: GethSpeakingNode;
let gw: TestGateway;
let token: string;

const api = (method: string, path: string, options: RequestOptions = {}) =>
  gw.request(method, `/api/v2/ethereum${path}`, { token, ...options });

interface GethSpeakingNode {
  url: string;
  /** Every refusal geth's words gave, in order. */
  refusals: string[];
  close(): Promise<void>;
}

type RpcCall = { from?: string; value?: string; gasPrice?: string; maxFeePerGas?: string };

async function gethSpeakingNode(upstream: string): Promise<GethSpeakingNode> {
  const refusals: string[] = [];
  const call = async (method: string, params: unknown[]) => {
    const res = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await res.json()) as { result?: unknown; error?: unknown };
  };
  const balanceOf = async (address: string) =>
    BigInt((await call('eth_getBalance', [address, 'latest'])).result as Hex);

  /** geth's refusal of this request, or null where geth would answer as anvil does. */
  const refusal = async (method: string, params: unknown[]): Promise<string | null> => {
    if (method === 'eth_estimateGas') {
      const request = params[0] as RpcCall;
      const value = BigInt(request.value ?? '0x0');
      const balance = await balanceOf(String(request.from));
      const feeCap = BigInt(request.maxFeePerGas ?? request.gasPrice ?? '0x0');
      if (feeCap === 0n) {
        // No price: only the value is checked, by the state transition.
        return value > balance
          ? `insufficient funds for gas * price + value: address ${request.from} have ${balance} want ${value}`
          : null;
      }
      if (value >= balance) return 'insufficient funds for transfer';
      const allowance = (balance - value) / feeCap;
      const estimate = BigInt((await call(method, params)).result as Hex);
      return estimate > allowance ? `gas required exceeds allowance (${allowance})` : null;
    }
    if (method === 'eth_sendRawTransaction') {
      const raw = params[0] as Hex;
      const tx = parseTransaction(raw);
      const balance = await balanceOf(await recoverSender(raw));
      const cost = (tx.gas ?? 0n) * (tx.maxFeePerGas ?? tx.gasPrice ?? 0n) + (tx.value ?? 0n);
      return balance < cost
        ? `insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`
        : null;
    }
    return null;
  };

  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      id: unknown;
      method: string;
      params: unknown[];
    };
    const message = await refusal(body.method, body.params ?? []);
    if (message !== null) refusals.push(message);
    const answer =
      message === null ? await call(body.method, body.params ?? []) : { error: { code: -32000, message } };
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, ...answer }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refusals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

beforeAll(async () => {
  devnet = await startEvmDevnet({ chain: 'ethereum' });
  geth = await gethSpeakingNode(devnet.url);
  gw = await startGateway({ env: { ETHEREUM_MAINNET_URLS: geth.url, NODE_RETRIES: '1' } });
  ({ token } = await gw.userToken(undefined, 'enterprise'));
}, 120_000);

afterAll(async () => {
  await gw?.close();
  await geth?.close();
  await devnet?.close();
});

/** A stored address holding `wei` of ETH. */
async function sender(wei: bigint) {
  const res = await api('POST', '/addresses', { json: {} });
  expect(res.status, res.text).toBe(201);
  const address = res.body.data[0] as { address: Hex; privateKey: Hex };
  if (wei > 0n) await devnet.faucetNative(address.address, wei);
  return address;
}

const receiver = () => privateKeyToAccount(generatePrivateKey()).address;
const POOL_REFUSAL =
  /^insufficient funds for gas \* price \+ value: balance (\d+), tx cost (\d+), overshot (\d+)$/;

describe('an overspend answers the node its own words, with its figures', () => {
  it('coin enough for the value but not the gas: the pool says balance, cost and overshoot', async () => {
    const from = await sender(parseEther('0.01'));
    const res = await api('POST', '/transactions', {
      json: { from: from.address, to: receiver(), amount: '0.00999', privatekey: from.privateKey },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.message).toBe(geth.refusals.at(-1));
    const [, balance, cost, overshot] = POOL_REFUSAL.exec(res.body.message) ?? [];
    expect(balance).toBe(parseEther('0.01').toString());
    expect(BigInt(cost!) - BigInt(balance!)).toBe(BigInt(overshot!));
  });

  it('a value above the balance: the node says what the sender has and what it wants', async () => {
    const from = await sender(parseEther('0.01'));
    const res = await api('POST', '/transactions', {
      json: { from: from.address, to: receiver(), amount: '5', privatekey: from.privateKey },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.message).toBe(
      `insufficient funds for gas * price + value: address ${from.address} have ${parseEther('0.01')} want ${parseEther('5')}`,
    );
  });

  it('a token send from an address without coin for gas: the pool says so, with its figures', async () => {
    const from = await sender(0n);
    await devnet.faucetErc20(devnet.tokens.erc20.USDT, from.address, 5_000_000n);
    const res = await api('POST', '/transactions/erc20', {
      json: {
        from: from.address,
        to: receiver(),
        contractaddress: devnet.tokens.erc20.USDT,
        amount: '1',
        privatekey: from.privateKey,
      },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.message).toBe(geth.refusals.at(-1));
    const [, balance, cost, overshot] = POOL_REFUSAL.exec(res.body.message) ?? [];
    expect(balance).toBe('0');
    expect(overshot).toBe(cost);
  });

  it('a build of the whole balance, signed and broadcast: the broadcast answers the pool', async () => {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    await devnet.faucetNative(account.address, parseEther('0.001'));
    const to = receiver();
    const built = await api('POST', '/transactions/build', {
      json: { from: account.address, to, amount: '0.001' },
    });
    expect(built.status, built.text).toBe(200);
    const rawtx = await account.signTransaction(parseTransaction(built.body.data.unsigned));
    const res = await api('POST', '/transactions/broadcast', { json: { rawtx } });
    expect(res.status, res.text).toBe(422);
    expect(res.body.message).toMatch(POOL_REFUSAL);
    expect(res.body.message).toBe(geth.refusals.at(-1));
    // The refused broadcast is listed with what it would have done, read from the signed transaction.
    const history = (await api('GET', '/transactions')).body.data as Record<string, unknown>[];
    expect(history.find((r) => r['from'] === account.address)).toMatchObject({
      txid: null,
      type: 'default',
      to,
      amount: expect.stringMatching(/^0\.0010*$/),
    });
  });
});
