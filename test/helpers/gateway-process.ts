// The gateway run from source as a process of its own (`--import tsx src/main.ts`), for tests that kill
// it and start it again on the same database.
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
  const gateway = startDetached(process.execPath, ['--import', 'tsx', 'src/main.ts'], env);
  await waitFor(
    async () => ((await fetch(`${baseUrl}/readyz`).catch(() => null))?.ok ? true : undefined),
    timeoutMs,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${gateway.output()}`);
  });
  return gateway;
}
