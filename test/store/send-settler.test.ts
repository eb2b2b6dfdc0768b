import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { familyOf } from '../../src/chains/families.ts';
import type { ChainName } from '../../src/chains/types.ts';
import { createLogger } from '../../src/logger.ts';
import { SendOutcomes } from '../../src/services/send-outcomes.ts';
import { NOT_SENT_MESSAGE, NOT_SENT_STATUS, SendSettler } from '../../src/services/send-settler.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  type SharedBitcoinDevnet,
  type SharedEvmDevnet,
  type SharedSolanaDevnet,
  type SharedTronDevnet,
  sharedBitcoinDevnet,
  sharedEvmDevnet,
  sharedSolanaDevnet,
  sharedTronDevnet,
} from '../helpers/shared-devnets.ts';

/**
 * The settler on every family's devnet: a send whose process died between its intent (the history row
 * written with the txid, before the node had the transaction) and the node's answer. A transaction the
 * node knows makes the row the 201 the request would have answered; one it never had stays unanswered
 * through the family's grace and then becomes the "not sent" failure.
 *
 * Then the send outcomes (services/send-outcomes.ts) over rows answered 201, on the Bitcoin devnet: a
 * confirmed send ends SUCCESS; one the node does not know stays open through the family's grace and then
 * ends FAILED with the reason; a row that has its outcome is left alone, and a row of a chain this gateway
 * does not serve holds up none.
 */
let gw: TestGateway;
let userId: string;
let tron: SharedTronDevnet;
let evm: SharedEvmDevnet;
let solana: SharedSolanaDevnet;
let bitcoin: SharedBitcoinDevnet;

beforeAll(async () => {
  [tron, evm, solana, bitcoin] = await Promise.all([
    sharedTronDevnet(),
    sharedEvmDevnet('ethereum'),
    sharedSolanaDevnet(),
    sharedBitcoinDevnet(),
  ]);
  gw = await startGateway({
    env: {
      TRON_MAINNET_URLS: tron.url,
      ETHEREUM_MAINNET_URLS: evm.url,
      SOLANA_MAINNET_URLS: solana.url,
      BITCOIN_MAINNET_URLS: bitcoin.url,
      NODE_RETRIES: '0',
      LOG_LEVEL: 'warn',
    },
  });
  ({ userId } = await gw.userToken());
}, 180_000);

afterAll(async () => {
  await gw?.close();
});

/** What a settler and the send outcomes work on, on a clock of the test's, which starts now. */
function onClock() {
  const clock = { at: Date.now() };
  const deps = {
    transactions: gw.ctx.transactions,
    registry: gw.ctx.registry,
    familyOf,
    logger: createLogger('silent'),
    now: () => new Date(clock.at),
  };
  return { deps, advance: (ms: number) => (clock.at += ms) };
}

function settlerOnClock() {
  const { deps, advance } = onClock();
  return { settler: new SendSettler(deps), advance };
}

async function intent(chain: ChainName, txid: string): Promise<number> {
  return gw.ctx.transactions.recordIntent({
    userId,
    chain,
    network: 'mainnet',
    type: 'TEST',
    txid,
    from: null,
    to: null,
    amount: null,
  });
}

