// Priority fees through the HTTP API: while the node reports recent prioritization fees on the accounts
// a transfer writes, a build answers the price and compute-unit limit with the fee they make, and sends
// with them land, charged that fee. The fee is set on the run's shared devnet for this file's accounts
// only, in a file of its own, and put back to none after each test.
import { getBase58Decoder } from '@solana/kit';
import { ComputeBudgetProgram, SystemProgram, Transaction } from '@solana/web3.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fundedAddress,
  LAMPORTS_PER_SOL,
  lamportsOf,
  newKey,
  PASSWORD,
  sol,
  solanaApiForFile,
} from '../helpers/solana-api.ts';

/** What the Memo program uses for the 16 hex digits a send carries, as the devnet's SVM runs it. */
const MEMO_UNITS = 287n;
/** Micro-lamports per compute unit: 2.5 lamports per unit. */
const PRICE = 2_500_000n;

const context = solanaApiForFile();
const { api } = context;

afterEach(async () => {
  await context.devnet.setPriorityFee(0);
});

/** The fee of one signature and the priced compute units, rounded up to a lamport. */
const feeOf = (limit: bigint) => 5000n + (PRICE * limit + 999_999n) / 1_000_000n;

describe('solana priority fees', () => {
  it('a build answers the price, the unit limit and the fee; signed outside it lands, charged that fee', async () => {
    const key = newKey();
    await context.devnet.airdrop(key.address, LAMPORTS_PER_SOL);
    const to = newKey().address;
    await context.devnet.setPriorityFee(PRICE, [key.address]);

    const res = await api('POST', '/transactions/build', { json: { from: key.address, to, amount: '0.2' } });
    expect(res.status, res.text).toBe(200);
    const { priorityFee, fee, unsigned } = res.body.data;
    expect(priorityFee.microLamportsPerUnit).toBe(PRICE.toString());
    const limit = BigInt(priorityFee.computeUnitLimit);
    // A System transfer uses 150 units; the limit covers them and the budget instructions, a tenth more.
    expect(limit).toBe(((150n + 300n) * 11n) / 10n);
    expect(fee).toBe(sol(feeOf(limit)));
    expect(feeOf(limit)).toBeGreaterThan(5000n);

    const tx = Transaction.from(Buffer.from(unsigned, 'base64'));
    expect(tx.instructions.map((ix) => ix.programId.toBase58())).toEqual([
      ComputeBudgetProgram.programId.toBase58(),
      ComputeBudgetProgram.programId.toBase58(),
      SystemProgram.programId.toBase58(),
    ]);
    tx.sign(key.keypair);
    const sent = await api('POST', '/transactions/broadcast', {
      json: { rawtx: tx.serialize().toString('base64') },
    });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body.data.txid).toBe(getBase58Decoder().decode(tx.signature!));
    await context.devnet.advance(1);
    expect(await lamportsOf(context, to)).toBe(200_000_000n);
    expect(await lamportsOf(context, key.address)).toBe(LAMPORTS_PER_SOL - 200_000_000n - feeOf(limit));
    const receipt = await api('GET', `/transactions/${sent.body.data.txid}/receipt`);
    expect(receipt.body.data).toMatchObject({ status: 'success', fee });
  });

  it('a send with a stored key pays the priority fee and lands; without the fee set it pays the base fee', async () => {
    const from = await fundedAddress(context, LAMPORTS_PER_SOL);
    const to = newKey().address;
    await context.devnet.setPriorityFee(PRICE, [to]);
    const sent = await api('POST', '/transactions', {
      json: { from, to, amount: '0.1', password: PASSWORD },
    });
    expect(sent.status, sent.text).toBe(201);
    const charged = BigInt(Math.round(Number(sent.body.data.fee) * 1e9));
    // The send carries the memo that tells it from an equal one: its units are priced too.
    expect(charged).toBe(feeOf(((150n + MEMO_UNITS + 300n) * 11n) / 10n));
    await context.devnet.advance(1);
    const receipt = await api('GET', `/transactions/${sent.body.data.txid}/receipt`);
    expect(receipt.body.data).toMatchObject({ status: 'success', fee: sent.body.data.fee });
    expect(await lamportsOf(context, to)).toBe(100_000_000n);
    expect(await lamportsOf(context, from)).toBe(LAMPORTS_PER_SOL - 100_000_000n - charged);

    await context.devnet.setPriorityFee(0);
    const plain = await api('POST', '/transactions', {
      json: { from, to, amount: '0.1', password: PASSWORD },
    });
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.data.fee).toBe('0.000005');
  });

  it('an SPL send with the priority fee set on the sender lands with the fee it answered', async () => {
    const usdt = context.devnet.tokens.spl.USDT;
    const from = await fundedAddress(context, LAMPORTS_PER_SOL);
    await context.devnet.faucetSpl(usdt, from, 4_000_000n);
    const to = newKey().address;
    await context.devnet.setPriorityFee(PRICE, [from]);
    const sent = await api('POST', '/transactions/spl', {
      json: { from, to, contractaddress: usdt, amount: '4', password: PASSWORD },
    });
    expect(sent.status, sent.text).toBe(201);
    expect(Number(sent.body.data.fee)).toBeGreaterThan(0.000005);
    await context.devnet.advance(1);
    const receipt = await api('GET', `/transactions/${sent.body.data.txid}/receipt`);
    expect(receipt.body.data).toMatchObject({ status: 'success', fee: sent.body.data.fee });
    const balance = await api('GET', `/balances/${to}/spl/${usdt}`);
    expect(balance.body.data.balance_raw).toBe('4000000');
    // The fee it answered and the rent of the receiver's new token account (165 bytes), nothing else.
    const charged = BigInt(Math.round(Number(sent.body.data.fee) * 1e9));
    expect(await lamportsOf(context, from)).toBe(LAMPORTS_PER_SOL - charged - 2_039_280n);
  });
});
