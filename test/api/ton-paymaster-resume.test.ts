// A sponsored TON job resumed from its journal on the devnet: one whose process died after noting its
// message and before the node got it sends that same message, once; one resumed after it landed sends
// nothing more, and tells the ledger the same costs under the same transaction (which it counts once).
import { Address } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../devnets/ton/index.ts';
import type { SponsoredRun, SponsorJournal } from '../../src/chains/fee-sponsor.ts';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { TonAdapter } from '../../src/chains/ton/adapter.ts';
import { TonFeeSponsor } from '../../src/chains/ton/fee-sponsor.ts';
import { generateTonKey } from '../../src/chains/ton/keys.ts';
import { WalletTurns } from '../../src/chains/ton/wallet-turns.ts';
import type { Store } from '../../src/store/store.ts';
import { freshDatabase } from '../helpers/gateway.ts';
import { openMigratedStore } from '../helpers/test-store.ts';

const TON = 1_000_000_000n;
const USDT = 1_000_000n;

let devnet: TonDevnet;
let adapter: TonAdapter;
let sponsor: TonFeeSponsor;
const database = freshDatabase();
let store: Store;

/** A journal kept in memory; `dieAfterNote` makes the first note the process's last act. */
function journal(dieAfterNote = false) {
  const notes: Record<string, string> = {};
  const spent = new Map<string, bigint>();
  let dying = dieAfterNote;
  const kept: SponsorJournal = {
    notes,
    note: async (more) => {
      Object.assign(notes, more);
      if (dying) {
        dying = false;
        throw new Error('the process died');
      }
    },
    spent: async (what, units, txid) => {
      spent.set(`${what} ${txid}`, units);
    },
  };
  return { kept, spent };
}

const total = (spent: Map<string, bigint>) => [...spent.values()].reduce((sum, units) => sum + units, 0n);

async function jettonRun(kept: SponsorJournal): Promise<SponsoredRun & { to: string }> {
  const payer = generateTonKey('mainnet');
  const owner = generateTonKey('mainnet');
  const to = generateTonKey('mainnet').address;
  await devnet.fund(payer.address, 10n * TON);
  await devnet.mintJetton(devnet.tokens.jetton.USDT, owner.address, 5n * USDT);
  const transfer = await sponsor.transfer('ton', 'mainnet', {
    type: 'JETTON',
    from: owner.address,
    to,
    contractaddress: devnet.tokens.jetton.USDT,
    amount: '2',
  });
  const { maxCost } = await sponsor.quote('ton', 'mainnet', transfer, payer.address);
  return {
    chain: 'ton',
    network: 'mainnet',
    transfer,
    sponsor: { address: payer.address, privateKey: payer.privateKey },
    owner: { address: owner.address, privateKey: owner.privateKey },
    maxCost,
    journal: kept,
    to,
  };
}

async function usdtOf(owner: string): Promise<bigint> {
  const master = Address.parse(devnet.tokens.jetton.USDT).toRawString();
  const wallet = await adapter.jettons.walletOf(master, Address.parse(owner).toRawString());
  return wallet === null ? 0n : ((await adapter.jettons.walletData(wallet))?.balance ?? 0n);
}

beforeAll(async () => {
  devnet = await startTonDevnet({ blockIntervalMs: 250 });
  adapter = new TonAdapter({ network: 'mainnet', endpoints: [{ url: devnet.url, headers: {} }], retries: 0 });
  const registry = new ChainRegistry();
  registry.register(adapter);
  store = await openMigratedStore(database);
  sponsor = new TonFeeSponsor(registry, new WalletTurns(store), { wait: { pollMs: 250, traceMs: 30_000 } });
}, 60_000);

afterAll(async () => {
  await store?.close();
  await database.drop();
  await adapter?.close();
  await devnet?.close();
});

describe('a sponsored TON job resumed from its journal', () => {
  it('sends the message it noted before it died, once, and records its cost once', async () => {
    const { kept, spent } = journal(true);
    const run = await jettonRun(kept);
    const before = await adapter.getBalance(run.sponsor.address);
    await expect(sponsor.run(run)).rejects.toThrow('the process died');
    expect(await usdtOf(run.to)).toBe(0n);
    const first = await sponsor.run(run);
    expect(first.txid).toMatch(/^[0-9a-f]{64}$/);
    await devnet.advance(2);
    expect(await usdtOf(run.to)).toBe(2n * USDT);
    const lost = before - (await adapter.getBalance(run.sponsor.address));
    expect(total(spent)).toBe(lost);

    // Resumed once more, after it landed: nothing is sent again, and the same costs are told.
    const again = await sponsor.run(run);
    expect(again.txid).toBe(first.txid);
    await devnet.advance(2);
    expect(await usdtOf(run.to)).toBe(2n * USDT);
    expect(before - (await adapter.getBalance(run.sponsor.address))).toBe(lost);
    expect(total(spent)).toBe(lost);
  }, 90_000);
});
