// The TON family through the gateway's HTTP API, on the TON devnet: custody, balances, blocks and
// transaction reads. It runs once the family is listed in chains/families.ts.
import { Address } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../../devnets/ton/index.ts';
import { familyOf } from '../../../src/chains/families.ts';
import { startGateway, type TestGateway } from '../../helpers/gateway.ts';

const served = familyOf('ton') !== undefined;
const PASSWORD = 'correct horse battery staple 7';

let devnet: TonDevnet;
let gateway: TestGateway;
let token: string;

beforeAll(async () => {
  if (!served) return;
  devnet = await startTonDevnet({ blockIntervalMs: null, globalId: -3 });
  gateway = await startGateway({ env: { TON_TESTNET_URLS: devnet.url } });
  token = (await gateway.userToken()).token;
});

afterAll(async () => {
  await gateway?.close();
  await devnet?.close();
});

const api = (method: string, url: string, json?: unknown) =>
  gateway.request(method, `/api/v2/ton${url}`, {
    token,
    headers: { 'x-network': 'testnet' },
    ...(json === undefined ? {} : { json }),
  });

describe.skipIf(!served)('TON through the API (testnet devnet)', () => {
  it('creates an address in the testnet wallet form, reads its balance once funded, and exports its seed', async () => {
    const created = await api('POST', '/addresses', { password: PASSWORD });
    expect(created.status, created.text).toBe(201);
    const address = created.body.data[0].address as string;
    expect(address).toMatch(/^0Q/);
    await devnet.fund(address, 2_500_000_000n);
    const balance = await api('GET', `/balances/${address}`);
    expect(balance.status, balance.text).toBe(200);
    expect(balance.body.data).toMatchObject({ balance: '2.500000000', nanotons: '2500000000' });
    const exported = await api('POST', `/addresses/export/${address}`, { password: PASSWORD });
    expect(exported.status, exported.text).toBe(200);
    expect(exported.body.data.privateKey).toMatch(/^[0-9a-f]{64}$/);
    // The mainnet form of the same account is refused on testnet, naming the field.
    const mainnetForm = Address.parse(address).toString({ bounceable: false });
    const refused = await api('GET', `/balances/${mainnetForm}`);
    expect(refused.status).toBe(422);
  });

  it('answers the head, a block and a transaction by hash', async () => {
    const created = await api('POST', '/addresses', { password: PASSWORD });
    const address = created.body.data[0].address as string;
    await devnet.fund(address, 1_000_000_000n);
    const head = await api('GET', '/blocks/number');
    expect(head.status, head.text).toBe(200);
    const seqno = head.body.data.blocknumber as number;
    const block = await api('GET', `/blocks/${seqno}`);
    expect(block.status, block.text).toBe(200);
    expect(block.body.data.block.seqno).toBe(seqno);
    const account = await fetch(`${devnet.url}/api/v3/account?address=${address}`);
    const hash = Buffer.from(
      ((await account.json()) as { last_transaction_hash: string }).last_transaction_hash,
      'base64',
    );
    const decoded = await api('GET', `/transactions/${hash.toString('hex')}/decoded`);
    expect(decoded.status, decoded.text).toBe(200);
    expect(decoded.body.data.transfers).toMatchObject([
      { type: 'TON', direction: 'in', amount_raw: '1000000000' },
    ]);
    const missing = await api('GET', `/transactions/${'ab'.repeat(32)}/receipt`);
    expect(missing.status).toBe(422);
  });
});
