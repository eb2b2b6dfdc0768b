// Solana's reads through the HTTP API, on the run's shared Solana devnet: slots and blocks (a skipped slot,
// a future one), a transaction as the node writes it, the transfers it made, its receipt and fee,
// balances; the SPL mints' descriptions (Token and Token-2022, with their Metaplex metadata) and token
// balances.
import { Connection } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import {
  fundedAddress,
  LAMPORTS_PER_SOL,
  newKey,
  PASSWORD,
  solanaApiForFile,
} from '../helpers/solana-api.ts';

const context = solanaApiForFile();
const { api } = context;

/** The node's own answer to a JSON-RPC call (to compare the gateway's reads with). */
async function node(method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(context.devnet.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

describe('solana reads', () => {
  it('block number is the node slot; a block lists its signatures; skipped and future slots answer 404', async () => {
    const before = await api('GET', '/blocks/number');
    expect(before.status, before.text).toBe(200);
    const head = before.body.data.blocknumber as number;
    expect(head).toBe(await node('getSlot'));

    await context.devnet.skip(1);
    const to = newKey().address;
    const signature = await context.devnet.airdrop(to, LAMPORTS_PER_SOL);
    await context.devnet.advance(1);
    const receipt = await api('GET', `/transactions/${signature}/receipt`);
    expect(receipt.status, receipt.text).toBe(200);
    const slot = receipt.body.data.slot as number;
    expect(slot).toBeGreaterThan(head + 1);

    const block = await api('GET', `/blocks/${slot}`);
    expect(block.status, block.text).toBe(200);
    expect(block.body.data.signatures).toContain(signature);
    expect(block.body.data.parentSlot).toBeLessThan(slot - 1);

    // The slot skipped between the head we read and the transaction's block (another file may have
    // produced a block in between, so it is the first slot after the head without one).
    const between: { slot: number; status: number; message: string }[] = [];
    for (let s = head + 1; s < slot; s++) {
      const res = await api('GET', `/blocks/${s}`);
      between.push({ slot: s, status: res.status, message: res.body.message });
    }
    const skipped = between.filter((b) => b.status === 404);
    expect(skipped.length).toBeGreaterThanOrEqual(1);
    expect(skipped[0]).toEqual({
      slot: skipped[0]!.slot,
      status: 404,
      message: `Slot ${skipped[0]!.slot} was skipped: it holds no block`,
    });
    expect(skipped[0]!.slot).toBe(block.body.data.parentSlot + 1);

    const future = await api('GET', `/blocks/${slot + 100_000}`);
    expect(future.status, future.text).toBe(404);
    expect(future.body.message).toBe('Block not found');
  });

  it("passes the node's numbers on as numbers, above 2^53 too, so @solana/web3.js takes the answer", async () => {
    // The faucet holds more than 2^53 lamports: its balance is in every airdrop's preBalances.
    const signature = await context.devnet.airdrop(newKey().address, LAMPORTS_PER_SOL);
    await context.devnet.advance(1);
    const nodeText = await (
      await fetch(context.devnet.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'getTransaction',
          params: [
            signature,
            { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
          ],
        }),
      })
    ).text();
    const faucetBefore = /"preBalances":\[(\d+),/.exec(nodeText)?.[1];
    expect(BigInt(faucetBefore ?? 0)).toBeGreaterThan(2n ** 53n);

    const answer = await api('GET', `/transactions/${signature}`);
    expect(answer.status, answer.text).toBe(200);
    // The digits as the node wrote them, unquoted, in the transaction and in the decoded receipt's meta.
    expect(answer.text).toContain(`"preBalances":[${faucetBefore},`);
    const receipt = await api('GET', `/transactions/${signature}/receipt/decoded`);
    expect(receipt.text).toContain(`"preBalances":[${faucetBefore},`);

    // The gateway's `data`, handed to web3.js as its RPC result: its own response check takes it.
    const dataText = answer.text.slice(answer.text.indexOf('"data":') + '"data":'.length, -1);
    const connection = new Connection('http://gateway.invalid', {
      commitment: 'confirmed',
      fetch: async (_url, init) => {
        const { id } = JSON.parse(String(init?.body)) as { id: string };
        return new Response(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${dataText}}`, {
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    const parsed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(parsed?.meta?.preBalances[0]).toBe(Number(faucetBefore));
    expect(parsed?.transaction.signatures).toEqual([signature]);
  });

  it('a SOL send: the node transaction, its exact transfer, receipt with the fee, decoded receipt, balances', async () => {
    const from = await fundedAddress(context, 2n * LAMPORTS_PER_SOL);
    const to = newKey().address;
    const sent = await api('POST', '/transactions', {
      json: { from, to, amount: '0.123456789', password: PASSWORD },
    });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body.data.fee).toBe('0.000005');
    const { txid } = sent.body.data;
    await context.devnet.advance(1);

    const tx = await api('GET', `/transactions/${txid}`);
    expect(tx.status, tx.text).toBe(200);
    expect(tx.body.data.transaction.signatures).toEqual([txid]);
    expect(tx.body.data.meta.fee).toBe(5000);
    expect(tx.body.data.meta.err).toBeNull();
    const slot = tx.body.data.slot as number;

    const decoded = await api('GET', `/transactions/${txid}/decoded`);
    expect(decoded.status, decoded.text).toBe(200);
    expect(decoded.body.data).toEqual({
      signature: txid,
      slot,
      transfers: [
        {
          type: 'SOL',
          from,
          to,
          mint: null,
          amount: '0.123456789',
          amount_raw: '123456789',
          decimals: 9,
        },
      ],
    });

    const receipt = await api('GET', `/transactions/${txid}/receipt`);
    expect(receipt.status, receipt.text).toBe(200);
    expect(receipt.body.data).toEqual({
      signature: txid,
      slot,
      confirmationStatus: 'confirmed',
      status: 'success',
      error: null,
      fee: '0.000005',
    });

    const decodedReceipt = await api('GET', `/transactions/${txid}/receipt/decoded`);
    expect(decodedReceipt.status, decodedReceipt.text).toBe(200);
    expect(decodedReceipt.body.data.outcome).toEqual(receipt.body.data);
    const { meta } = decodedReceipt.body.data;
    expect(meta).toMatchObject({ fee: 5000, err: null });
    // Sender, receiver, System program; then the Memo program the send's memo names, unchanged.
    expect(meta.preBalances.slice(0, 3)).toEqual([2_000_000_000, 0, 1]);
    expect(meta.postBalances.slice(0, 3)).toEqual([2_000_000_000 - 123_456_789 - 5000, 123_456_789, 1]);
    expect(meta.postBalances[3]).toBe(meta.preBalances[3]);

    const sender = await api('GET', `/balances/${from}`);
    expect(sender.body.data).toEqual({ address: from, balance: '1.876538211', lamports: '1876538211' });
    const receiver = await api('GET', `/balances/${to}`);
    expect(receiver.body.data).toEqual({ address: to, balance: '0.123456789', lamports: '123456789' });
    const empty = newKey().address;
    expect((await api('GET', `/balances/${empty}`)).body.data).toEqual({
      address: empty,
      balance: '0.000000000',
      lamports: '0',
    });
  });

  it('an SPL send: the decoded transaction names the mint and the exact units', async () => {
    const usdt = context.devnet.tokens.spl.USDT;
    const from = await fundedAddress(context, LAMPORTS_PER_SOL);
    await context.devnet.faucetSpl(usdt, from, 5_000_000n);
    const to = newKey().address;
    await context.devnet.airdrop(to, LAMPORTS_PER_SOL / 10n);
    const sent = await api('POST', '/transactions/spl', {
      json: { from, to, contractaddress: usdt, amount: '1.000001', password: PASSWORD },
    });
    expect(sent.status, sent.text).toBe(201);
    await context.devnet.advance(1);
    const decoded = await api('GET', `/transactions/${sent.body.data.txid}/decoded`);
    expect(decoded.status, decoded.text).toBe(200);
    const spl = decoded.body.data.transfers.filter((t: { type: string }) => t.type === 'SPL');
    expect(spl).toEqual([
      { type: 'SPL', from, to, mint: usdt, amount: '1.000001', amount_raw: '1000001', decimals: 6 },
    ]);
  });

  it('refuses a malformed signature (422) and answers an unknown one 422', async () => {
    const bad = await api('GET', '/transactions/not-a-signature');
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'txid' })]);
    const badReceipt = await api('GET', '/transactions/0OIl/receipt');
    expect(badReceipt.status, badReceipt.text).toBe(422);
    // Base58 of the pattern's length that is not 64 bytes: the caller's mistake, named, for every read.
    for (const path of ['', '/decoded', '/receipt', '/receipt/decoded']) {
      const wrongSize = await api('GET', `/transactions/${'1'.repeat(88)}${path}`);
      expect(wrongSize.status, wrongSize.text).toBe(422);
      expect(wrongSize.body.errors).toEqual([
        { field: 'txid', message: 'The txid field must be a transaction signature (64 bytes in base58).' },
      ]);
    }
    const unknown = '1'.repeat(64);
    for (const path of ['', '/decoded', '/receipt', '/receipt/decoded']) {
      const missing = await api('GET', `/transactions/${unknown}${path}`);
      expect(missing.status, missing.text).toBe(422);
      expect(missing.body.message).toBe('transaction not found');
    }
  });
});

describe('solana token reads', () => {
  const supplyOf = async (mint: string) =>
    ((await node('getTokenSupply', [mint])) as { value: { amount: string } }).value.amount;

  it('describes both demo mints: program, decimals, supply, authorities, Metaplex name and symbol', async () => {
    const { USDT, USDT22 } = context.devnet.tokens.spl;
    const expected = [
      { mint: USDT, program: 'spl-token', name: 'Tether USD', symbol: 'USDT' },
      { mint: USDT22, program: 'spl-token-2022', name: 'Tether USD (Token-2022)', symbol: 'USDT22' },
    ];
    for (const token of expected) {
      const before = await supplyOf(token.mint);
      const res = await api('GET', `/spl/${token.mint}`);
      const after = await supplyOf(token.mint);
      expect(res.status, res.text).toBe(200);
      const supplyRaw = res.body.data.supply_raw as string;
      // Other files mint these tokens meanwhile: the answer is one the node gave around it.
      expect([before, after]).toContain(supplyRaw);
      expect(res.body.data).toEqual({
        ...token,
        decimals: 6,
        supply: formatSix(BigInt(supplyRaw)),
        supply_raw: supplyRaw,
        mintAuthority: context.devnet.faucet.address,
        freezeAuthority: null,
        uri: '',
      });
    }
  });

  it('answers 400 for an address that holds no mint (nothing there, a wallet, a token account)', async () => {
    const holder = newKey().address;
    await context.devnet.faucetSpl(context.devnet.tokens.spl.USDT, holder, 1n);
    const accounts = (await node('getTokenAccountsByOwner', [
      holder,
      { mint: context.devnet.tokens.spl.USDT },
      { encoding: 'base64' },
    ])) as { value: { pubkey: string }[] };
    const tokenAccount = accounts.value[0]!.pubkey;
    for (const notMint of [newKey().address, context.devnet.faucet.address, tokenAccount]) {
      const res = await api('GET', `/spl/${notMint}`);
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toBe(`${notMint} is not an SPL token mint`);
      const balance = await api('GET', `/balances/${holder}/spl/${notMint}`);
      expect(balance.status, balance.text).toBe(400);
    }
  });

  it("an owner's token balance under each program, and zero without a token account", async () => {
    const owner = newKey().address;
    const { USDT, USDT22 } = context.devnet.tokens.spl;
    await context.devnet.faucetSpl(USDT, owner, 1_234_567n);
    await context.devnet.faucetSpl(USDT22, owner, 9_000_001n);
    await context.devnet.advance(1);
    expect((await api('GET', `/balances/${owner}/spl/${USDT}`)).body.data).toEqual({
      address: owner,
      mint: USDT,
      decimals: 6,
      balance: '1.234567',
      balance_raw: '1234567',
      tokenAccounts: 1,
    });
    expect((await api('GET', `/balances/${owner}/spl/${USDT22}`)).body.data).toEqual({
      address: owner,
      mint: USDT22,
      decimals: 6,
      balance: '9.000001',
      balance_raw: '9000001',
      tokenAccounts: 1,
    });
    const none = newKey().address;
    expect((await api('GET', `/balances/${none}/spl/${USDT22}`)).body.data).toEqual({
      address: none,
      mint: USDT22,
      decimals: 6,
      balance: '0.000000',
      balance_raw: '0',
      tokenAccounts: 0,
    });
  });
});

/** A 6-decimal token's units with all six decimals, as every amount reads. */
function formatSix(units: bigint): string {
  return `${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, '0')}`;
}
