import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../../devnets/evm/index.ts';
import { assetAmount } from '../../../src/chains/amount.ts';
import { EvmFeeSponsor } from '../../../src/chains/evm/fee-sponsor.ts';
import {
  type EvmAdapter,
  type EvmKeyPair,
  NonceManager,
  type NonceNode,
  transactionHash,
  withTransactionNonce,
} from '../../../src/chains/evm/index.ts';
import type { SponsoredTransfer, SponsorJournal } from '../../../src/chains/fee-sponsor.ts';
import { ChainRegistry } from '../../../src/chains/registry.ts';
import { ApiError } from '../../../src/errors.ts';
import { devnetAdapter, freshNonceDatabase, type NonceDatabase } from './helpers.ts';

/** What these runs are given as reserved: the runs' own costs are checked against the ledger instead. */
const NOT_LIMITED = 10n ** 30n;

const ETHER = 10n ** 18n;
const USDT_DECIMALS = 6;

/** A job's journal kept in memory; `crashAfter` makes one `note` throw once it has kept its notes. */
class MemoryJournal implements SponsorJournal {
  readonly notes: Record<string, string> = {};
  readonly costs = new Map<string, bigint>();

  constructor(private crashAfter?: (notes: Record<string, string>) => boolean) {}

  async note(notes: Record<string, string>): Promise<void> {
    Object.assign(this.notes, notes);
    if (this.crashAfter?.(notes)) {
      this.crashAfter = undefined;
      throw new Error('the process died just after the note was kept');
    }
  }

  async spent(what: string, units: bigint, txid: string): Promise<void> {
    this.costs.set(`${what} ${txid}`, units);
  }

  total(): bigint {
    return [...this.costs.values()].reduce((sum, units) => sum + units, 0n);
  }
}

