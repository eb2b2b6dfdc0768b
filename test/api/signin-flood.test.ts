import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kdfScheduler } from '../../src/custody/kdf-scheduler.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type SharedEvmDevnet, sharedEvmDevnet } from '../helpers/shared-devnets.ts';
import { FULL_KDF, PASSWORD, SLOW } from '../helpers/wallet-passwords.ts';

// A flood of anonymous sign-ins (each an unknown email, each a 64 MiB scrypt) must not hold up a paying
// user's key: the per-address budgets refuse most of it at once, the rest shares one bounded class of the
// KDF scheduler, and a queued sign-in whose client has gone is dropped before it derives. Everything runs
// at the production cost (sign-in scrypt N = 2^16, the send's sealed key N = 2^17) and with the default
// settings: the 2 s the user's send must stay under is measured against real derivations. On SQLite only
// (the vitest config leaves it out of Postgres): no SQL of its own.

const FLOOD = 150;
/** The flood's client addresses on loopback, 30 sign-ins each. */
const FLOOD_CLIENTS = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'];
/** The default SIGN_IN_RATE_PER_CLIENT (10/60): a burst of 10 per address. */
const BURST = 10;
/** The default KDF_MAX_QUEUED_ANONYMOUS. */
const ANONYMOUS_QUEUE = 8;

interface Answer {
  status: number;
  message: string;
}

const agents = new Map<string, Agent>();
/** Loopback clients, one per local address, so the gateway sees each as a client address of its own. */
function agentFor(localAddress: string): Agent {
  let agent = agents.get(localAddress);
  if (agent === undefined) {
    agent = new Agent({ localAddress });
    agents.set(localAddress, agent);
  }
  return agent;
}

let gw: TestGateway;
let devnet: SharedEvmDevnet;

async function signIn(from: string, signal?: AbortSignal): Promise<Answer> {
  const res = await request(`${gw.baseUrl}/api/session`, {
    method: 'POST',
    dispatcher: agentFor(from),
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `nobody-${randomBytes(6).toString('hex')}@example.com`,
      password: 'guess',
    }),
    ...(signal === undefined ? {} : { signal }),
    headersTimeout: 60_000,
  });
  const body = (await res.body.json()) as { message: string };
  return { status: res.statusCode, message: body.message };
}

/** A metric's value as the gateway's /metrics would show it (the label set given, or the one without labels). */
async function metric(name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const values = (await gw.ctx.metrics.getSingleMetric(name)?.get())?.values ?? [];
  return values.find((value) => Object.entries(labels).every(([key, want]) => value.labels[key] === want))
    ?.value;
}

