import { Transaction, Wallet } from 'ethers';
import { getAddress, type Hex, keccak256, parseEther, parseTransaction, serializeTransaction } from 'viem';
import { generatePrivateKey, privateKeyToAccount, signTransaction } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmChain } from '../../src/chains/evm/chains.ts';
import { type ApiResponse, type RequestOptions, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { dereferenced } from '../helpers/openapi-document.ts';
import { type SharedEvmDevnet, sharedEvmDevnet, untilMined } from '../helpers/shared-devnets.ts';
import { SHARED_EVM_CHAINS, type SharedEvmChain } from '../helpers/shared-evm-chains.ts';

/**
 * What the EVM routes build and report works unchanged in the clients people use: ethers v6 and viem
 * sign `data.tx` and `data.unsigned` of a build into the very transaction that was built, the gateway
 * broadcasts it and records what it does, and every answer names addresses in their EIP-55 form and
 * tokens by the chain's own names. One anvil per chain, its real chain id and fee model.
 */
const CHAINS = SHARED_EVM_CHAINS;
const KINDS = ['native', 'fungible', 'nft'] as const;
type Kind = (typeof KINDS)[number];
const PASSWORD = 'correct horse battery';

let gw: TestGateway;
const devnets = {} as Record<SharedEvmChain, SharedEvmDevnet>;
let token: string;

const api = (chain: SharedEvmChain, method: string, path: string, options: RequestOptions = {}) =>
  gw.request(method, `/api/v2/${chain}${path}`, { token, ...options });

beforeAll(async () => {
  const started = await Promise.all(CHAINS.map((chain) => sharedEvmDevnet(chain)));
  const env: Record<string, string> = { NODE_RETRIES: '1' };
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

/** The chain's names of its token kinds, as its routes and notifications spell them. */
function typeNames(chain: SharedEvmChain) {
  const { nativeSymbol, tokenSegments } = evmChain(chain);
  return {
    native: nativeSymbol,
    fungible: tokenSegments.fungible.toUpperCase(),
    nft: tokenSegments.nft.toUpperCase(),
  };
}

interface Sender {
  key: Hex;
  address: Hex;
  /** The NFT it holds, for an ERC721 build. */
  tokenId: bigint | null;
}

/** A key held outside the gateway, with coin to pay gas and the token the build moves. */
async function outsideSender(chain: SharedEvmChain, kind: Kind): Promise<Sender> {
  const devnet = devnets[chain];
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  await devnet.faucetNative(address, parseEther('1'));
  if (kind === 'fungible') await devnet.faucetErc20(devnet.tokens.erc20.USDT, address, 10_000_000n);
  const tokenId = kind === 'nft' ? await devnet.faucetErc721(devnet.tokens.erc721.NFT, address) : null;
  return { key, address, tokenId };
}

/** The build request of each kind; addresses in lower case, which the answer must checksum. */
function buildRequest(chain: SharedEvmChain, kind: Kind, from: Sender, to: Hex) {
  const base = { from: from.address.toLowerCase(), to: to.toLowerCase() };
  const { USDT } = devnets[chain].tokens.erc20;
  const { NFT } = devnets[chain].tokens.erc721;
  if (kind === 'native') return { ...base, amount: '0.125' };
  if (kind === 'fungible') return { ...base, contractaddress: USDT.toLowerCase(), amount: '2.5' };
  return { ...base, contractaddress: NFT.toLowerCase(), tokenId: String(from.tokenId) };
}

/** `data.tx` with ethers and viem as they are, and `data.unsigned` parsed by each; viem's first. */
async function signEveryWay(key: Hex, built: ApiResponse): Promise<[Hex, ...string[]]> {
  // Handed over exactly as JSON.parse gave them: no conversion on the way.
  const { tx, unsigned } = built.body.data;
  const wallet = new Wallet(key);
  return Promise.all([
    privateKeyToAccount(key).signTransaction(tx),
    wallet.signTransaction(tx),
    wallet.signTransaction(Transaction.from(unsigned)),
    signTransaction({ privateKey: key, transaction: parseTransaction(unsigned) }),
  ]);
}

/** The unsigned serialization of a signed transaction, read by viem. */
function unsignedOf(raw: Hex): Hex {
  const { r: _r, s: _s, v: _v, yParity: _y, ...fields } = parseTransaction(raw);
  return serializeTransaction(fields);
}

describe.concurrent.each(CHAINS)('%s: a build signed by ethers and viem', (chain) => {
  it.each(KINDS)(
    '%s: data.tx and data.unsigned sign into the built transaction, which lands',
    async (kind) => {
      const devnet = devnets[chain];
      const names = typeNames(chain);
      const sender = await outsideSender(chain, kind);
      const receiver = privateKeyToAccount(generatePrivateKey()).address;
      const built = await api(chain, 'POST', '/transactions/build', {
        json: buildRequest(chain, kind, sender, receiver),
      });
      expect(built.status, built.text).toBe(200);
      const { tx, unsigned } = built.body.data as { tx: Record<string, unknown>; unsigned: Hex };
      expect(tx['from']).toBe(sender.address);
      expect(tx['to']).toBe(
        kind === 'native'
          ? receiver
          : kind === 'fungible'
            ? devnet.tokens.erc20.USDT
            : devnet.tokens.erc721.NFT,
      );
      // Wei amounts stay exact: decimal strings, never JSON numbers (zero is the number 0).
      for (const field of ['value', 'gas', 'gasLimit', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas']) {
        if (field in tx) expect(tx[field] === 0 || /^[1-9][0-9]*$/.test(String(tx[field])), field).toBe(true);
      }

      // The zeros viem would sign as 0x00 from the string "0": a token call's value, Arbitrum's tip.
      if (kind !== 'native') expect(tx['value']).toBe(0);
      if (chain === 'arbitrum') expect(tx['maxPriorityFeePerGas']).toBe(0);

      const signed = await signEveryWay(sender.key, built);
      expect(new Set(signed).size, 'all four signatures are one transaction').toBe(1);
      const raw = signed[0];
      expect(unsignedOf(raw)).toBe(unsigned);
      const ethersView = Transaction.from(raw);
      expect(ethersView.unsignedSerialized).toBe(unsigned);
      expect(ethersView.from).toBe(sender.address);
      expect(ethersView.type).toBe(evmChain(chain).feeModel === 'legacy' ? 0 : 2);

      const sent = await api(chain, 'POST', '/transactions/broadcast', { json: { rawtx: raw } });
      expect(sent.status, sent.text).toBe(201);
      const txid = sent.body.data.txid as Hex;
      expect(txid).toBe(keccak256(raw));
      await untilMined(devnet, txid);

      const { USDT } = devnet.tokens.erc20;
      const { NFT } = devnet.tokens.erc721;
      const { fungible } = evmChain(chain).tokenSegments;
      if (kind === 'native') {
        expect((await api(chain, 'GET', `/balances/${receiver}`)).body.data).toBe('0.125000000000000000');
      } else if (kind === 'fungible') {
        expect((await api(chain, 'GET', `/balances/${receiver}/${fungible}/${USDT}`)).body.data).toBe(
          '2.500000',
        );
      } else {
        const owner = await api(chain, 'GET', `/nfts/${NFT.toLowerCase()}/owner/${sender.tokenId}`);
        expect(owner.body.data.owner).toBe(receiver);
      }

      // The broadcast is recorded with what it does, decoded from the signed transaction.
      const history = await api(chain, 'GET', '/transactions');
      const record = (history.body.data as Record<string, unknown>[]).find((r) => r['txid'] === txid);
      const expected = {
        // Chaingateway's history calls a coin transfer `default`; lookups name the coin.
        native: { type: 'default', contractaddress: null, tokenid: null, amount: /^0\.1250*$/ },
        fungible: { type: names.fungible, contractaddress: USDT, tokenid: null, amount: /^2\.50*$/ },
        nft: {
          type: names.nft,
          contractaddress: NFT,
          tokenid: String(sender.tokenId),
          amount: /^10*(\.0*)?$/,
        },
      }[kind];
      expect(record).toMatchObject({
        from: sender.address,
        to: receiver,
        type: expected.type,
        contractaddress: expected.contractaddress,
        tokenid: expected.tokenid,
        amount: expect.stringMatching(expected.amount),
      });

      // Every lookup names the parties checksummed, and the token kind as the chain does.
      const contract = kind === 'native' ? null : kind === 'fungible' ? USDT : NFT;
      const view = (await api(chain, 'GET', `/transactions/${txid}`)).body.data.transaction;
      expect(view).toMatchObject({
        from: sender.address,
        to: contract ?? receiver,
        contractaddress: contract,
      });
      const decoded = (await api(chain, 'GET', `/transactions/${txid}/decoded`)).body.data.transaction;
      expect(decoded).toMatchObject({
        from: sender.address,
        to: receiver,
        contractaddress: contract,
        status: 'SUCCESS',
        type: names[kind],
        amount: { native: '0.125000000000000000', fungible: '2.500000', nft: '1' }[kind],
      });
      const receipt = (await api(chain, 'GET', `/transactions/${txid}/receipt`)).body.data.transaction;
      expect(receipt).toMatchObject({
        from: sender.address,
        to: contract ?? receiver,
        contractAddress: null,
      });
      for (const log of receipt.logs as { address: string }[]) expect(log.address).toBe(contract);
      const receiptDecoded = (await api(chain, 'GET', `/transactions/${txid}/receipt/decoded`)).body.data;
      expect(receiptDecoded).toMatchObject({
        from: sender.address,
        to: contract ?? receiver,
        contractaddress: null,
        status: 'SUCCESS',
      });
    },
  );
});

describe.concurrent.each(CHAINS)('%s: answers name addresses checksummed', (chain) => {
  it("a block's miner, token info and the NFT owner, whatever case the request used", async () => {
    const block = await api(chain, 'GET', '/blocks/1');
    expect(block.body.data.miner).toBe(getAddress(block.body.data.miner));
    const { USDT } = devnets[chain].tokens.erc20;
    const { fungible } = evmChain(chain).tokenSegments;
    const info = await api(chain, 'GET', `/${fungible}/${USDT.toLowerCase()}`);
    expect(info.body.data.address).toBe(USDT);
    const holder = privateKeyToAccount(generatePrivateKey()).address;
    const tokenId = await devnets[chain].faucetErc721(devnets[chain].tokens.erc721.NFT, holder);
    const NFT = devnets[chain].tokens.erc721.NFT.toUpperCase().replace('0X', '0x');
    const owner = await api(chain, 'GET', `/nfts/${NFT}/owner/${tokenId}`);
    expect(owner.body.data.owner).toBe(holder);
  });

  it("custodial sends are recorded under the chain's names", async () => {
    const devnet = devnets[chain];
    const names = typeNames(chain);
    const { fungible, nft } = evmChain(chain).tokenSegments;
    const from = await api(chain, 'POST', '/addresses', { json: {} });
    const sender = from.body.data[0] as { address: Hex; privateKey: Hex };
    const receiver = privateKeyToAccount(generatePrivateKey()).address;
    await devnet.faucetNative(sender.address, parseEther('1'));
    await devnet.faucetErc20(devnet.tokens.erc20.USDT, sender.address, 5_000_000n);
    const tokenId = await devnet.faucetErc721(devnet.tokens.erc721.NFT, sender.address);
    const base = { from: sender.address, to: receiver.toLowerCase(), privatekey: sender.privateKey };
    const coin = await api(chain, 'POST', '/transactions', { json: { ...base, amount: '0.01' } });
    expect(coin.status, coin.text).toBe(201);
    const erc20 = await api(chain, 'POST', `/transactions/${fungible}`, {
      json: { ...base, contractaddress: devnet.tokens.erc20.USDT.toLowerCase(), amount: '1' },
    });
    expect(erc20.status, erc20.text).toBe(201);
    const erc721 = await api(chain, 'POST', `/transactions/${nft}`, {
      json: { ...base, contractaddress: devnet.tokens.erc721.NFT.toLowerCase(), tokenId: String(tokenId) },
    });
    expect(erc721.status, erc721.text).toBe(201);
    const records = (await api(chain, 'GET', '/transactions')).body.data as Record<string, unknown>[];
    expect(records.find((r) => r['txid'] === coin.body.data.txid)).toMatchObject({
      type: 'default',
      from: sender.address,
      to: receiver,
    });
    expect(records.find((r) => r['txid'] === erc20.body.data.txid)).toMatchObject({
      type: names.fungible,
      from: sender.address,
      to: receiver,
      contractaddress: devnet.tokens.erc20.USDT,
    });
    expect(records.find((r) => r['txid'] === erc721.body.data.txid)).toMatchObject({
      type: names.nft,
      contractaddress: devnet.tokens.erc721.NFT,
      tokenid: String(tokenId),
    });
  });
});

describe('the OpenAPI document', () => {
  it('describes data.tx of a build field by field: legacy (type 0) or EIP-1559', async () => {
    const doc = dereferenced((await gw.request('GET', '/openapi.json')).body);
    const ok = doc.paths['/api/v2/bsc/transactions/build'].post.responses['200'];
    const tx = ok.content['application/json'].schema.properties.data.properties.tx;
    const shapes = tx.anyOf as { title: string; required: string[]; additionalProperties: boolean }[];
    expect(shapes.map((shape) => shape.title)).toEqual(['Legacy transaction', 'EIP-1559 transaction']);
    for (const shape of shapes) {
      expect(shape.additionalProperties).toBe(false);
      expect(shape.required).toEqual(
        expect.arrayContaining(['chainId', 'nonce', 'from', 'to', 'value', 'data', 'gas', 'gasLimit']),
      );
    }
    expect(shapes[0]!.required).toEqual(expect.arrayContaining(['type', 'gasPrice']));
    expect(shapes[1]!.required).toEqual(expect.arrayContaining(['maxFeePerGas', 'maxPriorityFeePerGas']));
  });
});

describe('keystore export', () => {
  it('is a keystore ethers opens with the password, to the same address', async () => {
    const created = await api('ethereum', 'POST', '/addresses', { json: { password: PASSWORD } });
    const address = created.body.data[0].address as string;
    const exported = await api('ethereum', 'POST', `/addresses/export/${address}`, {
      json: { password: PASSWORD },
    });
    expect(exported.status, exported.text).toBe(200);
    expect(Object.keys(exported.body.data).sort()).toEqual(['content', 'filename']);
    const wallet = await Wallet.fromEncryptedJson(JSON.stringify(exported.body.data.content), PASSWORD);
    expect(wallet.address).toBe(address);
    expect(getAddress(`0x${exported.body.data.content.address}`)).toBe(address);
  }, 60_000);
});