describe('EVM fee sponsor: an exact top-up (real anvil)', () => {
  let devnet: EvmDevnet;
  let adapter: EvmAdapter;
  let database: NonceDatabase;
  let feeSponsor: EvmFeeSponsor;
  let sponsor: EvmKeyPair;
  let usdt: string;

  beforeAll(async () => {
    [devnet, database] = await Promise.all([
      startEvmDevnet({ chain: 'ethereum' }),
      freshNonceDatabase('sqlite'),
    ]);
    adapter = devnetAdapter('ethereum', devnet.url);
    const registry = new ChainRegistry();
    registry.register(adapter);
    feeSponsor = new EvmFeeSponsor({
      db: database.db,
      dialect: database.dialect,
      registry,
      wait: { pollMs: 25, timeoutMs: 20_000, rebroadcastEvery: 40 },
    });
    usdt = devnet.tokens.erc20.USDT;
    sponsor = adapter.generateKey();
    await devnet.faucetNative(sponsor.address, 10n * ETHER);
  }, 60_000);

  afterAll(async () => {
    await adapter?.close();
    await devnet?.close();
    await database?.close();
  });

  /** A new address holding `units` of the devnet's USDT and no ether. */
  async function tokenHolder(units: bigint): Promise<EvmKeyPair> {
    const key = adapter.generateKey();
    await devnet.faucetErc20(usdt, key.address, units);
    return key;
  }

  function usdtTransfer(from: EvmKeyPair, to: string, amount: string): Promise<SponsoredTransfer> {
    return feeSponsor.transfer('ethereum', 'mainnet', {
      type: 'ERC20',
      from: from.address,
      to,
      contractaddress: usdt,
      amount,
    });
  }

  const tokenBalance = async (address: string) => (await adapter.getErc20Balance(address, usdt)).balance;

  function runOf(transfer: SponsoredTransfer, owner: EvmKeyPair, journal: SponsorJournal) {
    return {
      chain: 'ethereum',
      network: 'mainnet' as const,
      transfer,
      sponsor: { address: sponsor.address, privateKey: sponsor.privateKey },
      owner: { address: owner.address, privateKey: owner.privateKey },
      journal,
      maxCost: NOT_LIMITED,
    };
  }

  it('refuses, sending nothing, a run that would cost the sponsor more than its job reserved', async () => {
    const from = await tokenHolder(50_000_000n);
    const transfer = await usdtTransfer(from, adapter.generateKey().address, '1');
    const quote = await feeSponsor.quote('ethereum', 'mainnet', transfer, sponsor.address);
    const sponsorBefore = await adapter.getBalance(sponsor.address);
    const run = { ...runOf(transfer, from, new MemoryJournal()), maxCost: quote.maxCost - 1n };
    await expect(feeSponsor.run(run)).rejects.toThrow(/fees rose since the estimate/);
    expect(await adapter.getBalance(sponsor.address)).toBe(sponsorBefore);
    expect(await adapter.getBalance(from.address)).toBe(0n);
  });

  it('sends an ERC20 from an address without ether: the sponsor loses exactly what the ledger says', async () => {
    const from = await tokenHolder(50_000_000n);
    const to = adapter.generateKey().address;
    const transfer = await usdtTransfer(from, to, '12.5');
    expect(transfer).toMatchObject({ type: 'ERC20', units: '12500000', decimals: USDT_DECIMALS });

    const quote = await feeSponsor.quote('ethereum', 'mainnet', transfer, sponsor.address);
    const { gas_limit, max_fee_per_gas, top_up } = quote.answer;
    expect(Number(gas_limit)).toBeGreaterThan(21_000);
    expect(quote.maxCost).toBeGreaterThan(0n);

    const sponsorBefore = await adapter.getBalance(sponsor.address);
    const journal = new MemoryJournal();
    const { txid } = await feeSponsor.run(runOf(transfer, from, journal));

    expect(await tokenBalance(to)).toBe(12_500_000n);
    const receipt = await adapter.getReceipt(txid);
    expect(receipt?.['status']).toBe('0x1');
    // The transfer went out with exactly the quoted gas limit (the fees may have moved by a block since).
    const sent = await adapter.getTransaction(txid);
    expect(BigInt(String(sent?.['gas']))).toBe(BigInt(gas_limit!));
    expect(max_fee_per_gas).toMatch(/^0\.\d{18}$/);
    expect(top_up).toMatch(/^0\.\d{18}$/);

    // What is left at `from` is the top-up less the transfer's real fee, and nothing else.
    const leftOver = await adapter.getBalance(from.address);
    expect(journal.notes['left_over']).toBe(assetAmount(leftOver, 18));
    console.info(`sponsored ERC20 transfer ${txid}: left over at from ${journal.notes['left_over']} ETH`);

    const loss = sponsorBefore - (await adapter.getBalance(sponsor.address));
    expect(loss).toBeGreaterThan(0n);
    expect(journal.total()).toBe(loss);
    expect(loss).toBeLessThanOrEqual(quote.maxCost);
  });

  it('resumes after a crash just after the top-up was noted: one top-up, the transfer lands', async () => {
    const from = await tokenHolder(5_000_000n);
    const to = adapter.generateKey().address;
    const transfer = await usdtTransfer(from, to, '5');
    const sponsorBefore = await adapter.getBalance(sponsor.address);
    const sponsorNonce = await adapter.getTransactionCount(sponsor.address, 'latest');

    const journal = new MemoryJournal((notes) => notes['top_up_txid'] !== undefined);
    await expect(feeSponsor.run(runOf(transfer, from, journal))).rejects.toThrow(/process died/);
    expect(journal.notes['top_up_raw']).toMatch(/^0x/);

    // The next process finds the notes the first one kept.
    const { txid } = await feeSponsor.run(runOf(transfer, from, journal));
    expect(await tokenBalance(to)).toBe(5_000_000n);
    expect((await adapter.getReceipt(txid))?.['status']).toBe('0x1');
    expect(await adapter.getTransactionCount(sponsor.address, 'latest')).toBe(sponsorNonce + 1);
    expect(await adapter.getReceipt(journal.notes['top_up_txid']!)).not.toBeNull();

    const loss = sponsorBefore - (await adapter.getBalance(sponsor.address));
    expect(journal.total()).toBe(loss);
    expect(journal.costs.size).toBe(2);
  });

  it('sponsors five transfers from five addresses at once with one sponsor, each top-up its own nonce', async () => {
    const senders = await Promise.all([1, 2, 3, 4, 5].map(() => tokenHolder(3_000_000n)));
    const receivers = senders.map(() => adapter.generateKey().address);
    const transfers = await Promise.all(senders.map((from, i) => usdtTransfer(from, receivers[i]!, '3')));
    const sponsorBefore = await adapter.getBalance(sponsor.address);
    const sponsorNonce = await adapter.getTransactionCount(sponsor.address, 'latest');

    const journals = senders.map(() => new MemoryJournal());
    const results = await Promise.all(
      transfers.map((transfer, i) => feeSponsor.run(runOf(transfer, senders[i]!, journals[i]!))),
    );

    for (const [i, receiver] of receivers.entries()) {
      expect(await tokenBalance(receiver)).toBe(3_000_000n);
      expect((await adapter.getReceipt(results[i]!.txid))?.['status']).toBe('0x1');
    }
    const nonces = await Promise.all(
      journals.map(async (journal) => {
        const topUp = await adapter.getTransaction(journal.notes['top_up_txid'] as Hex);
        return Number(topUp?.['nonce']);
      }),
    );
    expect(new Set(nonces).size).toBe(5);
    expect(await adapter.getTransactionCount(sponsor.address, 'latest')).toBe(sponsorNonce + 5);

    const loss = sponsorBefore - (await adapter.getBalance(sponsor.address));
    expect(journals.reduce((sum, journal) => sum + journal.total(), 0n)).toBe(loss);
  });

  it('a noted top-up whose nonce another top-up took is dead: the resumed run pays once, anew', async () => {
    const from = await tokenHolder(2_000_000n);
    const transfer = await usdtTransfer(from, adapter.generateKey().address, '2');
    const sponsorBefore = await adapter.getBalance(sponsor.address);
    const sponsorNonce = await adapter.getTransactionCount(sponsor.address, 'latest');
    const journal = new MemoryJournal((notes) => notes['top_up_txid'] !== undefined);
    await expect(feeSponsor.run(runOf(transfer, from, journal))).rejects.toThrow(/process died/);
    const deadTopUp = journal.notes['top_up_txid']!;

    // Meanwhile another job's top-up takes the nonce the dead one was signed with.
    const other = await tokenHolder(1_000_000n);
    const otherJournal = new MemoryJournal();
    const otherTransfer = await usdtTransfer(other, adapter.generateKey().address, '1');
    await feeSponsor.run(runOf(otherTransfer, other, otherJournal));
    const otherTopUp = await adapter.getTransaction(otherJournal.notes['top_up_txid'] as Hex);
    expect(Number(otherTopUp?.['nonce'])).toBe(sponsorNonce);

    const { txid } = await feeSponsor.run(runOf(transfer, from, journal));
    expect((await adapter.getReceipt(txid))?.['status']).toBe('0x1');
    expect(journal.notes['top_up_txid']).not.toBe(deadTopUp);
    expect(await adapter.getTransaction(deadTopUp as Hex)).toBeNull();
    expect(await adapter.getTransactionCount(sponsor.address, 'latest')).toBe(sponsorNonce + 2);
    const loss = sponsorBefore - (await adapter.getBalance(sponsor.address));
    expect(journal.total() + otherJournal.total()).toBe(loss);
  });

  it('resumes after a crash just after the transfer was noted: the same transfer bytes go out, once', async () => {
    const from = await tokenHolder(4_000_000n);
    const to = adapter.generateKey().address;
    const transfer = await usdtTransfer(from, to, '4');
    const journal = new MemoryJournal((notes) => notes['transfer_txid'] !== undefined);
    await expect(feeSponsor.run(runOf(transfer, from, journal))).rejects.toThrow(/process died/);
    const noted = journal.notes['transfer_txid'];
    expect(await adapter.getTransaction(noted as Hex)).toBeNull();

    const { txid } = await feeSponsor.run(runOf(transfer, from, journal));
    expect(txid).toBe(noted);
    expect(await tokenBalance(to)).toBe(4_000_000n);
    expect(await adapter.getTransactionCount(from.address, 'latest')).toBe(1);
    expect(journal.costs.size).toBe(2);
  });

  it('tops up the fee of a coin transfer, never its amount, and of an NFT transfer', async () => {
    const fromCoin = adapter.generateKey();
    await devnet.faucetNative(fromCoin.address, ETHER / 100n);
    const to = adapter.generateKey().address;
    const coin = await feeSponsor.transfer('ethereum', 'mainnet', {
      type: 'ETH',
      from: fromCoin.address,
      to,
      amount: '0.01',
    });
    expect(coin).toMatchObject({ type: 'default', contract: null, units: (ETHER / 100n).toString() });
    const quote = await feeSponsor.quote('ethereum', 'mainnet', coin, sponsor.address);
    expect(quote.answer['gas_limit']).toBe('21000');
    const journal = new MemoryJournal();
    await feeSponsor.run(runOf(coin, fromCoin, journal));
    expect(await adapter.getBalance(to)).toBe(ETHER / 100n);
    const tooMuch = await feeSponsor.transfer('ethereum', 'mainnet', {
      type: 'ETH',
      from: fromCoin.address,
      to,
      amount: '1',
    });
    const refusal = await feeSponsor.quote('ethereum', 'mainnet', tooMuch, sponsor.address).catch((e) => e);
    expect([refusal.status, refusal.errors[0]?.field]).toEqual([422, 'amount']);

    const nft = devnet.tokens.erc721.NFT;
    const fromNft = adapter.generateKey();
    const tokenId = await devnet.faucetErc721(nft, fromNft.address);
    const nftTransfer = await feeSponsor.transfer('ethereum', 'mainnet', {
      type: 'ERC721',
      from: fromNft.address,
      to,
      contractaddress: nft,
      tokenid: tokenId.toString(),
    });
    expect(nftTransfer).toMatchObject({ type: 'ERC721', units: '1', decimals: 0 });
    await feeSponsor.run(runOf(nftTransfer, fromNft, new MemoryJournal()));
    expect(await adapter.nftOwner(nft, tokenId)).toBe(to);
  });

  it('sizes the top-up on what from holds less its own sends still in flight', async () => {
    const from = await tokenHolder(1_000_000n);
    await devnet.faucetNative(from.address, ETHER / 1000n);
    const to = adapter.generateKey().address;
    const transfer = await usdtTransfer(from, to, '1');
    const alone = await feeSponsor.quote('ethereum', 'mainnet', transfer, sponsor.address);
    expect(alone.maxCost).toBe(0n);

    // A send from `from` signed and stored by the nonce manager that no node has mined yet.
    const unmined: NonceNode = {
      chain: adapter.chain,
      network: adapter.network,
      getTransactionCount: (address, block) => adapter.getTransactionCount(address, block),
      broadcast: async (raw) => transactionHash(raw as Hex),
    };
    // All but a few wei of what `from` holds, so the transfer's gas is short whatever the base fee is now.
    const payment = await adapter.buildTransfer(from.address, to, ETHER / 1000n - 1_000n);
    await new NonceManager(database.db, database.dialect).send(
      { chain: 'ethereum', network: 'mainnet', address: from.address },
      unmined,
      async (nonce) => (await adapter.sign(await withTransactionNonce(payment, nonce), from.privateKey)).raw,
    );
    const beside = await feeSponsor.quote('ethereum', 'mainnet', transfer, sponsor.address);
    expect(beside.maxCost).toBeGreaterThan(0n);
  });

  it('refuses to quote an amount above the token balance (422), and bad fields', async () => {
    const from = await tokenHolder(1_000_000n);
    const transfer = await usdtTransfer(from, adapter.generateKey().address, '1.000001');
    const refusal = await feeSponsor.quote('ethereum', 'mainnet', transfer, sponsor.address).catch((e) => e);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe(422);
    expect((refusal as ApiError).errors[0]?.field).toBe('amount');

    const field = (request: Promise<unknown>) =>
      request.then(
        () => null,
        (e: ApiError) => [e.status, e.errors[0]?.field],
      );
    const to = adapter.generateKey().address;
    expect(await field(usdtTransfer(from, to, '0.0000001'))).toEqual([422, 'amount']);
    expect(
      await field(
        feeSponsor.transfer('ethereum', 'mainnet', { type: 'ERC20', from: from.address, to, amount: '1' }),
      ),
    ).toEqual([422, 'contractaddress']);
    expect(
      await field(
        feeSponsor.transfer('ethereum', 'mainnet', {
          type: 'ERC20',
          from: from.address,
          to,
          contractaddress: to,
          amount: '1',
        }),
      ),
    ).toEqual([422, 'contractaddress']);
    expect(
      await field(feeSponsor.transfer('ethereum', 'mainnet', { type: 'TRC20', from: from.address, to })),
    ).toEqual([422, 'type']);
    expect(feeSponsor.types('bsc')).toEqual(['BNB', 'BEP20', 'BEP721', 'ERC20', 'ERC721']);
    expect(feeSponsor.types('polygon')).toContain('MATIC');
  });
});

