import { readSandboxFacts, sandboxDir } from '../sandbox/environment.ts';

/** How long `config check` waits for the sandbox's API to answer before it says the sandbox is not running. */
const ANSWER_TIMEOUT_MS = 1000;

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) })).ok;
  } catch {
    return false;
  }
}

/**
 * What `config check` says of the sandbox it is run on (SANDBOX_DIR): its folder, whether it runs and
 * where, and its devnets' chains, as the sandbox.json it wrote at its start tells.
 */
export async function sandboxSummary(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const dir = sandboxDir(env);
  const facts = readSandboxFacts(dir);
  if (facts === undefined) return [`sandbox: ${dir}, never started (npm run sandbox starts it)`];
  const running = await answers(`${facts.baseUrl}/healthz`);
  return [
    `sandbox: ${dir}, ${running ? `running at ${facts.baseUrl}` : `not running (it last ran at ${facts.baseUrl})`}`,
    `sandbox devnets: ${facts.chains.length > 0 ? facts.chains.join(', ') : 'none'}`,
  ];
}
