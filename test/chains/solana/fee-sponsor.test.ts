// Solana's fee sponsor against the project's Solana devnet: the sponsor pays the fee (and the receiver's
// token account) of transfers from addresses that hold no SOL, resumes a run cut short without paying
// twice, and records exactly what it lost.
import {
  address,
  appendTransactionMessageInstruction,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SolanaDevnet, startSolanaDevnet } from '../../../devnets/solana/index.ts';
import type { KeyHolder, SponsoredTransfer, SponsorJournal } from '../../../src/chains/fee-sponsor.ts';
import { SponsorshipRefused } from '../../../src/chains/fee-sponsor.ts';
import { ChainRegistry } from '../../../src/chains/registry.ts';
import { SolanaAdapter } from '../../../src/chains/solana/adapter.ts';
import { SolanaFeeSponsor } from '../../../src/chains/solana/fee-sponsor.ts';
import { generateSolanaKey } from '../../../src/chains/solana/keys.ts';
import { noteTransaction } from '../../../src/chains/solana/sponsored-landing.ts';
import { ApiError } from '../../../src/errors.ts';
import { associatedTokenAccount, rpc } from '../../devnets/solana/helpers.ts';

/** What these runs are given as reserved: the runs' own costs are checked against the ledger instead. */
const NOT_LIMITED = 10n ** 30n;

/** The journal's note that holds the signed transaction (sponsored-landing.ts). */
const SIGNED_NOTE = 'solana_transaction';

/** A job's journal in memory; `dieAfterSigning` makes the note of the signed transaction throw once, kept. */
class MemoryJournal implements SponsorJournal {
  notes: Record<string, string> = {};
  readonly costs = new Map<string, bigint>();
  dieAfterSigning = false;

  async note(notes: Record<string, string>): Promise<void> {
    this.notes = { ...this.notes, ...notes };
    if (this.dieAfterSigning && SIGNED_NOTE in notes) {
      this.dieAfterSigning = false;
      throw new Error('the process died after noting the signed transaction');
    }
  }

  async spent(what: string, units: bigint, txid: string): Promise<void> {
    this.costs.set(`${what} ${txid}`, units);
  }

  total(): bigint {
    return [...this.costs.values()].reduce((sum, units) => sum + units, 0n);
  }
}

let devnet: SolanaDevnet;
let adapter: SolanaAdapter;
let sponsor: SolanaFeeSponsor;
let usdt: string;
const payer: KeyHolder = generateSolanaKey();

beforeAll(async () => {
  devnet = await startSolanaDevnet({ slotIntervalMs: 50 });
  adapter = new SolanaAdapter({
    network: 'mainnet',
    endpoints: [{ url: devnet.url, headers: {} }],
    retries: 0,
  });
  const registry = new ChainRegistry();
  registry.register(adapter);
  sponsor = new SolanaFeeSponsor(registry);
  usdt = devnet.tokens.spl.USDT;
  await devnet.airdrop(payer.address, 10_000_000_000n);
});

afterAll(async () => {
  await adapter?.close();
  await devnet?.close();
});

/** An owner holding `units` of USDT and no SOL, and the transfer of `amount` of it to a new address. */
async function tokenOnlyOwner(units: bigint, amount: string) {
  const owner = generateSolanaKey();
  const receiver = generateSolanaKey();
  await devnet.faucetSpl(usdt, owner.address, units);
  const transfer = await sponsor.transfer('solana', 'mainnet', {
    type: 'SPL',
    from: owner.address,
    to: receiver.address,
    contractaddress: usdt,
    amount,
  });
  return { owner, receiver, transfer };
}

const lamports = (address: string) => adapter.getBalance(address);

function runOf(transfer: SponsoredTransfer, owner: KeyHolder, journal: SponsorJournal) {
  return {
    chain: 'solana',
    network: 'mainnet' as const,
    transfer,
    sponsor: payer,
    owner,
    journal,
    maxCost: NOT_LIMITED,
  };
}

