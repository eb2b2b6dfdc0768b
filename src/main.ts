import { checkNodes } from './chains/registry.ts';
import { ConfigError, loadConfig } from './config.ts';
import { closeContext, createContext } from './context.ts';
import { buildApp } from './http/app.ts';
import { startMetricsServer } from './http/metrics-server.ts';
import { createLogger } from './logger.ts';
import { startBackgroundRoles } from './roles.ts';

/** Production entry: validated config, migrated store, the HTTP API. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const ctx = await createContext(config, { logger });
  const app = config.roles.api ? await buildApp(ctx) : null;
  await app?.listen({ host: config.host, port: config.port });
  const metrics =
    config.metrics && (await startMetricsServer(ctx.metrics, config.metrics.host, config.metrics.port));
  // In the background: a node that is slow to answer must not hold up the start.
  void checkNodes(ctx.registry, ctx.logger);
  const roles = startBackgroundRoles(ctx);
  ctx.prices.start();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await app?.close();
    await metrics?.close();
    await roles.stop();
    await closeContext(ctx);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `switchyard failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
