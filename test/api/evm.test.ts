import { createWalletClient, http, parseEther, parseTransaction, serializeTransaction } from 'viem';
import { generatePrivateKey, privateKeyToAccount, signTransaction } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mistypedChecksum } from '../helpers/eip55.ts';
import { type ApiResponse, type RequestOptions, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type SharedEvmDevnet, sharedEvmDevnet, untilMined } from '../helpers/shared-devnets.ts';
import { SHARED_EVM_CHAINS, type SharedEvmChain } from '../helpers/shared-evm-chains.ts';

/**
 * The EVM routes through the real HTTP API against real anvil nodes, one per chain, with their chain ids:
 * the run's shared devnets (nothing here reorgs or stops a node).
 */
const CHAINS = SHARED_EVM_CHAINS;
const PASSWORD = 'correct horse battery';

let gw: TestGateway;
const devnets = {} as Record<SharedEvmChain, SharedEvmDevnet>;
let token: string;

const api = (chain: SharedEvmChain, method: string, path: string, options: RequestOptions = {}) =>
  gw.request(method, `/api/v2/${chain}${path}`, { token, ...options });

async function newAddress(chain: SharedEvmChain, password?: string) {
  const res = await api(chain, 'POST', '/addresses', { json: password ? { password } : {} });
  expect(res.status, res.text).toBe(201);
  return res.body.data[0] as { address: string; publicKey: string; privateKey?: string };
}

function expectChecksumRefusal(res: ApiResponse, field: string) {
  expect(res.status, res.text).toBe(422);
  expect(res.body.message).toBe('Data validation failed');
  expect(res.body.errors).toEqual([
    { field, message: `The ${field} field has an invalid EIP-55 checksum (a typo?).` },
  ]);
}