async function row(id: number) {
  return gw.ctx.store.db
    .selectFrom('transactions')
    .select(['txid', 'http_status', 'response_json'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

const hex32 = () => randomBytes(32).toString('hex');

/** A fresh address of the chain, to pay to. */
const addressOn = (chain: ChainName) =>
  familyOf(chain)!.keys('mainnet', gw.ctx.config.familySettings).generate().address;

/** Per family: a transaction its devnet has (a faucet payment), and the form of a txid it never saw. */
const families: {
  chain: ChainName;
  known: () => Promise<string>;
  unknown: () => string;
  sentResponse: (txid: string) => unknown;
}[] = [
  {
    chain: 'tron',
    known: () => tron.faucetTrx(addressOn('tron'), 1_000_000n),
    unknown: hex32,
    sentResponse: (txid) => ({ result: true, txid }),
  },
  {
    chain: 'ethereum',
    known: () => evm.faucetNative(addressOn('ethereum'), 1n),
    unknown: () => `0x${hex32()}`,
    sentResponse: (txid) => ({ txid }),
  },
  {
    chain: 'solana',
    known: () => solana.airdrop(addressOn('solana'), 1_000_000_000n),
    unknown: () => base58.encode(randomBytes(64)),
    sentResponse: (txid) => ({ txid }),
  },
  {
    chain: 'bitcoin',
    known: () => bitcoin.faucet(addressOn('bitcoin'), 10_000n),
    unknown: hex32,
    sentResponse: (txid) => ({ txid }),
  },
];

describe.each(families)('$chain: a send cut off between its intent and the node', (family) => {
  it('that the node has becomes the 201 its request would have answered', async () => {
    const txid = await family.known();
    const id = await intent(family.chain, txid);
    expect(await row(id)).toMatchObject({ http_status: null, response_json: null });
    const report = await settlerOnClock().settler.runOnce();
    expect(report.landed).toBeGreaterThanOrEqual(1);
    expect(await row(id)).toEqual({
      txid,
      http_status: 201,
      response_json: JSON.stringify(family.sentResponse(txid)),
    });
  });

  it('that the node never had waits out the grace, then fails as not sent', async () => {
    const txid = family.unknown();
    const id = await intent(family.chain, txid);
    const grace = familyOf(family.chain)!.settling.graceMs;
    const { settler, advance } = settlerOnClock();
    advance(grace - 10_000);
    await settler.runOnce();
    expect(await row(id)).toMatchObject({ http_status: null, response_json: null });
    advance(11_000);
    await settler.runOnce();
    const settled = await row(id);
    expect(settled.txid).toBe(txid);
    expect(settled.http_status).toBe(NOT_SENT_STATUS);
    expect(settled.response_json).toContain(NOT_SENT_MESSAGE);
    // Answered once: a later pass leaves it.
    await settler.runOnce();
    expect(await row(id)).toEqual(settled);
  });

  it('after a time with no settler, gives the grace again from its start', async () => {
    const id = await intent(family.chain, family.unknown());
    const grace = familyOf(family.chain)!.settling.graceMs;
    // Written long before this settler started: the work beside it (EVM's reconciler) gets the grace too.
    await gw.ctx.store.db
      .updateTable('transactions')
      .set({ created_at: new Date(Date.now() - 10 * grace).toISOString() })
      .where('id', '=', id)
      .execute();
    const { settler, advance } = settlerOnClock();
    await settler.runOnce();
    expect(await row(id)).toMatchObject({ http_status: null });
    advance(grace);
    await settler.runOnce();
    expect(await row(id)).toMatchObject({ http_status: NOT_SENT_STATUS });
  });
});

/** A send answered 201 as `response`; its row's id. */
async function sent(chain: ChainName, txid: string, response: unknown = { txid }): Promise<number> {
  const id = await intent(chain, txid);
  expect(await gw.ctx.transactions.answer(id, { txid, response, httpStatus: 201 })).toBe(true);
  return id;
}

async function response(id: number): Promise<unknown> {
  const row = await gw.ctx.store.db
    .selectFrom('transactions')
    .select(['http_status', 'response_json'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  expect(row.http_status).toBe(201);
  return JSON.parse(row.response_json ?? 'null');
}

describe('send outcomes, on Bitcoin', () => {
  it('end a confirmed send SUCCESS, and a send the node does not know FAILED past the grace', async () => {
    const { deps, advance } = onClock();
    const outcomes = new SendOutcomes(deps);
    // Not served here: looked at every pass, and holds up nothing after it.
    const elsewhere = await sent('polygon', `0x${hex32()}`);
    const confirmed = await bitcoin.faucet(addressOn('bitcoin'), 10_000n);
    const landed = await sent('bitcoin', confirmed);
    const dropped = await sent('bitcoin', hex32());
    const decided = await sent('bitcoin', hex32(), { txid: 'x', status: 'SUCCESS' });

    // Rows of the tests before are followed too: only this test's rows are looked at.
    await outcomes.runOnce();
    expect(await response(landed)).not.toHaveProperty('status');
    await bitcoin.mine(1);
    await outcomes.runOnce();
    expect(await response(landed)).toEqual({ txid: confirmed, status: 'SUCCESS' });
    expect(await response(dropped)).not.toHaveProperty('status');

    advance(6 * 60_000);
    await outcomes.runOnce();
    expect(await response(dropped)).toMatchObject({
      status: 'FAILED',
      error: expect.stringMatching(/^dropped/),
    });
    expect(await response(decided)).toEqual({ txid: 'x', status: 'SUCCESS' });
    expect(await response(elsewhere)).not.toHaveProperty('status');
  });
});
