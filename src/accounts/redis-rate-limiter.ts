import { createHash } from 'node:crypto';
import { Counter, type Registry } from 'prom-client';
import { createClient } from 'redis';
import type { PlanRate } from '../config.ts';
import type { Logger } from '../logger.ts';
import { allowed, intervalUs, type RateDecision, refused } from './rate-gcra.ts';
import { LocalRateLimiter, type RateLimiter } from './rate-limiter.ts';

/**
 * The GCRA step of `rate-gcra.ts` as one atomic script, on Redis's own clock so instances whose clocks
 * differ still agree. KEYS[1]: the key; ARGV: the interval (µs) and the plan's requests. Returns
 * {allowed, remaining, µs until the budget is full, µs until one more request fits}; all whole numbers,
 * as Redis turns a Lua number into an integer reply. The key expires when its budget is full again.
 */
const GCRA_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local interval = tonumber(ARGV[1])
local requests = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local next_tat = tat + interval
local allow_at = next_tat - requests * interval
if now < allow_at then
  return {0, 0, tat - now, allow_at - now}
end
redis.call('SET', KEYS[1], string.format('%.0f', next_tat), 'PX', math.ceil((next_tat - now) / 1000))
return {1, math.floor((now - allow_at) / interval), next_tat - now, 0}
`;
const GCRA_SHA = createHash('sha1').update(GCRA_SCRIPT).digest('hex');

/** How long a request may wait on Redis before this instance decides alone. */
export const REDIS_TIMEOUT_MS = 250;
/** After Redis failed, how long requests skip it (no request waits on a Redis that just failed). */
const REDIS_RETRY_AFTER_MS = 1_000;

export interface RedisRateLimiterOptions {
  url: string;
  /** Put before every key, so gateways (or test runs) sharing one Redis keep their budgets apart. */
  prefix: string;
  logger: Logger;
  metrics: Registry;
}

/**
 * Budgets shared by every instance through Redis: one script call per request. When Redis cannot be
 * reached (not connected, an error, or no answer within REDIS_TIMEOUT_MS) the request is limited by this
 * instance's own in-process limiter instead, with one warning per outage and a metric per request: an
 * outage of Redis loosens the limit (each instance enforces it alone) but never stops or slows the API.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly client;
  private readonly fallback = new LocalRateLimiter();
  private readonly fallbacks: Counter;
  private readonly logger: Logger;
  private readonly prefix: string;
  /** Set while Redis is failing: when to try it again (ms since the epoch). */
  private skipUntil = 0;
  private down = false;

  constructor(options: RedisRateLimiterOptions) {
    this.prefix = options.prefix;
    this.logger = options.logger.child({ role: 'rate-limit' });
    this.fallbacks = new Counter({
      name: 'switchyard_rate_limit_fallbacks_total',
      help: 'Requests rate-limited by this instance alone because Redis could not be reached',
      registers: [options.metrics],
    });
    this.client = createClient({
      url: options.url,
      // Fail at once while disconnected instead of queueing: a request never waits for a reconnection.
      disableOfflineQueue: true,
      commandOptions: { timeout: REDIS_TIMEOUT_MS },
      socket: {
        connectTimeout: 2_000,
        reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000),
      },
    });
    // Without a listener, a connection error would crash the process; each one is an outage's detail.
    this.client.on('error', (error: Error) => this.failed(error));
    this.client.on('ready', () => this.recovered());
    // Started, not awaited: the gateway serves (limiting in-process) while Redis is still out of reach.
    this.client.connect().catch(() => {});
  }

  async take(key: string, rate: PlanRate): Promise<RateDecision> {
    if (!this.client.isReady || Date.now() < this.skipUntil) return this.alone(key, rate);
    try {
      const reply = await this.runScript(this.prefix + key, rate);
      this.recovered();
      return reply;
    } catch (error) {
      this.failed(error as Error);
      return this.alone(key, rate);
    }
  }

  ready(): boolean {
    return this.client.isReady;
  }

  async close(): Promise<void> {
    if (this.client.isReady) await this.client.close();
    else this.client.destroy();
    await this.fallback.close();
  }

  private async runScript(key: string, rate: PlanRate): Promise<RateDecision> {
    const options = { keys: [key], arguments: [String(intervalUs(rate)), String(rate.requests)] };
    let reply: unknown;
    try {
      reply = await this.client.evalSha(GCRA_SHA, options);
    } catch (error) {
      // The script is not cached yet (first call, or Redis restarted): send it whole once.
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      reply = await this.client.eval(GCRA_SCRIPT, options);
    }
    const [ok, remaining, untilFullUs, untilAllowedUs] = numbersOf(reply);
    return ok === 1 ? allowed(rate, remaining, untilFullUs) : refused(rate, untilFullUs, untilAllowedUs);
  }

  private alone(key: string, rate: PlanRate): RateDecision {
    this.fallbacks.inc();
    return this.fallback.take(key, rate);
  }

  private failed(error: Error): void {
    this.skipUntil = Date.now() + REDIS_RETRY_AFTER_MS;
    if (this.down) return;
    this.down = true;
    // The message names the failure, never the URL (it may carry a password).
    this.logger.warn(
      { error: error.message },
      'Redis unreachable: rate limits are counted by each instance alone until it answers again',
    );
  }

  private recovered(): void {
    this.skipUntil = 0;
    if (!this.down) return;
    this.down = false;
    this.logger.info('Redis answers again: rate limits are shared across instances');
  }
}

/** The script's reply: four integers. */
function numbersOf(reply: unknown): [number, number, number, number] {
  if (Array.isArray(reply)) {
    const [a, b, c, d] = reply as unknown[];
    if (typeof a === 'number' && typeof b === 'number' && typeof c === 'number' && typeof d === 'number') {
      return [a, b, c, d];
    }
  }
  throw new Error('unexpected reply from the rate limit script');
}
