// Solana sends refused before signing, through the HTTP API on the shared devnet: each answers 422 with
// its reason, moves nothing, and the node is never asked to send (a recording proxy sits in front of
// it); and the sends at the edges of those rules go through.
import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../helpers/gateway.ts';
import {
  fundedAddress,
  LAMPORTS_PER_SOL,
  lamportsOf,
  newKey,
  PASSWORD,
  RENT_MINIMUM,
  sol,
  solanaApiForFile,
  tokenUnitsOf,
} from '../helpers/solana-api.ts';

/** An SPL Token account (165 bytes): (165 + 128) × 6,960 lamports. */
const TOKEN_ACCOUNT_RENT = 2_039_280n;

const context = solanaApiForFile();
const { api } = context;

/** The request's answer, with the node methods it used. */
async function send(path: string, json: Record<string, unknown>) {
  const start = context.proxy.methods.length;
  const res = await api('POST', path, { json: { password: PASSWORD, ...json } });
  return { res, methods: context.proxy.methods.slice(start) };
}

/** Refused before signing: 422, and the node was asked nothing that sends or simulates. */
function expectRefused({ res, methods }: Awaited<ReturnType<typeof send>>, message: string) {
  expect(res.status, res.text).toBe(422);
  expect(res.body.message).toBe(message);
  expect(methods.length).toBeGreaterThan(0);
  expect(methods).not.toContain('sendTransaction');
  expect(methods).not.toContain('simulateTransaction');
}