describe('EVM fee sponsor on a legacy-fee chain: BSC (real anvil)', () => {
  let devnet: EvmDevnet;
  let adapter: EvmAdapter;
  let database: NonceDatabase;

  beforeAll(async () => {
    [devnet, database] = await Promise.all([startEvmDevnet({ chain: 'bsc' }), freshNonceDatabase('sqlite')]);
    adapter = devnetAdapter('bsc', devnet.url);
  }, 60_000);

  afterAll(async () => {
    await adapter?.close();
    await devnet?.close();
    await database?.close();
  });

  it('sends a BEP20 (asked for as ERC20) from an address without BNB at the gas price it quoted', async () => {
    const registry = new ChainRegistry();
    registry.register(adapter);
    const feeSponsor = new EvmFeeSponsor({
      db: database.db,
      dialect: database.dialect,
      registry,
      wait: { pollMs: 25, timeoutMs: 20_000, rebroadcastEvery: 40 },
    });
    const sponsor = adapter.generateKey();
    await devnet.faucetNative(sponsor.address, ETHER);
    const usdt = devnet.tokens.erc20.USDT;
    const from = adapter.generateKey();
    await devnet.faucetErc20(usdt, from.address, 7_000_000n);
    const to = adapter.generateKey().address;

    const transfer = await feeSponsor.transfer('bsc', 'mainnet', {
      type: 'erc20',
      from: from.address,
      to,
      contractaddress: usdt,
      amount: '7',
    });
    expect(transfer.type).toBe('BEP20');
    const quote = await feeSponsor.quote('bsc', 'mainnet', transfer, sponsor.address);
    const sponsorBefore = await adapter.getBalance(sponsor.address);
    const journal = new MemoryJournal();
    const { txid } = await feeSponsor.run({
      chain: 'bsc',
      network: 'mainnet',
      transfer,
      sponsor: { address: sponsor.address, privateKey: sponsor.privateKey },
      owner: { address: from.address, privateKey: from.privateKey },
      journal,
      maxCost: NOT_LIMITED,
    });

    expect((await adapter.getErc20Balance(to, usdt)).balance).toBe(7_000_000n);
    const sent = await adapter.getTransaction(txid);
    expect(sent?.['type']).toBe('0x0');
    expect(BigInt(String(sent?.['gas']))).toBe(BigInt(quote.answer['gas_limit']!));
    expect(journal.notes['left_over']).toBe(assetAmount(await adapter.getBalance(from.address), 18));
    const loss = sponsorBefore - (await adapter.getBalance(sponsor.address));
    expect(journal.total()).toBe(loss);
    expect(loss).toBe(quote.maxCost);
  });
});
