import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { formatEther, getAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../devnets/evm/index.ts';
import { servedChains } from '../../src/chains/families.ts';
import { NETWORKS } from '../../src/chains/types.ts';
import { loadConfig } from '../../src/config.ts';
import { closeContext, createContext } from '../../src/context.ts';
import { KEY_OUTCOME_UNKNOWN } from '../../src/http/idempotency.ts';
import { createLogger } from '../../src/logger.ts';
import { send, TEST_KDF_ENV } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';
import { seededRandom } from '../helpers/seeded-random.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { type PrivatePostgres, startPrivatePostgres } from './private-postgres.ts';
import { type Role, RoleProcess } from './role-processes.ts';

// Gateway processes from the build on one Postgres of this file's own, every role twice, and a run of
// transfers sent through the API with webhooks on their receivers. Meanwhile a chaos loop kills a random
// role's process with SIGKILL at random moments and starts it again, and restarts Postgres the hard way
// once. At the end the chain is the truth: no transfer on it twice, every transfer on it notified, nothing
// notified that is not on it.

const FULL = process.env['FAULT_FULL'] === '1';
const TRANSFERS = FULL ? 1_000 : 120;
const SENDERS = FULL ? 20 : 8;
const RECEIVERS = 4;
/** How long the transfers are spread over, and the chaos lasts: long enough to fault every role meanwhile. */
const RUN_MS = FULL ? 120_000 : 20_000;
/** Mean pause between one sender's transfers. */
const PACE_MS = RUN_MS / (TRANSFERS / SENDERS);

let postgres: PrivatePostgres;
let devnet: EvmDevnet;
let receiver: WebhookReceiver;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-fault-'));
const processes: RoleProcess[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The anvil for Ethereum mainnet (its new blocks announced by WebSocket); a closed port for the rest. */
function nodeUrls(): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const chain of servedChains()) {
    for (const network of NETWORKS) {
      urls[`${chain.toUpperCase()}_${network.toUpperCase()}_URLS`] = 'http://127.0.0.1:1';
    }
  }
  return {
    ...urls,
    ETHEREUM_MAINNET_URLS: devnet.url,
    ETHEREUM_MAINNET_WS_URL: devnet.wsUrl,
    REQUIRED_CHAINS: 'ethereum:mainnet',
  };
}

/** Amounts tell the transfers apart on the chain: transfer i moves (i + 1) microether. */
const weiOf = (index: number) => BigInt(index + 1) * 10n ** 12n;
const indexOf = (wei: bigint) => Number(wei / 10n ** 12n) - 1;