describe('solana sends refused before signing', () => {
  it('a first transfer to a fresh address below the rent-exempt minimum; at the minimum it goes', async () => {
    const from = await fundedAddress(context, LAMPORTS_PER_SOL);
    const to = newKey().address;
    expect(sol(RENT_MINIMUM)).toBe('0.00089088');
    const refused = await send('/transactions', { from, to, amount: sol(RENT_MINIMUM - 1n) });
    expectRefused(
      refused,
      `${to} has no account yet: a first transfer to it must be at least 0.00089088 SOL, the rent-exempt minimum`,
    );
    await context.devnet.advance(1);
    expect(await lamportsOf(context, from)).toBe(LAMPORTS_PER_SOL);
    expect(await lamportsOf(context, to)).toBe(0n);
    // The history keeps the refusal (the key was unlocked), with nothing sent.
    const history = await api('GET', '/transactions?page=1');
    expect(history.body.data[0]).toMatchObject({ type: 'SOL', from, to, txid: null });

    const sent = await send('/transactions', { from, to, amount: '0.00089088' });
    expect(sent.res.status, sent.res.text).toBe(201);
    expect(sent.methods).toContain('sendTransaction');
    await context.devnet.advance(1);
    expect(await lamportsOf(context, to)).toBe(RENT_MINIMUM);
    // Once the account exists, a single lamport may follow.
    expect((await send('/transactions', { from, to, amount: '0.000000001' })).res.status).toBe(201);
    await context.devnet.advance(1);
    expect(await lamportsOf(context, to)).toBe(RENT_MINIMUM + 1n);
  });

  it('a send that would leave the sender between 0 and the rent minimum; everything but the fee goes', async () => {
    const funds = LAMPORTS_PER_SOL / 2n;
    const from = await fundedAddress(context, funds);
    const to = newKey().address;
    const leavesOne = await send('/transactions', { from, to, amount: sol(funds - 5000n - 1n) });
    expectRefused(
      leavesOne,
      `The transfer would leave ${from} with 0.000000001 SOL, below the rent-exempt minimum of 0.00089088 SOL: leave at least that much, or send everything but the fee`,
    );
    const leavesJustUnder = await send('/transactions', {
      from,
      to,
      amount: sol(funds - 5000n - (RENT_MINIMUM - 1n)),
    });
    expectRefused(
      leavesJustUnder,
      `The transfer would leave ${from} with 0.000890879 SOL, below the rent-exempt minimum of 0.00089088 SOL: leave at least that much, or send everything but the fee`,
    );
    const tooMuch = await send('/transactions', { from, to, amount: sol(funds - 4999n) });
    expectRefused(
      tooMuch,
      `Insufficient funds: ${from} holds 0.5 SOL, and the transfer needs 0.500000001 SOL (0.499995001 SOL and a fee of 0.000005 SOL)`,
    );
    await context.devnet.advance(1);
    expect(await lamportsOf(context, from)).toBe(funds);
    expect(await lamportsOf(context, to)).toBe(0n);

    const all = await send('/transactions', { from, to, amount: sol(funds - 5000n) });
    expect(all.res.status, all.res.text).toBe(201);
    expect(all.res.body.data.fee).toBe('0.000005');
    await context.devnet.advance(1);
    expect(await lamportsOf(context, from)).toBe(0n);
    expect(await lamportsOf(context, to)).toBe(funds - 5000n);
  });

  it('an SPL send of more tokens than the sender holds', async () => {
    const usdt = context.devnet.tokens.spl.USDT;
    const from = await fundedAddress(context, LAMPORTS_PER_SOL);
    await context.devnet.faucetSpl(usdt, from, 1_500_000n);
    const to = newKey().address;
    const refused = await send('/transactions/spl', { from, to, contractaddress: usdt, amount: '1.500001' });
    expectRefused(
      refused,
      `Insufficient funds: ${from} holds 1.5 of token ${usdt} in its associated token account, and the transfer needs 1.500001`,
    );
    // A sender without a token account of that mint holds none.
    const empty = await fundedAddress(context, LAMPORTS_PER_SOL);
    expectRefused(
      await send('/transactions/spl', { from: empty, to, contractaddress: usdt, amount: '0.000001' }),
      `Insufficient funds: ${empty} holds 0 of token ${usdt} in its associated token account, and the transfer needs 0.000001`,
    );
    await context.devnet.advance(1);
    expect(await tokenUnitsOf(context, from, usdt)).toBe(1_500_000n);
    expect(await tokenUnitsOf(context, to, usdt)).toBe(0n);
  });

  it('an SPL send whose `to` is a token account, not a wallet', async () => {
    const usdt = context.devnet.tokens.spl.USDT;
    const from = await fundedAddress(context, LAMPORTS_PER_SOL);
    await context.devnet.faucetSpl(usdt, from, 1_000_000n);
    const wallet = newKey().address;
    await context.devnet.faucetSpl(usdt, wallet, 1n);
    const accounts = await fetch(context.devnet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getTokenAccountsByOwner',
        params: [wallet, { mint: usdt }, { encoding: 'base64' }],
      }),
    });
    const tokenAccount = ((await accounts.json()) as { result: { value: { pubkey: string }[] } }).result
      .value[0]!.pubkey;
    const refused = await send('/transactions/spl', {
      from,
      to: tokenAccount,
      contractaddress: usdt,
      amount: '0.5',
    });
    expect(refused.res.status, refused.res.text).toBe(422);
    expect(refused.res.body.errors).toEqual([
      { field: 'to', message: "The to field is a token account: give its owner's wallet address." },
    ]);
    expect(refused.methods).not.toContain('sendTransaction');
    await context.devnet.advance(1);
    expect(await tokenUnitsOf(context, from, usdt)).toBe(1_000_000n);
    expect(await tokenUnitsOf(context, wallet, usdt)).toBe(1n);
  });

  it("an SPL send whose sender lacks the SOL for the receiver's token-account rent", async () => {
    const usdt = context.devnet.tokens.spl.USDT;
    const from = await fundedAddress(context, 1_000_000n);
    await context.devnet.faucetSpl(usdt, from, 1_000_000n);
    const to = newKey().address;
    const refused = await send('/transactions/spl', { from, to, contractaddress: usdt, amount: '1' });
    expectRefused(
      refused,
      `Insufficient funds: ${from} holds 0.001 SOL and needs 0.000005 SOL for the fee and ${sol(TOKEN_ACCOUNT_RENT)} SOL to open the token account of ${to}`,
    );
    expect(sol(TOKEN_ACCOUNT_RENT)).toBe('0.00203928');
    await context.devnet.advance(1);
    expect(await lamportsOf(context, from)).toBe(1_000_000n);
    expect(await tokenUnitsOf(context, from, usdt)).toBe(1_000_000n);
    expect(await tokenUnitsOf(context, to, usdt)).toBe(0n);

    // The same sender can pay a receiver whose token account already exists: only the fee is due.
    const holder = newKey().address;
    await context.devnet.faucetSpl(usdt, holder, 1n);
    const sent = await send('/transactions/spl', { from, to: holder, contractaddress: usdt, amount: '1' });
    expect(sent.res.status, sent.res.text).toBe(201);
    await context.devnet.advance(1);
    expect(await tokenUnitsOf(context, holder, usdt)).toBe(1_000_001n);
    expect(await lamportsOf(context, from)).toBe(1_000_000n - 5000n);
  });
});

