import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kdfScheduler } from '../../src/custody/kdf-scheduler.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { client, FULL_KDF, NO_NODES, PASSWORD, SLOW, WRONG } from '../helpers/wallet-passwords.ts';

// One user's flood of wrong-password key work must not hold up another user's export: the KDF scheduler
// serves users in turn. It runs on one database only (the vitest config leaves it out of Postgres): no
// SQL of its own, half a minute of real scrypt.

describe('fair key derivation', { timeout: SLOW }, () => {
  let gw: TestGateway;
  const current = () => gw;

  beforeAll(async () => {
    // Throttling would cut the flood short: here it must keep the KDF scheduler busy.
    gw = await startGateway({
      env: {
        ...NO_NODES,
        ...FULL_KDF,
        PASSWORD_MAX_FAILURES_PER_ADDRESS: '1000',
        PASSWORD_MAX_FAILURES_PER_USER: '1000',
      },
    });
  });
  afterAll(() => gw?.close());

  it("serves one user's export next while another floods 20 wrong-password exports", async () => {
    const flooder = client(current, (await gw.userToken()).token);
    const victim = client(current, (await gw.userToken()).token);
    const floodAddress = await flooder.newTronAddress();
    const address = await victim.newTronAddress();

    const solo: number[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await victim.exportTron(address, PASSWORD);
      expect(res.status, res.text).toBe(200);
      solo.push(res.ms);
    }
    const soloMs = Math.max(...solo);

    const flood = Array.from({ length: 20 }, () => flooder.exportTron(floodAddress, WRONG));
    // Start measuring once the flood is queued behind the scheduler's slots.
    const queuedBy = Date.now() + 10_000;
    while (kdfScheduler.load().waiting < 14 && Date.now() < queuedBy) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(kdfScheduler.load().waiting).toBeGreaterThanOrEqual(14);

    const loaded = await victim.exportTron(address, PASSWORD);
    expect(loaded.status, loaded.text).toBe(200);
    const stillQueued = kdfScheduler.load().waiting;

    const answers = await Promise.all(flood);
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(401));
    const floodMs = Math.max(...answers.map((r) => r.ms));
    // What one derivation took while the flood ran (21 jobs, two at a time): the machine's load included.
    const derivationMs = floodMs / (21 / 2);
    console.log(
      `export alone ${soloMs.toFixed(0)} ms, beside a 20-job flood ${loaded.ms.toFixed(0)} ms` +
        ` (x${(loaded.ms / soloMs).toFixed(2)}); one derivation under the flood ${derivationMs.toFixed(0)} ms,` +
        ` the whole flood ${floodMs.toFixed(0)} ms`,
    );
    // About two derivations (one slot to free, then its own), where first come, first served would have
    // put it behind the whole flood (some 9 derivations, 15 times the solo export). The margins absorb a
    // machine loaded by other work.
    expect(loaded.ms).toBeLessThan(derivationMs * 4);
    expect(loaded.ms).toBeLessThan(soloMs * 6);
    // The victim's export finished while much of the flood still waited.
    expect(stillQueued).toBeGreaterThan(5);
  });
});
