import { randomBytes } from 'node:crypto';
import { createWriteStream, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../app-context.ts';
import { chainFamilies, familySettings } from '../chains/families.ts';
import { FaucetDirectory } from '../chains/faucets.ts';
import { checkNodes } from '../chains/network-check.ts';
import type { DevnetSettings, DevnetTokens, RunningDevnet } from '../chains/sandbox-devnet.ts';
import { NETWORKS } from '../chains/types.ts';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { createContext } from '../context.ts';
import { buildApp } from '../http/app.ts';
import { startMetricsServer } from '../http/metrics-server.ts';
import { DASHBOARD_PATH } from '../http/routes/dashboard.ts';
import { createLogger } from '../logger.ts';
import { startBackgroundRoles } from '../roles.ts';
import { exitIfStillStoppingAfter, stopGateway } from '../shutdown.ts';
import { ensurePrivateDir, ensurePrivateFile } from '../store/private-files.ts';
import { parseSandboxArgs, SANDBOX_USAGE, SandboxUsageError } from './args.ts';
import { devnetStarters } from './devnets.ts';
import { SANDBOX_FILE, SANDBOX_PLAN, sandboxDir, sandboxEnv, withSandboxPlan } from './environment.ts';
import { whenParentExits } from './parent-watch.ts';
import { resetSandbox } from './reset.ts';
import { devnetSettings } from './settings.ts';
import { type SandboxSponsors, setUpSandboxSponsors } from './sponsors.ts';

export const SANDBOX_EMAIL = 'demo@switchyard.local';

/**
 * A stop ends everything within 5 s: the gateway gets a short grace for what it has in flight (its nodes
 * are local and answer), and the devnets save their chains whether or not it has finished by then.
 */
const GATEWAY_GRACE_MS = 1_000;
const GATEWAY_STOP_MS = 2_000;
const STOP_DEADLINE_MS = 4_500;

export interface SandboxFile {
  baseUrl: string;
  token: string;
  /** Where to sign in to the dashboard as the demo user; the password is new at every start. */
  dashboard: { url: string; email: string; password: string };
  chains: Record<string, { networks: string[]; tokens: DevnetTokens }>;
  /**
   * The fee sponsor's address by chain and network (every chain whose fees can be sponsored), a custodial
   * address of the sandbox operator (`operator@switchyard.local`).
   */
  sponsors: SandboxSponsors;
  logFile: string;
  /** Prometheus metrics, on their own loopback listener. */
  metricsUrl: string | null;
}

/** Starts the devnets of every chain this build has, for both networks, stopping all of them on failure. */
async function startDevnets(dir: string, settings: DevnetSettings): Promise<RunningDevnet[]> {
  const running: RunningDevnet[] = [];
  try {
    // Started side by side: each is its own process or server, and anvil takes a moment to boot.
    const starts = Object.entries(await devnetStarters()).flatMap(([chain, start]) =>
      NETWORKS.map((network) => start(network, path.join(dir, 'devnets', chain, network), settings)),
    );
    const results = await Promise.allSettled(starts);
    for (const result of results) if (result.status === 'fulfilled') running.push(result.value);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  } catch (error) {
    await Promise.allSettled(running.map((d) => d.stop()));
    throw error;
  }
  return running;
}

function sandboxConfig(devnets: RunningDevnet[]): Config {
  const config = loadConfig(sandboxEnv(), familySettings());
  for (const devnet of devnets) {
    config.endpoints[devnet.chain] = {
      ...config.endpoints[devnet.chain],
      [devnet.network]: devnet.endpoints,
    };
    // The watchers hear of the devnets' blocks as they come.
    if (devnet.wsUrl !== undefined) {
      config.wsEndpoints[devnet.chain] = {
        ...config.wsEndpoints[devnet.chain],
        [devnet.network]: devnet.wsUrl,
      };
    }
  }
  return withSandboxPlan(
    config,
    devnets.map((devnet) => devnet.chain),
  );
}

/**
 * The demo user gets a fresh token and dashboard password at every start: both are stored hashed, so the
 * old ones are unknown.
 */
async function demoUser(ctx: AppContext): Promise<{ token: string; password: string }> {
  const user =
    (await ctx.users.findByEmail(SANDBOX_EMAIL)) ?? (await ctx.users.createUser(SANDBOX_EMAIL, SANDBOX_PLAN));
  await ctx.users.setPlan(user.id, { plan: SANDBOX_PLAN });
  await ctx.users.revokeAllTokens(user.id);
  const password = randomBytes(12).toString('base64url');
  await ctx.signIn.setPassword(user.id, password);
  return { token: (await ctx.users.createToken(user.id, 'sandbox')).token, password };
}

function chainsOf(devnets: RunningDevnet[]): SandboxFile['chains'] {
  const chains: SandboxFile['chains'] = {};
  for (const devnet of devnets) {
    chains[devnet.chain] ??= { networks: [], tokens: devnet.tokens };
    chains[devnet.chain]!.networks.push(devnet.network);
  }
  return chains;
}

/** Waits for `work` at most `ms`; what it throws is thrown, what it does after the time is not waited for. */
async function settledWithin(work: Promise<void>, ms: number): Promise<'done' | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    return await Promise.race([work.then(() => 'done' as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface SandboxOptions {
  /** Deletes what an earlier run kept in the folder first (--reset). */
  reset?: boolean;
}

export async function startSandbox(options: SandboxOptions = {}) {
  const dir = sandboxDir();
  const settings = devnetSettings();
  ensurePrivateDir(dir);
  const leftAlone = options.reset ? await resetSandbox(dir, loadConfig(sandboxEnv(), familySettings())) : [];
  for (const file of leftAlone) process.stderr.write(`--reset left ${file} alone: it is outside ${dir}\n`);
  const devnets = await startDevnets(dir, settings);
  const config = sandboxConfig(devnets);
  const logFile = path.join(dir, 'gateway.log');
  ensurePrivateFile(logFile);
  const logger = createLogger(config.logLevel, createWriteStream(logFile, { flags: 'a' }));
  const faucets = new FaucetDirectory();
  for (const devnet of devnets) faucets.add(devnet.chain, devnet.network, devnet.faucet);

  const ctx = await createContext(config, { logger, faucets });
  const app = await buildApp(ctx);
  const address = await app.listen({ host: config.host, port: config.port });
  const baseUrl = address.replace('://0.0.0.0', '://127.0.0.1');
  const metrics =
    config.metrics && (await startMetricsServer(ctx.metrics, config.metrics.host, config.metrics.port));
  // In the background: a node that is slow to answer must not hold up the start.
  void checkNodes(ctx.registry, chainFamilies(), ctx.config, ctx.logger, ctx.troubleLog);
  const roles = startBackgroundRoles(ctx);
  ctx.prices.start();
  const demo = await demoUser(ctx);
  const sponsorSetup = await setUpSandboxSponsors(ctx, app, devnets);
  const sandbox: SandboxFile = {
    baseUrl,
    token: demo.token,
    dashboard: { url: `${baseUrl}${DASHBOARD_PATH}/`, email: SANDBOX_EMAIL, password: demo.password },
    chains: chainsOf(devnets),
    sponsors: sponsorSetup.sponsors,
    logFile,
    metricsUrl: metrics?.url ?? null,
  };
  writeFileSync(path.join(dir, SANDBOX_FILE), `${JSON.stringify(sandbox, null, 2)}\n`, { mode: 0o600 });

  // The gateway first, so that nothing is sent while the devnets save their chains; the devnets save
  // even when closing the gateway failed, or a Ctrl-C would lose what was done since the last save.
  const stop = async () => {
    sponsorSetup.stop();
    try {
      const gateway = stopGateway({ ctx, app, metrics: metrics || null, roles }, GATEWAY_GRACE_MS);
      if ((await settledWithin(gateway, GATEWAY_STOP_MS)) === 'late')
        process.stderr.write('the gateway had not stopped after 2 s; the devnets save their chains anyway\n');
    } finally {
      const stopped = await Promise.allSettled(devnets.map((d) => d.stop()));
      for (const result of stopped) {
        if (result.status === 'rejected')
          process.stderr.write(`a devnet did not save its chain: ${(result.reason as Error).message}\n`);
      }
    }
  };
  return { sandbox, dir, stop, sponsorSetup };
}

async function main(): Promise<void> {
  const args = parseSandboxArgs(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(SANDBOX_USAGE);
    return;
  }
  const { sandbox, dir, stop, sponsorSetup } = await startSandbox({ reset: args.reset });
  // The flows work once the sandbox says it is ready: its sponsors too.
  await sponsorSetup.ready;
  const sponsored = Object.values(sandbox.sponsors).flatMap((networks) => Object.keys(networks)).length;
  const chains = Object.keys(sandbox.chains);
  process.stdout.write(
    [
      `Switchyard sandbox ready at ${sandbox.baseUrl} (docs: ${sandbox.baseUrl}/docs)`,
      `  token: ${sandbox.token}`,
      `  dashboard: ${sandbox.dashboard.url} (${sandbox.dashboard.email}, password in sandbox.json)`,
      `  chains: ${chains.length > 0 ? chains.join(', ') : 'none yet'}`,
      `  fee sponsors: ${sponsored} chains and networks`,
      `  details: ${path.join(dir, 'sandbox.json')}, logs: ${sandbox.logFile}`,
      '  Ctrl-C stops everything; the next start carries on the same chains (--reset starts clean).',
      '',
    ].join('\n'),
  );
  // A Ctrl-C in a terminal reaches npm and this process both, and npm passes its own on: one stop.
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('stopping the sandbox...\n');
    exitIfStillStoppingAfter(STOP_DEADLINE_MS, (message) => process.stderr.write(`${message}\n`));
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`the sandbox did not stop cleanly: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  // A listener also undoes the SIGINT a script's `npm run sandbox &` started this process ignoring.
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  // Run by npm, which a SIGKILL can end without passing anything on: the sandbox stops with it.
  if (process.env['npm_lifecycle_event'] === 'sandbox') whenParentExits(shutdown);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    if (error instanceof SandboxUsageError) {
      process.stderr.write(error.message);
      process.exit(2);
    }
    const message = error instanceof ConfigError ? error.message : (error as Error).stack;
    process.stderr.write(`sandbox failed to start: ${message}\n`);
    process.exit(1);
  });
}