beforeAll(async () => {
  const started = await Promise.all(CHAINS.map((chain) => sharedEvmDevnet(chain)));
  const env: Record<string, string> = { NODE_RETRIES: '1', WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' };
  CHAINS.forEach((chain, i) => {
    const devnet = started[i]!;
    devnets[chain] = devnet;
    env[`${chain.toUpperCase()}_MAINNET_URLS`] = devnet.url;
  });
  gw = await startGateway({ env });
  ({ token } = await gw.userToken(undefined, 'enterprise'));
}, 180_000);

afterAll(async () => {
  await gw?.close();
});

describe.each(CHAINS)('%s', (chain) => {
  it('reads blocks, gas price and balances; sends native coin with a stored key', async () => {
    const devnet = devnets[chain];
    const head = await api(chain, 'GET', '/blocks/number');
    expect(head.body.data.blocknumber).toBeTypeOf('number');
    expect((await api(chain, 'GET', `/blocks/${head.body.data.blocknumber}`)).body.data.hash).toMatch(/^0x/);
    expect((await api(chain, 'GET', '/gasprice')).body.data.gasPrice).toMatch(/^\d+(\.\d+)?$/);
    const from = await newAddress(chain, PASSWORD);
    const to = await newAddress(chain);
    await devnet.faucetNative(from.address, parseEther('2'));
    const sent = await api(chain, 'POST', '/transactions', {
      json: { from: from.address, to: to.address.toLowerCase(), amount: '0.25', password: PASSWORD },
    });
    expect(sent.status, sent.text).toBe(201);
    await untilMined(devnet, sent.body.data.txid);
    const balance = await api(chain, 'GET', `/balances/${to.address}`);
    expect(balance.body.data).toBe('0.250000000000000000');
    const decoded = await api(chain, 'GET', `/transactions/${sent.body.data.txid}/decoded`);
    expect(decoded.body.data.transaction).toMatchObject({
      amount: '0.250000000000000000',
      status: 'SUCCESS',
      from: from.address,
      to: to.address,
    });
  });
});

describe.each(CHAINS)('%s refuses a mistyped (wrong EIP-55 checksum) address', (chain) => {
  it('on sends, before anything is read or signed', async () => {
    const from = await newAddress(chain);
    const to = await newAddress(chain);
    const usdt = devnets[chain].tokens.erc20.USDT;
    const nft = devnets[chain].tokens.erc721.NFT;
    const base = { from: from.address, to: to.address, privatekey: from.privateKey! };
    const recorded = (await api(chain, 'GET', '/transactions')).body.total;
    for (const field of ['from', 'to'] as const) {
      const native = await api(chain, 'POST', '/transactions', {
        json: { ...base, amount: '0.1', [field]: mistypedChecksum(base[field]) },
      });
      expectChecksumRefusal(native, field);
    }
    const erc20 = await api(chain, 'POST', '/transactions/erc20', {
      form: { ...base, amount: '1', contractaddress: mistypedChecksum(usdt) },
    });
    expectChecksumRefusal(erc20, 'contractaddress');
    const erc721 = await api(chain, 'POST', '/transactions/erc721', {
      json: { ...base, tokenId: '1', contractaddress: mistypedChecksum(nft) },
    });
    expectChecksumRefusal(erc721, 'contractaddress');
    // Refused as input, like any malformed field: nothing reaches the history.
    expect((await api(chain, 'GET', '/transactions')).body.total).toBe(recorded);
  });

  it('on builds; lower and upper case carry no checksum and are built', async () => {
    const from = devnets[chain].accounts[1]!.address;
    const to = (await newAddress(chain)).address;
    expectChecksumRefusal(
      await api(chain, 'POST', '/transactions/build', {
        json: { from, to: mistypedChecksum(to), amount: '0.1' },
      }),
      'to',
    );
    expectChecksumRefusal(
      await api(chain, 'POST', '/transactions/build', {
        json: { from, to, contractaddress: mistypedChecksum(devnets[chain].tokens.erc20.USDT), amount: '1' },
      }),
      'contractaddress',
    );
    for (const [sender, receiver] of [
      [from.toLowerCase(), to.toLowerCase()],
      [`0x${from.slice(2).toUpperCase()}`, `0x${to.slice(2).toUpperCase()}`],
    ]) {
      const built = await api(chain, 'POST', '/transactions/build', {
        json: { from: sender, to: receiver, amount: '0.1' },
      });
      expect(built.status, built.text).toBe(200);
    }
  });

  it('in route paths: balances, token reads, NFT reads, addresses', async () => {
    const mine = await newAddress(chain, PASSWORD);
    const usdt = devnets[chain].tokens.erc20.USDT;
    const nft = devnets[chain].tokens.erc721.NFT;
    expectChecksumRefusal(await api(chain, 'GET', `/balances/${mistypedChecksum(mine.address)}`), 'address');
    expectChecksumRefusal(
      await api(chain, 'GET', `/balances/${mine.address}/erc20/${mistypedChecksum(usdt)}`),
      'contract',
    );
    expectChecksumRefusal(await api(chain, 'GET', `/erc20/${mistypedChecksum(usdt)}`), 'contract');
    expectChecksumRefusal(await api(chain, 'GET', `/nfts/${mistypedChecksum(nft)}/owner/1`), 'contract');
    expectChecksumRefusal(
      await api(chain, 'POST', `/addresses/export/${mistypedChecksum(mine.address)}/privatekey`, {
        json: { password: PASSWORD },
      }),
      'address',
    );
    expectChecksumRefusal(
      await api(chain, 'DELETE', `/addresses/${mistypedChecksum(mine.address)}`),
      'address',
    );
    expect((await api(chain, 'GET', `/balances/${mine.address.toLowerCase()}`)).status).toBe(200);
  });

  it('on webhook creation (from, to, contractaddress); lower case is accepted', async () => {
    const watched = (await newAddress(chain)).address;
    const contract = devnets[chain].tokens.erc20.USDT;
    const url = 'http://127.0.0.1:9/hook';
    for (const [field, value] of [
      ['to', watched],
      ['from', watched],
      ['contractaddress', contract],
    ] as const) {
      const res = await api(chain, 'POST', '/webhooks', { json: { url, [field]: mistypedChecksum(value) } });
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors).toEqual([{ field, message: expect.any(String) }]);
      const lower = await api(chain, 'POST', '/webhooks', { json: { url, [field]: value.toLowerCase() } });
      expect(lower.status, lower.text).toBe(201);
      const checksummed = await api(chain, 'POST', '/webhooks', { json: { url, [field]: value } });
      expect(checksummed.status, checksummed.text).toBe(201);
    }
  });
});