beforeAll(async () => {
  [postgres, devnet, receiver] = await Promise.all([
    startPrivatePostgres(),
    startEvmDevnet({ chain: 'ethereum' }),
    startWebhookReceiver(),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop().catch(() => undefined)));
  await receiver?.close();
  await devnet?.close();
  await postgres?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe(`kill -9 of every role and a Postgres restart during ${TRANSFERS} transfers`, () => {
  it('sends no transfer twice, notifies every transfer on the chain once, and nothing else', async () => {
    const seed = Number(process.env['FAULT_SEED'] ?? Date.now() % 1_000_000);
    console.log(`fault seed ${seed} (FAULT_SEED=${seed} repeats this run)`);
    const random = seededRandom(seed);
    const env: Record<string, string> = {
      ...nodeUrls(),
      DATABASE_URL: postgres.url,
      MASTER_KEY: randomBytes(32).toString('base64'),
      DATA_DIR: dataDir,
      PRICE_PROVIDERS: 'local',
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      // The chains this test does not run answer no node: one attempt each, so a stop is not held by retries.
      NODE_RETRIES: '1',
      LOG_LEVEL: 'warn',
      // Keys are sealed at the test cost: these runs are about crashes, not the key derivation.
      ...TEST_KDF_ENV,
    };
    // The user and token, made on the database the processes will share (this also migrates it).
    const setup = await createContext(loadConfig(env), { logger: createLogger('silent') });
    const user = await setup.users.createUser('faults@example.com', 'enterprise');
    const { token } = await setup.users.createToken(user.id);
    await closeContext(setup);

    const roles: Role[] = ['api', 'api', 'watcher', 'watcher', 'deliverer', 'deliverer'];
    for (const [i, role] of roles.entries())
      processes.push(await RoleProcess.create(`${role}-${i}`, role, env));
    for (const p of processes) p.start();
    const output = () => processes.map((p) => p.output()).join('\n');
    await Promise.all(processes.map((p) => p.ready())).catch((error: Error) => {
      throw new Error(`${error.message}\n${output()}`);
    });
    const apis = processes.filter((p) => p.role === 'api');

    /** Every answer the API gave during the run, by status. */
    const statuses = new Map<number, number>();
    let refusedConnections = 0;
    const call = async (method: string, route: string, json?: unknown, key?: string) => {
      for (;;) {
        const api = apis[Math.floor(random() * apis.length)]!;
        const answer = await send(api.apiUrl, method, `/api/v2/ethereum${route}`, {
          token,
          ...(json === undefined ? {} : { json }),
          ...(key === undefined ? {} : { headers: { 'Idempotency-Key': key } }),
        }).catch(() => null); // a killed instance: try again, maybe on the other one
        if (answer === null) refusedConnections++;
        else statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        // 409 in progress: the key's first request is still running (or its instance died and its lease has
        // to lapse, or its send is being settled from the chain). 409 outcome unknown is final: the request
        // died after it started sending and before its transaction was signed.
        const inProgress = answer?.status === 409 && answer.body.message !== KEY_OUTCOME_UNKNOWN;
        if (answer === null || answer.status >= 500 || inProgress || answer.status === 429) {
          await sleep(200);
          continue;
        }
        return answer;
      }
    };

    const receivers = Array.from({ length: RECEIVERS }, () =>
      getAddress(`0x${randomBytes(20).toString('hex')}`),
    );
    const secrets: string[] = [];
    for (const to of receivers) {
      const created = await call('POST', '/webhooks', { url: `${receiver.url}/hook`, to }, randomUUID());
      expect(created.status, created.text).toBe(201);
      secrets.push((created.body.data as { secret: string }).secret);
    }
    const senders: { address: string; privateKey: string }[] = [];
    for (let i = 0; i < SENDERS; i++) {
      const created = await call('POST', '/addresses', {}, randomUUID());
      expect(created.status, created.text).toBe(201);
      const [address] = created.body.data as { address: string; privateKey: string }[];
      senders.push(address!);
      await devnet.faucetNative(address!.address, 10n ** 19n);
    }
    const firstBlock = Number(await devnet.rpc<Hex>('eth_blockNumber'));

    // The load: each sender sends its share in turn, every transfer under an Idempotency-Key of its own,
    // retried with the same key until the gateway gives a final answer.
    const answered = new Map<number, { status: number; txid: string | null; message: string }>();
    const load = Promise.all(
      senders.map(async (sender, s) => {
        for (let i = s; i < TRANSFERS; i += SENDERS) {
          const key = randomUUID();
          const body = {
            from: sender.address,
            to: receivers[i % RECEIVERS],
            amount: formatEther(weiOf(i)),
            privatekey: sender.privateKey,
          };
          const answer = await call('POST', '/transactions', body, key);
          answered.set(i, {
            status: answer.status,
            txid: answer.status === 201 ? (answer.body.data.txid as string) : null,
            message: answer.text,
          });
          await sleep(random() * 2 * PACE_MS);
        }
      }),
    );

    // The chaos: one fault at a time, each role's process and Postgres in a shuffled turn, in whole turns for
    // RUN_MS (or until the load ends). Not until the load ends: a request cut by a kill holds its key for the
    // 30 s lease and stalls its sender, so the load would last as long as the chaos and the chaos as long as
    // the load.
    let loadDone = false;
    void load.finally(() => {
      loadDone = true;
    });
    /** Each fault, all begun while transfers were being sent. */
    const faults: { what: string; target: string }[] = [];
    const targets = [...new Set<string>(roles), 'postgres'];
    const chaosEnds = Date.now() + RUN_MS;
    const chaos = (async () => {
      while (!loadDone && Date.now() < chaosEnds) {
        const turn = [...targets].sort(() => random() - 0.5);
        for (const target of turn) {
          await sleep(300 + random() * 1_200);
          if (loadDone) return;
          if (target === 'postgres') {
            faults.push({ what: 'postgres restart', target });
            await postgres.crash();
            await sleep(500 + random() * 1_500);
            await postgres.start();
            continue;
          }
          const candidates = processes.filter((p) => p.role === target && p.running);
          const victim = candidates[Math.floor(random() * candidates.length)];
          if (victim === undefined) continue;
          faults.push({ what: `kill ${victim.name}`, target });
          await victim.kill();
          await sleep(200 + random() * 1_500);
          victim.start();
        }
      }
    })();
    await load;
    await chaos;
    console.log(`faults: ${faults.map((f) => f.what).join(', ')}`);
    // Every role's process was killed, and Postgres restarted, while transfers were being sent.
    expect(new Set(faults.map((f) => f.target))).toEqual(new Set(targets));
    // Every process back up: each recovers on its own after its kill and after Postgres's restart.
    for (const p of processes) if (!p.running) p.start();
    await Promise.all(processes.map((p) => p.ready(60_000))).catch((error: Error) => {
      throw new Error(`${error.message}\n${output()}`);
    });

    // Every send answered 201 gets mined: one whose process died after recording its signed transaction
    // and before the node had it is broadcast again by the reconciler (every 30 s), and the sends after it
    // from that address wait in the node's queue until then.
    const answeredTxids = [...answered.values()].flatMap((a) => (a.txid === null ? [] : [a.txid]));
    await waitFor(async () => {
      for (const txid of answeredTxids) {
        if ((await devnet.rpc('eth_getTransactionReceipt', [txid])) === null) return undefined;
      }
      return true;
      // Several reconciler passes (30 s apart), each after restarts and Postgres coming back: on a busy
      // machine the first passes can find the database or the node still away.
    }, 180_000).catch((error: Error) => {
      throw new Error(`${error.message}: a send answered 201 was not mined\n${output()}`);
    });

    // The chain's truth: every transaction to a receiver, read straight from the node.
    const onChain = new Map<string, number>();
    const head = Number(await devnet.rpc<Hex>('eth_blockNumber'));
    for (let n = firstBlock; n <= head; n++) {
      const block = await devnet.rpc<{ transactions: { hash: string; to: string | null; value: Hex }[] }>(
        'eth_getBlockByNumber',
        [`0x${n.toString(16)}`, true],
      );
      for (const tx of block.transactions) {
        if (tx.to !== null && receivers.includes(getAddress(tx.to)))
          onChain.set(tx.hash, indexOf(BigInt(tx.value)));
      }
    }

    // No transfer sent twice, and each final answer tells the truth.
    const timesSent = new Map<number, number>();
    for (const index of onChain.values()) timesSent.set(index, (timesSent.get(index) ?? 0) + 1);
    expect([...timesSent].filter(([, times]) => times > 1)).toEqual([]);
    expect(answered.size).toBe(TRANSFERS);
    // Sent (or answered from the history after a restart, settled from the chain when the request died
    // between recording its intent and the node's answer), or, for a request that died after it started
    // sending and before its transaction was signed, "outcome unknown": then nothing reached the chain.
    const unknown = [...answered].filter(([, a]) => a.status === 409);
    const refused = [...answered].filter(([, a]) => a.status !== 201 && a.status !== 409);
    expect(refused).toEqual([]);
    for (const [index, answer] of answered) {
      if (answer.txid !== null)
        expect(onChain.get(answer.txid), `transfer ${index} answered ${answer.txid}`).toBe(index);
    }
    for (const [index] of unknown) expect(timesSent.get(index), `transfer ${index} unknown`).toBeUndefined();

    // The history is complete: every transfer on the chain has its row, settled as the 201 it was.
    const history = await createContext(loadConfig(env), { logger: createLogger('silent') });
    try {
      const rowsOnChain = async () => {
        const rows = await history.store.db
          .selectFrom('transactions')
          .select(['txid', 'http_status'])
          .where('blockchain', '=', 'ethereum')
          .execute();
        return rows.filter((r) => r.txid !== null && onChain.has(r.txid.toLowerCase()));
      };
      const unsettled = async () => {
        const settled = new Set(
          (await rowsOnChain()).filter((r) => r.http_status === 201).map((r) => r.txid),
        );
        return [...onChain.keys()].filter((txid) => !settled.has(txid));
      };
      // The settler looks every 5 s; a row it has not reached yet is given a minute.
      await waitFor(async () => ((await unsettled()).length === 0 ? true : undefined), 60_000).catch(
        async () => {
          throw new Error(`transfers on chain without a settled history row: ${await unsettled()}`);
        },
      );
      // One row per transfer on the chain: none twice.
      expect((await rowsOnChain()).length).toBe(onChain.size);
    } finally {
      await closeContext(history);
    }

    // Every transfer on the chain notified, under one webhook-id each, signed; nothing else notified.
    const notified = () => {
      const ids = new Map<string, Set<string>>();
      for (const hit of receiver.received) {
        const body = JSON.parse(hit.body) as { id: string; txid: string; event: string };
        expect(body.event).toBe('transfer');
        expect(hit.headers['webhook-id']).toBe(body.id);
        ids.set(body.txid, (ids.get(body.txid) ?? new Set()).add(body.id));
      }
      return ids;
    };
    await waitFor(() => (notified().size >= onChain.size ? true : undefined), 90_000).catch(
      (error: Error) => {
        const missing = [...onChain.keys()].filter((txid) => !notified().has(txid));
        throw new Error(`${error.message}: ${missing.length} transfers not notified\n${output()}`);
      },
    );
    await sleep(2_000); // a little longer: nothing more may come
    const ids = notified();
    expect([...ids.keys()].sort()).toEqual([...onChain.keys()].sort());
    for (const [txid, each] of ids) expect(each.size, txid).toBe(1);
    for (const hit of receiver.received) {
      const verified = secrets.some((secret) => {
        try {
          new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      });
      expect(verified, 'signed with its webhook secret').toBe(true);
    }

    // No process ended on its own, but one starting while Postgres was down (it says so in one line, and its
    // supervisor, here the test and in production compose's restart policy, starts it again).
    const selfExits = processes.flatMap((p) => p.selfExits.map((tail) => `${p.name}: ${tail}`));
    for (const exit of selfExits) {
      const lastLine = exit.split('\n').at(-1);
      expect(lastLine, exit).toMatch(/failed to start: (cannot reach the database|database migration)/);
    }

    // Nothing failed inside the gateway: faults answer 503 (try again), never 500.
    expect(statuses.get(500) ?? 0, `answers by status: ${JSON.stringify([...statuses])}`).toBe(0);
    const deliveredTwice = receiver.received.length - onChain.size;
    console.log(
      `${TRANSFERS} transfers, ${faults.length} faults, ${receiver.received.length} deliveries (${deliveredTwice} repeated under the same id), answers by status ${JSON.stringify([...statuses])}, ${refusedConnections} requests cut or refused by a killed instance, ${selfExits.length} restarts after a start without the database, ${unknown.length} outcomes unknown`,
    );
  }, 900_000);
});