describe('Solana fee sponsor', () => {
  it('pays for an SPL transfer from an address without SOL to a new address, and records what it lost', async () => {
    const { owner, receiver, transfer } = await tokenOnlyOwner(5_000_000n, '1.25');
    expect(transfer).toMatchObject({ type: 'SPL', contract: usdt, units: '1250000', decimals: 6 });
    expect(await lamports(owner.address)).toBe(0n);

    const quote = await sponsor.quote('solana', 'mainnet', transfer, payer.address);
    const before = await lamports(payer.address);
    const journal = new MemoryJournal();
    const { txid } = await sponsor.run(runOf(transfer, owner, journal));

    expect(await sponsor.holding('solana', 'mainnet', receiver.address, usdt)).toBe(1_250_000n);
    expect(await sponsor.holding('solana', 'mainnet', owner.address, usdt)).toBe(3_750_000n);
    expect(await lamports(owner.address)).toBe(0n);
    const lost = before - (await lamports(payer.address));
    expect(journal.total()).toBe(lost);
    // The fee for two signatures, and the rent of the receiver's token account it opened.
    expect(journal.costs.get(`fee ${txid}`)).toBe(10_000n);
    expect(journal.costs.get(`rent ${txid}`)).toBe(BigInt(quote.answer.rent_lamports ?? 0));
    // The quote is exactly what the run cost when it opens the receiver's account.
    expect(quote.maxCost).toBe(lost);
    expect(quote.answer).toMatchObject({
      fee_lamports: '10000',
      paymaster_fee: (Number(lost) / 1e9).toString(),
    });
  });

  it("adds the priority fee the family's sends pay while the accounts it writes pay one, quoted exactly", async () => {
    const { owner, transfer } = await tokenOnlyOwner(1_000_000n, '1');
    devnet.setPriorityFee(250_000n, [payer.address]);
    try {
      const quote = await sponsor.quote('solana', 'mainnet', transfer, payer.address);
      expect(BigInt(quote.answer.fee_lamports ?? 0)).toBeGreaterThan(10_000n);
      const before = await lamports(payer.address);
      const journal = new MemoryJournal();
      const { txid } = await sponsor.run(runOf(transfer, owner, journal));
      expect(journal.costs.get(`fee ${txid}`)).toBe(BigInt(quote.answer.fee_lamports ?? 0));
      expect(before - (await lamports(payer.address))).toBe(quote.maxCost);
      expect(journal.total()).toBe(quote.maxCost);
    } finally {
      devnet.setPriorityFee(0n);
    }
  });

  it('resumes a run that died after noting its signed transaction: the same transaction lands once', async () => {
    const { owner, receiver, transfer } = await tokenOnlyOwner(2_000_000n, '2');
    const before = await lamports(payer.address);
    const journal = new MemoryJournal();
    journal.dieAfterSigning = true;
    await expect(sponsor.run(runOf(transfer, owner, journal))).rejects.toThrow(/process died/);
    const noted = journal.notes['solana_signature'];
    expect(noted).toBeDefined();
    expect(await lamports(payer.address)).toBe(before);

    const { txid } = await sponsor.run(runOf(transfer, owner, journal));
    expect(txid).toBe(noted);
    // Run once more, as a job resumed after it finished: nothing is sent or counted again.
    expect((await sponsor.run(runOf(transfer, owner, journal))).txid).toBe(txid);

    expect(await sponsor.holding('solana', 'mainnet', receiver.address, usdt)).toBe(2_000_000n);
    expect(await sponsor.holding('solana', 'mainnet', owner.address, usdt)).toBe(0n);
    expect(journal.total()).toBe(before - (await lamports(payer.address)));
    expect(journal.costs.size).toBe(2);
  });

  it('builds a new transaction once the noted one can no longer land (its blockhash expired)', async () => {
    const { owner, receiver, transfer } = await tokenOnlyOwner(1_000_000n, '1');
    const before = await lamports(payer.address);
    const journal = new MemoryJournal();
    journal.dieAfterSigning = true;
    await expect(sponsor.run(runOf(transfer, owner, journal))).rejects.toThrow(/process died/);
    const expired = journal.notes['solana_signature'];
    await devnet.advance(152);

    const { txid } = await sponsor.run(runOf(transfer, owner, journal));
    expect(txid).not.toBe(expired);
    expect(await adapter.signatureStatus(expired ?? '')).toBeNull();
    expect(await sponsor.holding('solana', 'mainnet', receiver.address, usdt)).toBe(1_000_000n);
    expect(journal.total()).toBe(before - (await lamports(payer.address)));
  });

  it("a transaction that failed on chain is the job's refusal, its fee recorded as the sponsor's loss", async () => {
    const { owner, transfer } = await tokenOnlyOwner(1_000_000n, '1');
    // What an earlier run noted and sent, which then failed in its block: more tokens than the owner holds.
    const signerOf = (key: KeyHolder) =>
      createKeyPairSignerFromPrivateKeyBytes(Buffer.from(key.privateKey, 'hex'));
    const [sponsorSigner, ownerSigner] = [await signerOf(payer), await signerOf(owner)];
    const source = await associatedTokenAccount(address(usdt), ownerSigner.address);
    const lifetime = await adapter.latestBlockhash();
    const message = pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayerSigner(sponsorSigner, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) =>
        appendTransactionMessageInstruction(
          getTransferCheckedInstruction({
            source,
            mint: address(usdt),
            destination: source,
            authority: ownerSigner,
            amount: 2_000_000n,
            decimals: 6,
          }),
          m,
        ),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const before = await lamports(payer.address);
    const wire = getBase64EncodedWireTransaction(signed);
    const signature = await rpc(devnet.url, 'sendTransaction', [
      wire,
      { encoding: 'base64', skipPreflight: true },
    ]);
    const journal = new MemoryJournal();
    await noteTransaction(journal, {
      signature: String(signature.result),
      wire,
      lastValidBlockHeight: lifetime.lastValidBlockHeight,
    });
    const refusal = await sponsor.run(runOf(transfer, owner, journal)).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(SponsorshipRefused);
    expect(refusal).toMatchObject({
      message: expect.stringMatching(/^failed on chain: \{"InstructionError":/),
    });
    expect(before - (await lamports(payer.address))).toBe(10_000n);
    expect([...journal.costs]).toEqual([[`fee ${getSignatureFromTransaction(signed)}`, 10_000n]]);
    expect(await sponsor.holding('solana', 'mainnet', owner.address, usdt)).toBe(1_000_000n);
  });

  it('quote refuses an amount above the token balance, and transfer a field it cannot take (422)', async () => {
    const { transfer } = await tokenOnlyOwner(1_000_000n, '1.000001');
    const refusal = await sponsor
      .quote('solana', 'mainnet', transfer, payer.address)
      .catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ status: 422, message: expect.stringMatching(/^Insufficient funds: /) });

    const owner = generateSolanaKey().address;
    const request = { type: 'SPL', from: owner, to: generateSolanaKey().address, contractaddress: usdt };
    const fieldOf = (error: unknown) =>
      error instanceof ApiError ? [error.status, error.errors[0]?.field] : error;
    const refused = (body: Parameters<SolanaFeeSponsor['transfer']>[2]) =>
      sponsor.transfer('solana', 'mainnet', body).then(() => null, fieldOf);
    expect(await refused({ ...request, amount: '0.0000001' })).toEqual([422, 'amount']);
    expect(await refused({ ...request, amount: '0' })).toEqual([422, 'amount']);
    expect(await refused({ ...request, type: 'TRC20', amount: '1' })).toEqual([422, 'type']);
    expect(await refused({ ...request, to: 'not-an-address', amount: '1' })).toEqual([422, 'to']);
    const noMint = await sponsor
      .transfer('solana', 'mainnet', { ...request, contractaddress: owner, amount: '1' })
      .catch((e: unknown) => e);
    expect(noMint).toMatchObject({ status: 422, message: `${owner} is not an SPL token mint` });
  });

  it('pays the fee of a SOL transfer, and a SOL sweep empties the address paying its own fee', async () => {
    const owner = generateSolanaKey();
    const receiver = generateSolanaKey();
    await devnet.airdrop(owner.address, 2_000_000_000n);
    const transfer = await sponsor.transfer('solana', 'mainnet', {
      type: 'SOL',
      from: owner.address,
      to: receiver.address,
      amount: '0.5',
    });
    const quote = await sponsor.quote('solana', 'mainnet', transfer, payer.address);
    expect(quote.maxCost).toBe(10_000n);
    const before = await lamports(payer.address);
    const journal = new MemoryJournal();
    await sponsor.run(runOf(transfer, owner, journal));
    expect(await lamports(owner.address)).toBe(1_500_000_000n);
    expect(await lamports(receiver.address)).toBe(500_000_000n);
    expect(before - (await lamports(payer.address))).toBe(10_000n);
    expect(journal.total()).toBe(10_000n);

    const held = await sponsor.holding('solana', 'mainnet', owner.address, null);
    const units = await sponsor.sweepUnits('solana', 'mainnet', owner.address, null, held);
    expect(units).toBe(held - 5_000n);
    const sweep = { ...transfer, units: String(units) };
    expect((await sponsor.quote('solana', 'mainnet', sweep, payer.address)).maxCost).toBe(0n);
    const sweepJournal = new MemoryJournal();
    const sponsorBefore = await lamports(payer.address);
    await sponsor.run(runOf(sweep, owner, sweepJournal));
    expect(await lamports(owner.address)).toBe(0n);
    expect(await lamports(payer.address)).toBe(sponsorBefore);
    expect(sweepJournal.total()).toBe(0n);
    expect(await sponsor.sweepUnits('solana', 'mainnet', owner.address, null, 5_000n)).toBeNull();
  });

  it('a sponsor without the lamports for the fee is refused with the node’s reason', async () => {
    const { owner, transfer } = await tokenOnlyOwner(1_000_000n, '1');
    const broke = generateSolanaKey();
    const journal = new MemoryJournal();
    const run = { ...runOf(transfer, owner, journal), sponsor: broke };
    const refusal = await sponsor.run(run).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(SponsorshipRefused);
    expect(refusal).toMatchObject({ message: expect.stringMatching(/^Transaction simulation failed: /) });
    expect(journal.total()).toBe(0n);
  });
});