describe('solana sends from one address at once', () => {
  /** The landed transaction's programs, in order, as the node answers getTransaction. */
  async function programsOf(txid: string): Promise<string[]> {
    const answer = await fetch(context.devnet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getTransaction',
        params: [txid, { encoding: 'json', commitment: 'confirmed' }],
      }),
    });
    const { result } = (await answer.json()) as {
      result: {
        meta: { err: unknown };
        transaction: { message: { accountKeys: string[]; instructions: { programIdIndex: number }[] } };
      };
    };
    expect(result.meta.err).toBeNull();
    const { accountKeys, instructions } = result.transaction.message;
    return instructions.map((ix) => accountKeys[ix.programIdIndex]!);
  }

  it('two equal sends are two transactions: both land, the receiver gets both amounts', async () => {
    const from = await fundedAddress(context, LAMPORTS_PER_SOL);
    const to = newKey().address;
    const [first, second] = await Promise.all(
      [1, 2].map(() =>
        api('POST', '/transactions', { json: { from, to, amount: '0.1', password: PASSWORD } }),
      ),
    );
    expect(first!.status, first!.text).toBe(201);
    expect(second!.status, second!.text).toBe(201);
    expect(first!.body.data.txid).not.toBe(second!.body.data.txid);
    await context.devnet.advance(1);
    for (const sent of [first!, second!]) {
      // The transfer, then the memo that tells it from the other.
      expect(await programsOf(sent.body.data.txid)).toEqual([
        '11111111111111111111111111111111',
        'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
      ]);
    }
    expect(await lamportsOf(context, to)).toBe(200_000_000n);
    expect(await lamportsOf(context, from)).toBe(LAMPORTS_PER_SOL - 200_000_000n - 2n * 5000n);
  });

  it("equal sends of which one fits: one lands, the others are refused in the gateway's words", async () => {
    const usdt = context.devnet.tokens.spl.USDT;
    const from = await fundedAddress(context, LAMPORTS_PER_SOL);
    await context.devnet.faucetSpl(usdt, from, 3_000_000n);
    const to = newKey().address;
    // Each of 0.6 SOL from 1 SOL, or of 2 USDT from 3: the node would take every one that reached it
    // before the first landed, and fail the rest on chain (or in its own words at preflight).
    const sends = (path: string, json: Record<string, unknown>) =>
      Array.from({ length: 3 }, () => api('POST', path, { json: { from, to, password: PASSWORD, ...json } }));
    const results = await Promise.all([
      ...sends('/transactions', { amount: '0.6' }),
      ...sends('/transactions/spl', { contractaddress: usdt, amount: '2' }),
    ]);
    expect(results.slice(0, 3).filter((res) => res.status === 201)).toHaveLength(1);
    expect(results.slice(3).filter((res) => res.status === 201)).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 201)) {
      expect(res.status, res.text).toBe(422);
      expect(res.body.message).toMatch(new RegExp(`^Insufficient funds: ${from} holds `));
    }
    await context.devnet.advance(1);
    expect(await lamportsOf(context, to)).toBe(600_000_000n);
    expect(await tokenUnitsOf(context, to, usdt)).toBe(2_000_000n);
  });
});

/** 422 with one field error naming `field`, and nothing of `input` quoted back. */
function expectFieldRefusal(res: ApiResponse, field: string, input: string) {
  expect(res.status, res.text).toBe(422);
  expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
  expect(res.text).not.toContain(input);
}

describe('solana input at the edge of the chain types', () => {
  /** 2^64 lamports: one more than a u64 (every lamport and token amount on Solana) holds. */
  const U64_OVERFLOW_SOL = '18446744073709.551616';

  it('refuses an amount of 2^64 base units or more on sends and builds, as a field error', async () => {
    const from = await fundedAddress(context, LAMPORTS_PER_SOL);
    const to = newKey().address;
    for (const path of ['/transactions', '/transactions/build']) {
      for (const amount of [U64_OVERFLOW_SOL, '99999999999999999999']) {
        const { res, methods } = await send(path, { from, to, amount });
        expectFieldRefusal(res, 'amount', amount);
        expect(res.body.errors[0].message).toMatch(/at most 18446744073\.709551615/);
        expect(methods).not.toContain('sendTransaction');
      }
      // The largest u64 is an amount the chain can carry: refused for the balance, not the type.
      const { res } = await send(path, { from, to, amount: '18446744073.709551615' });
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors).toEqual([]);
    }
  });

  it('refuses amounts with an exponent instead of reading "1e1" as 10 SOL', async () => {
    const from = await fundedAddress(context, LAMPORTS_PER_SOL);
    const to = newKey().address;
    for (const path of ['/transactions', '/transactions/build']) {
      for (const amount of ['1e18', '1e1', '2E-3']) {
        const { res, methods } = await send(path, { from, to, amount });
        expectFieldRefusal(res, 'amount', amount);
        expect(methods).not.toContain('sendTransaction');
      }
    }
  });

  it('refuses a transfer to the System Program, which can hold no lamports of a transfer', async () => {
    const from = await fundedAddress(context, LAMPORTS_PER_SOL);
    const systemProgram = '11111111111111111111111111111111';
    for (const path of ['/transactions', '/transactions/build']) {
      const { res, methods } = await send(path, { from, to: systemProgram, amount: '0.1' });
      expectFieldRefusal(res, 'to', systemProgram);
      expect(methods).not.toContain('sendTransaction');
    }
  });

  it('refuses a block number beyond u64 as a field error, and keeps the slot out of the message', async () => {
    const tooBig = '18446744073709551616';
    expectFieldRefusal(await api('GET', `/blocks/${tooBig}`), 'block', tooBig);
    const biggest = await api('GET', '/blocks/18446744073709551615');
    expect(biggest.status, biggest.text).toBe(404);
  });
});
