/**
 * Tron's fee sponsor against the project's Tron devnet: a TRC20 sent from an address that holds no TRX
 * (and is not even activated), paid with the sponsor's delegated energy or, without stake, with the exact
 * TRX the transfer burns; a run resumed after a crash; an abandoned job unwound; and quotes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTronDevnet, type TronDevnet } from '../../../devnets/tron/index.ts';
import { formatAmount } from '../../../src/chains/amount.ts';
import { chainFamilies } from '../../../src/chains/families.ts';
import {
  type KeyHolder,
  type SponsoredRun,
  type SponsorJournal,
  SponsorshipRefused,
} from '../../../src/chains/fee-sponsor.ts';
import { buildRegistry, type ChainRegistry } from '../../../src/chains/registry.ts';
import { TronAdapter } from '../../../src/chains/tron/adapter.ts';
import { TronFeeSponsor } from '../../../src/chains/tron/fee-sponsor.ts';
import { loadConfig } from '../../../src/config.ts';
import { ApiError } from '../../../src/errors.ts';
import { loggerToLines } from '../../helpers/log-lines.ts';

/** What these runs are given as reserved: the runs' own costs are checked against the ledger instead. */
const NOT_LIMITED = 10n ** 30n;

const TRX = 1_000_000n;

/** The job's journal as the shared jobs keep it, in memory; `crashOn` makes one note fail once. */
class MemoryJournal implements SponsorJournal {
  notes: Record<string, string> = {};
  readonly ledger = new Map<string, bigint>();
  /** The note after which the next note fails once, as a process that dies there. */
  crashAfter: string | null = null;
  /** The note that is kept, after which the process dies at once (before the node gets the transaction). */
  crashOn: string | null = null;

  async note(notes: Record<string, string>): Promise<void> {
    if (this.crashAfter !== null && this.notes[this.crashAfter] !== undefined) {
      this.crashAfter = null;
      throw new Error('the process died');
    }
    this.notes = { ...this.notes, ...notes };
    if (this.crashOn !== null && notes[this.crashOn] !== undefined) {
      this.crashOn = null;
      throw new Error('the process died');
    }
  }

  async spent(what: string, units: bigint, txid: string): Promise<void> {
    this.ledger.set(`${what} ${txid}`, units);
  }

  total(): bigint {
    return [...this.ledger.values()].reduce((sum, units) => sum + units, 0n);
  }
}

let devnet: TronDevnet;
let registry: ChainRegistry;
let tron: TronAdapter;
let sponsor: TronFeeSponsor;
let staking: KeyHolder;
let usdt: string;

beforeAll(async () => {
  devnet = await startTronDevnet({ blockIntervalMs: null });
  const { logger } = loggerToLines();
  registry = buildRegistry(loadConfig({ TRON_TESTNET_URLS: devnet.url }), logger, {
    tron: chainFamilies().tron!,
  });
  tron = registry.adapterOf('tron', 'testnet', TronAdapter);
  sponsor = new TronFeeSponsor({
    registry,
    feeLimitSun: 100n * TRX,
    wait: { pollMs: 10, timeoutMs: 20_000 },
  });
  usdt = devnet.tokens.trc20.USDT;
  staking = tron.generateKey();
  await devnet.faucetTrx(staking.address, 20_000n * TRX);
  // The devnet's genesis stakes 10 billion TRX: one TRX of stake yields 18 energy.
  const freeze = await tron.buildFreeze(staking.address, 10_000n * TRX, 'ENERGY');
  await tron.broadcast(await tron.sign(freeze, staking.privateKey));
  await devnet.mine(1);
}, 120_000);

afterAll(async () => {
  await registry?.closeAll();
  await devnet?.close();
});

