// Solana sends that open accounts, and the webhooks that follow them, through the HTTP API with the
// watcher and deliverer running (as test/conformance/scenarios.ts starts them): a Token-2022 send with a
// stored key that opens the receiver's token account, notified as SPL with its mint and exact units;
// and the watcher moving past skipped slots between two transfers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/processes.ts';
import {
  fundedAddress,
  LAMPORTS_PER_SOL,
  lamportsOf,
  newKey,
  PASSWORD,
  solanaApiForFile,
  tokenUnitsOf,
} from '../helpers/solana-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/** A Token-2022 account with the ImmutableOwner extension (170 bytes): (170 + 128) × 6,960 lamports. */
const TOKEN_2022_ACCOUNT_RENT = 2_074_080n;

// Hooks run in order and unwind in reverse: the receiver is up before the gateway and closes after it.
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const context = solanaApiForFile({ roles: true });
const { api } = context;

async function subscribe(path: string, body: Record<string, unknown>) {
  const res = await api('POST', '/webhooks', { json: { url: `${receiver.url}${path}`, ...body } });
  expect(res.status, res.text).toBe(201);
}

async function deliveries(path: string, count: number) {
  const hits = await waitFor(() => {
    const found = receiver.received.filter((r) => r.path === path);
    return found.length >= count ? found : undefined;
  }, 20_000);
  return hits.map((hit) => JSON.parse(hit.body) as Record<string, unknown>);
}

describe('solana sends and webhooks', () => {
  it('a Token-2022 send with a stored key opens the receiver token account; the SPL webhook names the mint', async () => {
    const usdt22 = context.devnet.tokens.spl.USDT22;
    const from = await fundedAddress(context, LAMPORTS_PER_SOL);
    await context.devnet.faucetSpl(usdt22, from, 10_000_000n);
    const to = newKey().address;
    await subscribe('/spl22', { to, type: 'SPL' });
    await context.devnet.advance(1);
    const before = await lamportsOf(context, from);

    const sent = await api('POST', '/transactions/spl', {
      json: { from, to, contractaddress: usdt22, amount: '2.718281', password: PASSWORD },
    });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body.data.fee).toBe('0.000005');
    const { txid } = sent.body.data;
    await context.devnet.advance(1);

    expect(await tokenUnitsOf(context, to, usdt22)).toBe(2_718_281n);
    expect(await tokenUnitsOf(context, from, usdt22)).toBe(10_000_000n - 2_718_281n);
    const opened = await api('GET', `/balances/${to}/spl/${usdt22}`);
    expect(opened.body.data.tokenAccounts).toBe(1);
    // The sender paid the fee and the rent of the receiver's new Token-2022 account, nothing else.
    expect(await lamportsOf(context, from)).toBe(before - 5000n - TOKEN_2022_ACCOUNT_RENT);
    expect(await lamportsOf(context, to)).toBe(0n);

    const [payload] = await deliveries('/spl22', 1);
    expect(payload).toMatchObject({
      event: 'transfer',
      blockchain: 'solana',
      network: 'mainnet',
      type: 'SPL',
      txid,
      from,
      to,
      contractaddress: usdt22,
      amount_raw: '2718281',
      decimals: 6,
    });

    const history = await api('GET', '/transactions?page=1');
    expect(history.status, history.text).toBe(200);
    const row = history.body.data.find((r: { txid: string | null }) => r.txid === txid);
    expect(row).toMatchObject({ type: 'SPL', from, to, contractaddress: usdt22 });
  });

  it('the watcher moves past skipped slots: both transfers around three skipped slots are notified', async () => {
    const to = newKey().address;
    await subscribe('/skips', { to });
    const first = await context.devnet.airdrop(to, 1_000_000_001n);
    await context.devnet.skip(3);
    const second = await context.devnet.airdrop(to, 2_000_000_002n);
    await context.devnet.advance(1);

    const payloads = await deliveries('/skips', 2);
    expect(payloads.map((p) => [p['txid'], p['amount_raw'], p['type'], p['to']])).toEqual([
      [first, '1000000001', 'SOL', to],
      [second, '2000000002', 'SOL', to],
    ]);
    const [one, two] = payloads.map((p) => Number(p['blocknumber']));
    // The three skipped slots lie between them (another file's block may too, never in their place).
    const skipped: number[] = [];
    for (let slot = one! + 1; slot < two!; slot++) {
      const res = await api('GET', `/blocks/${slot}`);
      if (res.status === 404) {
        expect(res.body.message).toBe(`Slot ${slot} was skipped: it holds no block`);
        skipped.push(slot);
      } else expect(res.status, res.text).toBe(200);
    }
    expect(skipped.length).toBeGreaterThanOrEqual(3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter((r) => r.path === '/skips')).toHaveLength(2);
  });
});