async function until(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(kdfScheduler.load())}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('a flood of anonymous sign-ins', { timeout: SLOW }, () => {
  let token: string;
  let from: string;
  let to: string;

  beforeAll(async () => {
    devnet = await sharedEvmDevnet('ethereum');
    gw = await startGateway({ env: { ETHEREUM_MAINNET_URLS: devnet.url, NODE_RETRIES: '1', ...FULL_KDF } });
    ({ token } = await gw.userToken(undefined, 'enterprise'));
    const address = async (json: object) => {
      const res = await gw.request('POST', '/api/v2/ethereum/addresses', { token, json });
      expect(res.status, res.text).toBe(201);
      return res.body.data[0].address as string;
    };
    from = await address({ password: PASSWORD });
    to = await address({});
    await devnet.faucetNative(from, parseEther('1'));
  }, SLOW);
  afterAll(async () => {
    await Promise.all([...agents.values()].map((agent) => agent.close()));
    await gw?.close();
  });

  const send = async () => {
    const started = performance.now();
    const res = await gw.request('POST', '/api/v2/ethereum/transactions', {
      token,
      json: { from, to, amount: '0.001', password: PASSWORD },
    });
    expect(res.status, res.text).toBe(201);
    return performance.now() - started;
  };

  it('drops the derivations of queued sign-ins whose client has gone', async () => {
    const before = kdfScheduler.load();
    const clients = Array.from({ length: ANONYMOUS_QUEUE }, () => new AbortController());
    const leaving = clients.map((client) => signIn('127.0.0.7', client.signal).catch(() => null));
    // One derives, the others wait for the anonymous slot.
    await until(() => kdfScheduler.load().anonymousWaiting === ANONYMOUS_QUEUE - 1, 'the sign-ins to queue');
    for (const client of clients) client.abort();
    await Promise.all(leaving);
    await until(() => kdfScheduler.load().anonymousRunning === 0, 'the running sign-in to end');
    const after = kdfScheduler.load();
    expect(after.dropped - before.dropped).toBe(ANONYMOUS_QUEUE - 1);
    // Only the derivation already running when its client left was made.
    expect(after.started - before.started).toBe(1);
    expect(after.anonymousWaiting).toBe(0);
    expect(await metric('switchyard_kdf_dropped_total')).toBe(after.dropped);
    // A dropped sign-in is no fault of the gateway's: nothing is logged as a warning or an error.
    expect(gw.logLines.filter((line) => (JSON.parse(line) as { level: number }).level >= 40)).toEqual([]);
  });

  it("completes a paying user's password send within 2 s while 150 sign-ins are in flight", async () => {
    // The slower of two sends alone: what this machine, loaded as it is now, takes for one.
    const soloMs = Math.max(await send(), await send());
    const before = kdfScheduler.load();
    const started = performance.now();
    let answered = 0;
    const flood = Array.from({ length: FLOOD }, (_, i) =>
      signIn(FLOOD_CLIENTS[i % FLOOD_CLIENTS.length]!).then((answer) => {
        answered++;
        return { ...answer, ms: performance.now() - started };
      }),
    );
    // Measure once the anonymous class is full: one deriving, the rest of its bounded queue waiting.
    await until(() => kdfScheduler.load().anonymousWaiting >= ANONYMOUS_QUEUE - 1, 'the flood to queue');
    const floodedMs = await send();
    const pending = FLOOD - answered;
    const answers = await Promise.all(flood);
    const after = kdfScheduler.load();

    const counted = (prefix: string) => answers.filter((a) => a.message.startsWith(prefix)).length;
    const overBudget = counted('Too many sign-ins from this address');
    const queueFull = counted('Too many key operations in progress');
    const refusedPassword = answers.filter((a) => a.status === 401).length;
    const slowest = Math.max(...answers.map((a) => a.ms));
    const budgetMs = 2_000 * Math.max(1, soloMs / 900);
    console.log(
      `send alone ${soloMs.toFixed(0)} ms, during ${FLOOD} sign-ins ${floodedMs.toFixed(0)} ms ` +
        `(bound ${budgetMs.toFixed(0)} ms); sign-ins: ` +
        `${overBudget} over the address budget, ${queueFull} past the anonymous queue, ${refusedPassword} ` +
        `derived and refused (401), ${pending} still waiting when the send was done, the last answered ` +
        `after ${slowest.toFixed(0)} ms`,
    );
    // The flood was still being served when the send finished.
    expect(pending).toBeGreaterThan(0);
    // The paying user's send, with its N = 2^17 key, beside a flood deriving at the production cost: within
    // 2 s on a machine where the send alone takes 0.9 s (the figure the 2 s goal was set against). On a
    // machine busier than that (this one is shared: the send alone has measured up to 1.5 s) the bound
    // grows in proportion. Without the anonymous share the send waited behind the whole flood (one owner per
    // email, served in turn): tens of seconds.
    expect(floodedMs).toBeLessThan(budgetMs);
    // Every sign-in is answered, and each is a wrong password or a 429: none waits on the flood.
    expect(answers.every((a) => a.status === 401 || a.status === 429)).toBe(true);
    expect(overBudget + queueFull + refusedPassword).toBe(FLOOD);
    expect(await metric('switchyard_sign_in_limited_total', { entry: 'sign-in' })).toBe(overBudget);
    expect(await metric('switchyard_kdf_derivations', { class: 'anonymous', state: 'waiting' })).toBe(0);
    // Past each address's burst (refilled one per 6 s while the flood runs), the budget refuses at once.
    expect(overBudget).toBeGreaterThanOrEqual(FLOOD - FLOOD_CLIENTS.length * (BURST + 2));
    // Anonymous derivations: one per 401 and none other (the user's send made one of its own).
    expect(after.started - before.started - 1).toBe(refusedPassword);
    expect(refusedPassword).toBeLessThanOrEqual(FLOOD_CLIENTS.length * (BURST + 2));
  });
});