/** Mines a block every few milliseconds while `work` runs, as the chain would. */
async function whileMining<T>(work: Promise<T>): Promise<T> {
  let done = false;
  const miner = (async () => {
    while (!done) {
      await devnet.mine(1);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    return await work;
  } finally {
    done = true;
    await miner;
  }
}

/** A fresh address holding only `units` of USDT: the chain has never seen it send or receive TRX. */
async function tokenHolder(units: bigint): Promise<KeyHolder> {
  const holder = tron.generateKey();
  await devnet.faucetTrc20(usdt, holder.address, units);
  await devnet.mine(1);
  return holder;
}

async function jobOf(
  payer: KeyHolder,
  owner: KeyHolder,
  amount: string,
  journal: SponsorJournal,
): Promise<SponsoredRun> {
  const to = tron.generateKey().address;
  const transfer = await sponsor.transfer('tron', 'testnet', {
    type: 'TRC20',
    from: owner.address,
    to,
    contractaddress: usdt,
    amount,
  });
  return {
    chain: 'tron',
    network: 'testnet',
    transfer,
    sponsor: payer,
    owner,
    journal,
    maxCost: NOT_LIMITED,
  };
}

/** The mined transaction's receipt (energy and bandwidth used and burned, its result). */
async function receiptOf(txid: string): Promise<Record<string, number | string>> {
  const info = await tron.getTransactionInfo(txid);
  return (info?.['receipt'] ?? {}) as Record<string, number | string>;
}

const usdtOf = async (address: string) => (await tron.getTrc20Balance(address, usdt)).balance;

/** Energy stake the sponsor still has, and what it lends to `to`. */
async function stakeOf(payer: KeyHolder, to: string) {
  const resources = await tron.getAccountResources(payer.address);
  const lent = await tron.getUnlockedDelegation(payer.address, to);
  return { frozen: resources.frozenV2.energy, lentOut: resources.delegated.energyOut, lentTo: lent.ENERGY };
}

/** DelegateResourceContract transactions the sponsor sent since block `since`. */
function delegationsSince(payer: KeyHolder, since: bigint): number {
  const owner = tron.toHex(payer.address);
  return devnet.chain
    .blocksInRange(since, devnet.chain.head.header.number + 1n)
    .flatMap((block) => block.transactions)
    .filter((tx) => {
      const contract = tx.raw.contracts[0];
      return contract?.type === 'DelegateResourceContract' && contract.value['owner_address'] === owner;
    }).length;
}

describe('the Tron fee sponsor', () => {
  it('sends a TRC20 from an address that was never activated, with lent energy, and takes it back', async () => {
    const holder = await tokenHolder(5_000_000n);
    expect(await tron.getAccount(holder.address)).toBeNull();
    const journal = new MemoryJournal();
    const job = await jobOf(staking, holder, '2.5', journal);
    expect(job.transfer).toMatchObject({ type: 'TRC20', units: '2500000', decimals: 6, contract: usdt });
    const quote = await sponsor.quote('tron', 'testnet', job.transfer, staking.address);
    const before = await tron.getBalance(staking.address);
    const stakeBefore = await stakeOf(staking, holder.address);

    const { txid } = await whileMining(sponsor.run(job));

    expect(await usdtOf(job.transfer.to)).toBe(2_500_000n);
    expect(await usdtOf(holder.address)).toBe(2_500_000n);
    expect(await tron.getBalance(holder.address)).toBe(0n);
    expect((await tron.getAccount(holder.address)) !== null).toBe(true);
    expect(await stakeOf(staking, holder.address)).toEqual(stakeBefore);
    const lost = before - (await tron.getBalance(staking.address));
    expect(journal.total()).toBe(lost);
    // The activation's 1 TRX is in it; the quote said all of it, and no more than its reservation.
    expect(lost).toBeGreaterThanOrEqual(TRX);
    expect(quote.answer['paymaster_fee']).toBe(trx(lost));
    expect(quote.maxCost).toBeGreaterThanOrEqual(lost);
    expect((await receiptOf(txid))['result']).toBe('SUCCESS');
  });

  it('resumes after a crash without delegating twice', async () => {
    const holder = await tokenHolder(1_000_000n);
    const journal = new MemoryJournal();
    journal.crashAfter = 'delegate-energy.tx';
    const job = await jobOf(staking, holder, '1', journal);
    const before = await tron.getBalance(staking.address);
    const since = devnet.chain.head.header.number;

    await expect(whileMining(sponsor.run(job))).rejects.toThrow('the process died');
    const lent = journal.notes['delegate-energy.tx'];
    expect((await stakeOf(staking, holder.address)).lentTo).toBeGreaterThan(0n);
    expect(journal.notes['transfer.tx']).toBeUndefined();

    await whileMining(sponsor.run(job));

    expect(journal.notes['delegate-energy.tx']).toBe(lent);
    expect(delegationsSince(staking, since)).toBe(1);
    expect(await usdtOf(job.transfer.to)).toBe(1_000_000n);
    expect((await stakeOf(staking, holder.address)).lentTo).toBe(0n);
    expect(journal.total()).toBe(before - (await tron.getBalance(staking.address)));
  });

  it('unwinds an abandoned job: the delegation comes back, nothing else is sent', async () => {
    const holder = await tokenHolder(1_000_000n);
    const journal = new MemoryJournal();
    journal.crashAfter = 'delegate-energy.tx';
    const job = await jobOf(staking, holder, '1', journal);
    const stakeBefore = await stakeOf(staking, tron.generateKey().address);
    await expect(whileMining(sponsor.run(job))).rejects.toThrow('the process died');
    expect((await stakeOf(staking, holder.address)).lentTo).toBeGreaterThan(0n);

    await whileMining(sponsor.unwind(job));

    const after = await stakeOf(staking, holder.address);
    expect(after.lentTo).toBe(0n);
    expect(after.frozen).toBe(stakeBefore.frozen);
    expect(after.lentOut).toBe(stakeBefore.lentOut);
    expect(await usdtOf(holder.address)).toBe(1_000_000n);
    expect(journal.notes['transfer.tx']).toBeUndefined();
    // A second unwind finds nothing left to take back.
    await whileMining(sponsor.unwind(job));
    expect(Object.keys(journal.notes).filter((key) => key.startsWith('reclaim'))).toEqual([
      'reclaim-energy.tx',
    ]);
  });

  it('a delegation noted but never sent: the unwind waits for it to expire and lends nothing; a run sends it once', async () => {
    const holder = await tokenHolder(1_000_000n);
    const since = devnet.chain.head.header.number;
    const abandoned = new MemoryJournal();
    abandoned.crashOn = 'delegate-energy.tx';
    const job = await jobOf(staking, holder, '1', abandoned);
    await expect(whileMining(sponsor.run(job))).rejects.toThrow('the process died');
    await whileMining(sponsor.unwind(job));
    expect(delegationsSince(staking, since)).toBe(0);
    expect(Object.keys(abandoned.notes).filter((key) => key.startsWith('reclaim'))).toEqual([]);

    const resumed = new MemoryJournal();
    resumed.crashOn = 'delegate-energy.tx';
    const again = await jobOf(staking, holder, '1', resumed);
    await expect(whileMining(sponsor.run(again))).rejects.toThrow('the process died');
    await whileMining(sponsor.run(again));
    expect(delegationsSince(staking, since)).toBe(1);
    expect(await usdtOf(again.transfer.to)).toBe(1_000_000n);
    expect((await stakeOf(staking, holder.address)).lentTo).toBe(0n);
  });

  it('pays with the exact TRX the transfer burns when it has no stake to lend', async () => {
    const poor = tron.generateKey();
    await devnet.faucetTrx(poor.address, 100n * TRX);
    await devnet.mine(1);
    const holder = await tokenHolder(3_000_000n);
    const journal = new MemoryJournal();
    const job = await jobOf(poor, holder, '3', journal);
    const quote = await sponsor.quote('tron', 'testnet', job.transfer, poor.address);
    const before = await tron.getBalance(poor.address);

    const { txid } = await whileMining(sponsor.run(job));

    expect(await usdtOf(job.transfer.to)).toBe(3_000_000n);
    expect(await tron.getBalance(holder.address)).toBe(0n);
    expect(journal.notes['delegate-energy.tx']).toBeUndefined();
    const receipt = await receiptOf(txid);
    const topUp = [...journal.ledger].find(([key]) => key.startsWith('top-up '))?.[1];
    expect(topUp).toBe(BigInt(receipt['energy_fee'] ?? 0));
    const lost = before - (await tron.getBalance(poor.address));
    expect(journal.total()).toBe(lost);
    expect(quote.answer['paymaster_fee']).toBe(trx(lost));
  });

  it('quotes what the run uses, and refuses a transfer larger than the token balance', async () => {
    const holder = await tokenHolder(1_000_000n);
    const journal = new MemoryJournal();
    const tooMuch = await jobOf(staking, holder, '1.000001', journal);
    const refusal = await sponsor.quote('tron', 'testnet', tooMuch.transfer, staking.address).catch((e) => e);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ status: 422, errors: [{ field: 'amount' }] });
    await expect(whileMining(sponsor.run(tooMuch))).rejects.toMatchObject({ status: 422 });
    expect(journal.notes).toEqual({});

    const job = await jobOf(staking, holder, '1', journal);
    const quote = await sponsor.quote('tron', 'testnet', job.transfer, staking.address);
    const { txid } = await whileMining(sponsor.run(job));
    const receipt = await receiptOf(txid);
    expect(quote.answer['energy_consumption']).toBe(receipt['energy_usage_total']);
    expect(receipt['energy_fee'] ?? 0).toBe(0);
    // Its free bandwidth, from the activation on, covers the transfer's bytes.
    expect(quote.answer['bandwidth_consumption']).toBe(0);
    expect(receipt['net_usage']).toBeGreaterThan(0);
    expect(quote.answer['paymaster_fee']).toBe(trx(journal.total()));
  });

  it('takes the delegation back and refuses the job when the transfer reverts on chain', async () => {
    const holder = await tokenHolder(1_000_000n);
    const journal = new MemoryJournal();
    journal.crashAfter = 'delegate-energy.tx';
    const job = await jobOf(staking, holder, '1', journal);
    await expect(whileMining(sponsor.run(job))).rejects.toThrow('the process died');
    // Meanwhile the holder moves its tokens away (with the energy lent to it).
    const away = await tron.buildTrc20Transfer(holder.address, staking.address, usdt, 1_000_000n, 100n * TRX);
    await tron.broadcast(await tron.sign(away, holder.privateKey));
    // ... and, its free bandwidth spent on that, gets TRX to burn for the next transfer's bytes.
    await devnet.faucetTrx(holder.address, TRX);
    await devnet.mine(1);
    const before = await tron.getBalance(staking.address);

    const refused = await whileMining(sponsor.run(job)).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(SponsorshipRefused);
    expect((refused as Error).message).toBe('TRC20: transfer amount exceeds balance');
    expect((await stakeOf(staking, holder.address)).lentTo).toBe(0n);
    expect(await usdtOf(job.transfer.to)).toBe(0n);
    const lost = before - (await tron.getBalance(staking.address));
    const reclaimed = [...journal.ledger].filter(([key]) => key.startsWith('reclaim-'));
    expect(reclaimed.reduce((sum, [, units]) => sum + units, 0n)).toBe(lost);
  });

  it('refuses the job, lending nothing, when its stake is gone by the time it runs', async () => {
    const fickle = tron.generateKey();
    await devnet.faucetTrx(fickle.address, 5_000n * TRX);
    await devnet.mine(1);
    await tron.broadcast(
      await tron.sign(await tron.buildFreeze(fickle.address, 4_000n * TRX, 'ENERGY'), fickle.privateKey),
    );
    await devnet.mine(1);
    const holder = await tokenHolder(1_000_000n);
    const journal = new MemoryJournal();
    journal.crashAfter = 'plan';
    const job = await jobOf(fickle, holder, '1', journal);
    await expect(whileMining(sponsor.run(job))).rejects.toThrow('the process died');
    // The stake the plan counted on is lent elsewhere before the job resumes.
    const elsewhere = await tron.buildDelegate(fickle.address, staking.address, 4_000n * TRX, 'ENERGY');
    await tron.broadcast(await tron.sign(elsewhere, fickle.privateKey));
    await devnet.mine(1);
    const before = await tron.getBalance(fickle.address);

    const refused = await whileMining(sponsor.run(job)).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(SponsorshipRefused);
    expect((refused as Error).message).toBe(
      'delegateBalance must be less than or equal to available FreezeEnergyV2 balance',
    );
    expect(journal.notes['delegate-energy.tx']).toBeUndefined();
    expect((await stakeOf(fickle, holder.address)).lentTo).toBe(0n);
    expect(journal.total()).toBe(before - (await tron.getBalance(fickle.address)));
  });

  it('pays a TRC10 transfer to a new account with the exact TRX its creation burns', async () => {
    const [assetId] = Object.values(devnet.tokens.trc10);
    const holder = tron.generateKey();
    await devnet.faucetTrc10(assetId!, holder.address, 500n);
    await devnet.mine(1);
    const journal = new MemoryJournal();
    const to = tron.generateKey().address;
    const transfer = await sponsor.transfer('tron', 'testnet', {
      type: 'trc10',
      from: holder.address,
      to,
      tokenid: assetId,
      amount: formatAmount(500n, (await tron.getTrc10Info(assetId!)).precision),
    });
    expect(transfer.units).toBe('500');
    const quote = await sponsor.quote('tron', 'testnet', transfer, staking.address);
    const before = await tron.getBalance(staking.address);

    await whileMining(
      sponsor.run({
        chain: 'tron',
        network: 'testnet',
        transfer,
        sponsor: staking,
        owner: holder,
        journal,
        maxCost: NOT_LIMITED,
      }),
    );

    expect(await tron.getTrc10Balance(to, assetId!)).toBe(500n);
    expect(await tron.getBalance(holder.address)).toBe(0n);
    const lost = before - (await tron.getBalance(staking.address));
    expect(journal.total()).toBe(lost);
    expect(quote.answer['paymaster_fee']).toBe(trx(lost));
  });

  it('pays a TRX transfer of a whole balance to a new account with the exact TRX its creation costs', async () => {
    const holder = tron.generateKey();
    await devnet.faucetTrx(holder.address, 5n * TRX);
    await devnet.mine(1);
    const journal = new MemoryJournal();
    const to = tron.generateKey().address;
    const transfer = await sponsor.transfer('tron', 'testnet', {
      type: 'TRX',
      from: holder.address,
      to,
      amount: '5',
    });
    const quote = await sponsor.quote('tron', 'testnet', transfer, staking.address);
    const before = await tron.getBalance(staking.address);

    await whileMining(
      sponsor.run({
        chain: 'tron',
        network: 'testnet',
        transfer,
        sponsor: staking,
        owner: holder,
        journal,
        maxCost: NOT_LIMITED,
      }),
    );

    expect(await tron.getBalance(to)).toBe(5n * TRX);
    expect(await tron.getBalance(holder.address)).toBe(0n);
    const lost = before - (await tron.getBalance(staking.address));
    expect(journal.total()).toBe(lost);
    expect(quote.answer['paymaster_fee']).toBe(trx(lost));
  });

  it('reads holdings and what a sweep moves', async () => {
    const holder = await tokenHolder(7n);
    expect(await sponsor.holding('tron', 'testnet', holder.address, usdt)).toBe(7n);
    expect(await sponsor.sweepUnits('tron', 'testnet', holder.address, usdt, 7n)).toBe(7n);
    await devnet.faucetTrx(holder.address, 2n * TRX);
    await devnet.mine(1);
    const held = await sponsor.holding('tron', 'testnet', holder.address, null);
    expect(held).toBe(2n * TRX);
    // Its free bandwidth pays for its own transfer: all of it moves.
    expect(await sponsor.sweepUnits('tron', 'testnet', holder.address, null, held)).toBe(held);
  });

  it('checks the request fields', async () => {
    const holder = tron.generateKey().address;
    const ask = (request: Record<string, string>) =>
      sponsor
        .transfer('tron', 'testnet', { type: 'TRC20', from: holder, to: holder, ...request })
        .catch((e) => e);
    expect(await ask({ amount: '1' })).toMatchObject({ status: 422, errors: [{ field: 'contractaddress' }] });
    expect(await ask({ contractaddress: usdt })).toMatchObject({
      status: 422,
      errors: [{ field: 'amount' }],
    });
    expect(await ask({ contractaddress: usdt, amount: '1.0000001' })).toMatchObject({
      errors: [{ field: 'amount' }],
    });
    expect(await ask({ type: 'TRC721', contractaddress: usdt })).toMatchObject({
      errors: [{ field: 'tokenid' }],
    });
    expect(await ask({ type: 'TRC10', amount: '1' })).toMatchObject({ errors: [{ field: 'tokenid' }] });
    expect(await ask({ type: 'TRC10', tokenid: 'abc', amount: '1' })).toMatchObject({
      errors: [{ field: 'tokenid' }],
    });
    expect(await ask({ type: 'TRC10', tokenid: '1999999', amount: '1' })).toMatchObject({
      errors: [{ field: 'tokenid' }],
    });
    expect(await ask({ type: 'BTC', amount: '1' })).toMatchObject({ errors: [{ field: 'type' }] });
    expect(sponsor.types('tron')).toEqual(['TRX', 'TRC10', 'TRC20', 'TRC721']);
  });
});

const trx = (sun: bigint) => formatAmount(sun, 6);
