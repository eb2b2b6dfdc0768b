import { chainFamilies, familySettings } from './chains/families.ts';
import { checkNodes } from './chains/network-check.ts';
import { EXIT_CONFIG } from './config/error.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createContext } from './context.ts';
import { describeError } from './describe-error.ts';
import { buildApp } from './http/app.ts';
import { listenOrExplain } from './http/listen-errors.ts';
import { startMetricsServer } from './http/metrics-server.ts';
import { createLogger } from './logger.ts';
import { startBackgroundRoles } from './roles.ts';
import { exitIfStillStoppingAfter, stopGateway } from './shutdown.ts';

/** The most a stop may take, well inside `docker stop`'s 10 s before its SIGKILL. */
const STOP_DEADLINE_MS = 4_500;

/** Production entry: validated config, migrated store, the HTTP API. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env, familySettings());
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(EXIT_CONFIG);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  const ctx = await createContext(config, { logger });
  const app = config.roles.api ? await buildApp(ctx) : null;
  if (app) {
    const api = { what: 'the API', host: config.host, port: config.port, settings: 'PORT (or HOST)' };
    await listenOrExplain(api, () => app.listen({ host: config.host, port: config.port }));
  }
  const { metrics: metricsAt } = config;
  const metrics =
    metricsAt &&
    (await listenOrExplain(
      {
        what: 'metrics',
        ...metricsAt,
        settings: 'METRICS_PORT (or METRICS_HOST; METRICS_PORT=off serves none)',
      },
      () => startMetricsServer(ctx.metrics, metricsAt.host, metricsAt.port),
    ));
  // In the background: a node that is slow to answer must not hold up the start.
  void checkNodes(ctx.registry, chainFamilies(), config, ctx.logger, ctx.troubleLog);
  const roles = startBackgroundRoles(ctx);
  ctx.prices.start();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    exitIfStillStoppingAfter(STOP_DEADLINE_MS, (message) => logger.error(message));
    try {
      await stopGateway({ ctx, app, metrics: metrics || null, roles });
    } catch (error) {
      logger.error({ err: error }, 'the stop did not finish cleanly');
      process.exit(1);
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  // One line that says what to do; a configuration found bad late (e.g. by a module) exits as one found early.
  process.stderr.write(`switchyard failed to start: ${describeError(error)}\n`);
  process.exit(error instanceof ConfigError ? EXIT_CONFIG : 1);
});
