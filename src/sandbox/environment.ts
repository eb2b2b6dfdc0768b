/**
 * What makes a configuration the sandbox's: its defaults for the settings a sandbox differs in, and its
 * plan. The sandbox (main.ts) and the admin CLI run on a sandbox (SANDBOX_DIR set) both read them here, so
 * a user the CLI creates there gets the sandbox's plan and `config check` describes the sandbox. Light on
 * purpose: the CLI loads it without any chain library.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Env } from '../config/setting.ts';
import type { Config, PlanConfig } from '../config.ts';

export const SANDBOX_PLAN = 'sandbox';
export const SANDBOX_FILE = 'sandbox.json';

/** What the sandbox plan's users may have sponsored per month on each chain, in its coin. */
const SANDBOX_SPONSORED_ALLOWANCE = '1000';

/** The sandbox's folder (SANDBOX_DIR, `.sandbox` by default), absolute. */
export function sandboxDir(env: Env = process.env): string {
  return path.resolve(env['SANDBOX_DIR'] || '.sandbox');
}

/** The environment with the sandbox's defaults under what it sets itself. */
export function sandboxEnv(env: Env = process.env): Env {
  return {
    ...env,
    SANDBOX_DIR: env['SANDBOX_DIR'] || '.sandbox',
    HOST: env['HOST'] || '127.0.0.1',
    // Webhook receivers in the sandbox run on this machine.
    WEBHOOK_ALLOW_CIDRS: env['WEBHOOK_ALLOW_CIDRS'] || '127.0.0.0/8,::1/128',
    // Offline and deterministic: the sandbox has no internet.
    PRICE_PROVIDERS: env['PRICE_PROVIDERS'] || 'local',
    // Any free port: several sandboxes (and test runs) share a machine.
    METRICS_PORT: env['METRICS_PORT'] || '0',
    // Anyone trying the dashboard may make an account of their own.
    DASHBOARD_SIGNUP: env['DASHBOARD_SIGNUP'] || 'open',
  };
}

/**
 * Every quota open: the sandbox is for trying things, not for metering them. Its users may have fees
 * sponsored (the paymaster, sweeps) on every chain the sandbox runs.
 */
export function sandboxPlan(chains: readonly string[]): PlanConfig {
  return {
    name: SANDBOX_PLAN,
    period: 'month',
    quotas: { webhooks: null, addresses: null, requests: null, transactions: null },
    rate: null,
    sponsored: Object.fromEntries([...new Set(chains)].map((chain) => [chain, SANDBOX_SPONSORED_ALLOWANCE])),
  };
}

/**
 * The configuration with the sandbox plan (unless PLANS has one of that name), given to new users unless
 * DEFAULT_PLAN names another: a user made on the sandbox is not metered like a customer.
 */
export function withSandboxPlan(config: Config, chains: readonly string[]): Config {
  const plans = config.plans.some((p) => p.name === SANDBOX_PLAN)
    ? config.plans
    : [...config.plans, sandboxPlan(chains)];
  const defaultPlan = config.familySettings['DEFAULT_PLAN'] === undefined ? SANDBOX_PLAN : config.defaultPlan;
  return { ...config, plans, defaultPlan };
}

/** What a started sandbox wrote of itself in sandbox.json that a command run beside it needs. */
export interface SandboxFacts {
  baseUrl: string;
  chains: string[];
}

/** The facts of the sandbox last started in `dir`; undefined when none was (or its file is unreadable). */
export function readSandboxFacts(dir: string): SandboxFacts | undefined {
  try {
    const file = JSON.parse(readFileSync(path.join(dir, SANDBOX_FILE), 'utf8')) as {
      baseUrl?: unknown;
      chains?: unknown;
    };
    if (typeof file.baseUrl !== 'string' || typeof file.chains !== 'object' || file.chains === null) return;
    return { baseUrl: file.baseUrl, chains: Object.keys(file.chains) };
  } catch {
    return undefined;
  }
}
