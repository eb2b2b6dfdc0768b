// The built gateway (`dist/src/main.js`, which the e2e project's global setup compiles) as a process of its
// own, for tests that kill it and start it again on the same database: no compile at each start.
import { loadConfig } from '../../src/config.ts';
import { closeContext, createContext } from '../../src/context.ts';
import { createLogger } from '../../src/logger.ts';
import { startDetached, waitFor } from './processes.ts';

/** A token of a new enterprise user, written to the database a gateway with `env` will open. */
export async function tokenOnDatabase(env: Record<string, string>, email: string): Promise<string> {
  const setup = await createContext(loadConfig(env), { logger: createLogger('silent') });
  try {
    const user = await setup.users.createUser(email, 'enterprise');
    return (await setup.users.createToken(user.id)).token;
  } finally {
    await closeContext(setup);
  }
}

/** Starts the gateway with `env` and waits until `baseUrl`/readyz answers; its output says why it did not. */
export async function startGatewayProcess(env: Record<string, string>, baseUrl: string, timeoutMs: number) {
  // No metrics listener unless asked: the default port may be another process's on a shared machine.
  const gateway = startDetached(process.execPath, ['dist/src/main.js'], { METRICS_PORT: 'off', ...env });
  await waitFor(
    async () => ((await fetch(`${baseUrl}/readyz`).catch(() => null))?.ok ? true : undefined),
    timeoutMs,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${gateway.output()}`);
  });
  return gateway;
}
