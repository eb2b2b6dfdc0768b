// Runs every README snippet of the `sandbox` group, word for word, against a sandbox started as a user
// starts it, so the README's flows cannot drift from the code.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, PROJECT_ROOT } from '../helpers/processes.ts';
import { runSnippets } from '../helpers/readme-runner.ts';
import { readmeSnippets } from '../helpers/readme-snippets.ts';
import { startSandboxRun } from './sandbox-runs.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-readme-'));
// The webhook flow writes its receiver and the receiver's log in the project folder, as a reader's does.
const receiverFiles = ['webhook-receiver.mjs', 'webhook-receiver.log'].map((name) =>
  path.join(PROJECT_ROOT, name),
);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const file of receiverFiles) rmSync(file, { force: true });
});

const snippets = readmeSnippets('sandbox');
const blockWith = (text: string) => {
  const snippet = snippets.find((candidate) => candidate.code.includes(text));
  if (!snippet) throw new Error(`no sandbox snippet contains ${text}`);
  return snippet.line;
};

describe('the README in the sandbox', () => {
  it('runs every sandbox snippet and each API answer it prints is a success', async () => {
    expect(snippets.length).toBeGreaterThan(5);
    for (const file of receiverFiles) expect(existsSync(file), `${file} left by an earlier run`).toBe(false);
    const sandbox = await startSandboxRun(dir, {});
    try {
      const run = await runSnippets(
        snippets,
        { SANDBOX_DIR: dir, RECEIVER_PORT: String(await freePort()) },
        420_000, // about 100 s on a quiet machine: room for a loaded one
      );
      const shown = `output:\n${run.output}\nsandbox:\n${sandbox.output()}`;
      expect(run.code, shown).toBe(0);
      // Every block ran, and no answer it printed was a failure envelope.
      for (const snippet of snippets) expect(run.output, shown).toContain(`### README.md:${snippet.line}`);
      expect(run.output, shown).not.toMatch(/"ok"\s*:\s*false/);
      expect(run.output).not.toMatch(/"status"\s*:\s*5\d\d/);

      // Tron: the balances moved by the sends and by the signed broadcasts.
      expect(run.outputOf(blockWith('transactions/trc20 ')), shown).toContain('"balance":"12500000"');
      expect(run.outputOf(blockWith('send transactions/trc10/build')), shown).toContain(
        '"balance":"2500000"',
      );
      // EVM: sent ETH and USDT arrived; both builds signed as they are and from `unsigned` alike.
      expect(run.outputOf(blockWith('transactions/erc20 ')), shown).toContain(
        '"data":"0.250000000000000000"',
      );
      expect(run.outputOf(blockWith("from 'ethers'")), shown).toContain('unsigned signs the same: true');
      expect(run.outputOf(blockWith("from 'viem'")), shown).toContain('unsigned signs the same: true');
      const balances = run.outputOf(blockWith('# 12.5 + 2.5 USDT'));
      expect(balances, shown).toContain('"data":"0.350000000000000000"');
      expect(balances, shown).toContain('"data":"15.000000"');
      // Webhooks: the receiver verified the first notification, answered 500 once to the second, and the
      // retry delivered that one, under the same id.
      expect(run.outputOf(blockWith('"amount\\":\\"0.5\\"')), shown).toMatch(
        /verified [\w-]+: transfer of 500000000000000000 base units \(18 decimals\) ETH/,
      );
      const retry = run.outputOf(blockWith('/retry'));
      const failedId = retry.match(/answered 500 to ([\w-]+)/)?.[1];
      expect(failedId, shown).toBeDefined();
      expect(retry).toContain(`verified ${failedId}: transfer of 250000000000000000 base units`);
      expect(retry).not.toContain('refused');
      // Prices: every call answered from the local provider.
      expect(run.outputOf(blockWith('prices/convert')), shown).toContain('"message":"Amount converted"');
    } finally {
      await sandbox.stop('SIGINT');
    }
  }, 480_000);
});