describe('ethereum in depth', () => {
  const chain: SharedEvmChain = 'ethereum';

  it('sends ERC20 and ERC721, reads token info, NFT owner and URI', async () => {
    const devnet = devnets[chain];
    const from = await newAddress(chain);
    const to = await newAddress(chain);
    await devnet.faucetNative(from.address, parseEther('1'));
    await devnet.faucetErc20(devnet.tokens.erc20.USDT, from.address, 10_000_000n);
    const tokenId = await devnet.faucetErc721(devnet.tokens.erc721.NFT, from.address);
    const usdt = devnet.tokens.erc20.USDT;
    expect((await api(chain, 'GET', `/erc20/${usdt}`)).body.data).toMatchObject({
      decimals: 6,
      symbol: expect.any(String),
    });
    const erc20 = await api(chain, 'POST', '/transactions/erc20', {
      form: {
        from: from.address,
        to: to.address,
        contractaddress: usdt,
        amount: '2.5',
        privatekey: from.privateKey!,
      },
    });
    expect(erc20.status, erc20.text).toBe(201);
    await untilMined(devnet, erc20.body.data.txid);
    expect((await api(chain, 'GET', `/balances/${to.address}/erc20/${usdt}`)).body.data).toBe('2.500000');
    const nft = await api(chain, 'POST', '/transactions/erc721', {
      json: {
        from: from.address,
        to: to.address,
        contractaddress: devnet.tokens.erc721.NFT,
        tokenId: tokenId.toString(),
        privatekey: from.privateKey,
      },
    });
    expect(nft.status, nft.text).toBe(201);
    await untilMined(devnet, nft.body.data.txid);
    const owner = await api(chain, 'GET', `/nfts/${devnet.tokens.erc721.NFT}/owner/${tokenId}`);
    expect(owner.body.data.owner.toLowerCase()).toBe(to.address.toLowerCase());
    expect((await api(chain, 'GET', `/nfts/${devnet.tokens.erc721.NFT}/uri/${tokenId}`)).status).toBe(200);
    expect((await api(chain, 'GET', `/erc20/${to.address}`)).status).toBe(400);
  });

  it('lands concurrent sends from one address with consecutive nonces', async () => {
    const devnet = devnets[chain];
    const from = await newAddress(chain);
    const to = await newAddress(chain);
    await devnet.faucetNative(from.address, parseEther('5'));
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        api(chain, 'POST', '/transactions', {
          json: { from: from.address, to: to.address, amount: '0.01', privatekey: from.privateKey },
        }),
      ),
    );
    for (const res of results) expect(res.status, res.text).toBe(201);
    await devnet.mine(1);
    expect((await api(chain, 'GET', `/balances/${to.address}`)).body.data).toBe('0.200000000000000000');
    const nonces = await Promise.all(
      results.map(async (r) =>
        Number((await api(chain, 'GET', `/transactions/${r.body.data.txid}`)).body.data.transaction.nonce),
      ),
    );
    expect(nonces.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('refuses a wrong password, a foreign key and insufficient funds', async () => {
    const devnet = devnets[chain];
    const from = await newAddress(chain, PASSWORD);
    const to = await newAddress(chain);
    await devnet.faucetNative(from.address, parseEther('0.01'));
    const wrong = await api(chain, 'POST', '/transactions', {
      json: { from: from.address, to: to.address, amount: '0.001', password: 'not it at all' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe('Wrong password provided');
    const foreign = await api(chain, 'POST', '/transactions', {
      json: { from: from.address, to: to.address, amount: '0.001', privatekey: to.privateKey },
    });
    expect(foreign.status).toBe(422);
    const poor = await api(chain, 'POST', '/transactions', {
      json: { from: from.address, to: to.address, amount: '5', password: PASSWORD },
    });
    expect(poor.status).toBe(422);
    expect(poor.body.message).toMatch(/insufficient funds for gas \* price \+ value/i);
    expect((await api(chain, 'GET', `/balances/${to.address}`)).body.data).toBe('0.000000000000000000');
  });

  it('builds unsigned, signs outside (viem) and broadcasts', async () => {
    const devnet = devnets[chain];
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    const to = await newAddress(chain);
    await devnet.faucetNative(account.address, parseEther('1'));
    const built = await api(chain, 'POST', '/transactions/build', {
      json: { from: account.address, to: to.address, amount: '0.5' },
    });
    expect(built.status, built.text).toBe(200);
    const unsigned = parseTransaction(built.body.data.unsigned);
    expect(serializeTransaction(unsigned)).toBe(built.body.data.unsigned);
    const rawtx = await signTransaction({ privateKey: key, transaction: unsigned });
    const sent = await api(chain, 'POST', '/transactions/broadcast', { json: { rawtx } });
    expect(sent.status, sent.text).toBe(201);
    await untilMined(devnet, sent.body.data.txid);
    expect((await api(chain, 'GET', `/balances/${to.address}`)).body.data).toBe('0.500000000000000000');
    // Signed by someone else entirely through a viem wallet client: the gateway only relays it.
    const other = createWalletClient({
      account: privateKeyToAccount(devnet.accounts[3]!.privateKey),
      transport: http(devnet.url),
    });
    const request = await other.prepareTransactionRequest({
      to: to.address as `0x${string}`,
      value: 1n,
      chain: null,
    });
    const raw = await other.signTransaction({ ...request, chain: null } as never);
    expect((await api(chain, 'POST', '/transactions/broadcast', { json: { rawtx: raw } })).status).toBe(201);
    expect((await api(chain, 'POST', '/transactions/broadcast', { json: { rawtx: '0x1234' } })).status).toBe(
      422,
    );
  });

  it('exports a keystore v3 and imports it back; exports the private key', async () => {
    const a = await newAddress(chain, PASSWORD);
    const exported = await api(chain, 'POST', `/addresses/export/${a.address}`, {
      json: { password: PASSWORD },
    });
    expect(exported.status).toBe(200);
    expect(exported.body.data.content).toMatchObject({
      version: 3,
      crypto: { kdf: 'scrypt', cipher: 'aes-128-ctr' },
    });
    expect(exported.body.data.filename).toMatch(/^UTC--.*--[0-9a-f]{40}$/);
    const key = await api(chain, 'POST', `/addresses/export/${a.address}/privatekey`, {
      json: { password: PASSWORD },
    });
    expect(privateKeyToAccount(key.body.data.private_key).address).toBe(a.address);
    expect((await api(chain, 'DELETE', `/addresses/${a.address}`)).status).toBe(200);
    const imported = await api(chain, 'POST', '/addresses/import', {
      json: {
        content: JSON.stringify(exported.body.data.content),
        filename: exported.body.data.filename,
        password: PASSWORD,
      },
    });
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.data.address).toBe(a.address);
    expect(
      (
        await api(chain, 'POST', `/addresses/export/${a.address}/privatekey`, {
          json: { password: 'nope nope nope' },
        })
      ).status,
    ).toBe(401);
    const history = await api(chain, 'GET', '/transactions');
    expect(history.body.total).toBeGreaterThan(0);
  });
});

describe.each(['ethereum', 'bsc'] as const)(
  '%s refuses a tokenId beyond uint256 as a field error',
  (chain) => {
    const UINT256_OVERFLOW = (2n ** 256n).toString();
    const nftSegment = chain === 'bsc' ? 'bep721' : 'erc721';

    function expectTokenIdRefusal(res: ApiResponse) {
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors).toEqual([
        { field: 'tokenId', message: 'The tokenId field must be a whole number below 2^256 (a uint256).' },
      ]);
      expect(res.text).not.toContain(UINT256_OVERFLOW);
    }

    it('on NFT sends and builds, as text or a JSON integer', async () => {
      const from = await newAddress(chain);
      const to = await newAddress(chain);
      const nft = devnets[chain].tokens.erc721.NFT;
      const base = { from: from.address, to: to.address, contractaddress: nft };
      for (const tokenId of [UINT256_OVERFLOW, '9'.repeat(78)]) {
        expectTokenIdRefusal(
          await api(chain, 'POST', `/transactions/${nftSegment}`, {
            json: { ...base, tokenId, privatekey: from.privateKey! },
          }),
        );
        expectTokenIdRefusal(await api(chain, 'POST', '/transactions/build', { json: { ...base, tokenId } }));
      }
      const asNumber = await gw.request('POST', `/api/v2/${chain}/transactions/build`, {
        token,
        raw: `{"from":"${from.address}","to":"${to.address}","contractaddress":"${nft}","tokenId":${UINT256_OVERFLOW}}`,
        headers: { 'content-type': 'application/json' },
      });
      expectTokenIdRefusal(asNumber);
    });

    it('on NFT owner and URI reads; the largest uint256 is a token id the contract is asked about', async () => {
      const nft = devnets[chain].tokens.erc721.NFT;
      for (const read of ['owner', 'uri']) {
        expectTokenIdRefusal(await api(chain, 'GET', `/nfts/${nft}/${read}/${UINT256_OVERFLOW}`));
        const largest = await api(chain, 'GET', `/nfts/${nft}/${read}/${2n ** 256n - 1n}`);
        // The contract answers: no such token (a revert), not a field error.
        expect(largest.status, largest.text).toBe(400);
        expect(largest.body.message).toMatch(/reverted/);
      }
    });
  },
);

describe('ethereum refuses an amount beyond uint256 as a field error', () => {
  it('on token sends and builds, and on native builds', async () => {
    const chain = 'ethereum';
    const from = await newAddress(chain);
    const to = await newAddress(chain);
    const usdt = devnets[chain].tokens.erc20.USDT;
    // USDT has 6 decimals: 2^256 base units, one past what a uint256 holds.
    const tooMany = `${2n ** 256n / 10n ** 6n}.${(2n ** 256n % 10n ** 6n).toString().padStart(6, '0')}`;
    const base = { from: from.address, to: to.address };
    for (const [path, json] of [
      [
        '/transactions/erc20',
        { ...base, contractaddress: usdt, amount: tooMany, privatekey: from.privateKey! },
      ],
      ['/transactions/build', { ...base, contractaddress: usdt, amount: tooMany }],
      ['/transactions/build', { ...base, amount: '9'.repeat(78) }],
    ] as const) {
      const res = await api(chain, 'POST', path, { json });
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors).toEqual([
        {
          field: 'amount',
          message: expect.stringMatching(
            /^The amount field is too large: at most .* \(2\^256 - 1 base units\)\.$/,
          ),
        },
      ]);
      expect(res.text).not.toContain(json.amount);
    }
  });
});
