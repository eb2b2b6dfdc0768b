import { describe, expect, it } from 'vitest';
import { evmFamily } from '../../src/chains/evm/index.ts';
import { chainFamilies, familySettings, servedChainProblems } from '../../src/chains/families.ts';
import { endpointsOf, wsEndpointProblems } from '../../src/chains/registry.ts';
import { tronFamily } from '../../src/chains/tron/index.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

function failure(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has working defaults: SQLite in ./data, port 8080, Chaingateway plans', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.databaseUrl).toMatch(/^sqlite:.*data\/switchyard\.db$/);
    expect(config.plans.map((p) => p.name)).toEqual(['plus', 'pro', 'premium', 'enterprise']);
    expect(config.defaultPlan).toBe('plus');
    expect(config.sandbox).toBe(false);
  });

  it('reads the webhook requests in flight per origin: 16 by default, 1 to 64', () => {
    expect(loadConfig({}).webhookOriginConcurrency).toBe(16);
    expect(loadConfig({ WEBHOOK_ORIGIN_CONCURRENCY: '4' }).webhookOriginConcurrency).toBe(4);
    expect(failure({ WEBHOOK_ORIGIN_CONCURRENCY: '0' }).variable).toBe('WEBHOOK_ORIGIN_CONCURRENCY');
    expect(failure({ WEBHOOK_ORIGIN_CONCURRENCY: '65' }).variable).toBe('WEBHOOK_ORIGIN_CONCURRENCY');
  });

  it('names the variable of a bad value', () => {
    expect(failure({ PORT: 'eighty' }).variable).toBe('PORT');
    expect(failure({ PORT: '70000' }).message).toMatch(/PORT.*outside/);
    expect(failure({ DATABASE_URL: 'mysql://x' }).variable).toBe('DATABASE_URL');
    expect(failure({ LOG_LEVEL: 'loud' }).variable).toBe('LOG_LEVEL');
    expect(failure({ TRUST_PROXY: 'maybe' }).variable).toBe('TRUST_PROXY');
    expect(failure({ TRUST_PROXY: '10.0.0.0/33' }).variable).toBe('TRUST_PROXY');
    expect(failure({ PLANS: '{' }).variable).toBe('PLANS');
    expect(failure({ PLANS: '[{"name":"a","quotas":{"webhooks":-1}}]' }).message).toMatch(/quotas.webhooks/);
    expect(failure({ DEFAULT_PLAN: 'gold' }).variable).toBe('DEFAULT_PLAN');
    expect(failure({ TRON_MAINNET_URLS: 'ftp://node' }).variable).toBe('TRON_MAINNET_URLS');
    expect(failure({ CONFIG_FILE: '/nonexistent/file.json' }).variable).toBe('CONFIG_FILE');
    expect(failure({ DATABASE_URL: 'postgres://db/x' }).variable).toBe('MASTER_KEY');
    expect(failure({ ROLES: 'api,cook' }).variable).toBe('ROLES');
  });

  it('names every bad setting at once, one line each, and how to make a master key', () => {
    const error = failure({
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      DATABASE_URL: 'postgres://switchyard:hunter2@db/switchyard',
      DEFAULT_PLAN: 'gold',
      PASSWORD_LOCKOUT_SECONDS: '600',
      PASSWORD_LOCKOUT_MAX_SECONDS: '60',
    });
    expect(error.problems.map((p) => p.variable)).toEqual([
      'PORT',
      'LOG_LEVEL',
      'DEFAULT_PLAN',
      'MASTER_KEY',
      'PASSWORD_LOCKOUT_MAX_SECONDS',
    ]);
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('Invalid configuration, 5 problems:');
    expect(lines.slice(1).map((line) => line.trim().split(':')[0])).toEqual(
      error.problems.map((p) => p.variable),
    );
    expect(error.message).toContain('npm run -s cli -- master-key generate');
    expect(error.message).not.toContain('hunter2');
  });

  it('checks MASTER_KEY is 32 bytes of base64', () => {
    expect(failure({ MASTER_KEY: 'c2hvcnQ=' }).message).toMatch(
      /MASTER_KEY: must be 32 bytes in base64; generate/,
    );
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x', MASTER_KEY: key }).masterKey).toBe(key);
  });

  it('reads a CONFIG_FILE it cannot parse as one problem among the others', () => {
    const error = failure({ CONFIG_FILE: '/nonexistent/file.json', PORT: '-1' });
    expect(error.problems.map((p) => p.variable)).toEqual(['CONFIG_FILE', 'PORT']);
  });

  it('never echoes a node URL path or query, which may hold an API key', () => {
    const error = failure({ ETHEREUM_MAINNET_URLS: 'https://node.example/v3/SECRETKEY,notaurl' });
    expect(error.message).not.toContain('SECRETKEY');
  });

  it('reads node endpoints per chain and network; Tron sends the TronGrid key header to each', () => {
    const config = loadConfig({
      TRON_TESTNET_URLS: 'http://a.example, http://b.example',
      TRON_API_KEY: 'k',
    });
    expect(config.endpoints.tron?.testnet?.map((e) => e.url)).toEqual([
      'http://a.example',
      'http://b.example',
    ]);
    expect(config.endpoints.tron?.mainnet).toBeUndefined();
    const tron = tronFamily.chains.tron!;
    expect(endpointsOf(config, 'tron', 'testnet', tron)).toEqual([
      { url: 'http://a.example', headers: { 'TRON-PRO-API-KEY': 'k' } },
      { url: 'http://b.example', headers: { 'TRON-PRO-API-KEY': 'k' } },
    ]);
    // The public defaults get it too (TronGrid is Tron's default); the EVM chains never.
    expect(endpointsOf(config, 'tron', 'mainnet', tron)[0]?.headers).toEqual({ 'TRON-PRO-API-KEY': 'k' });
    const ethereum = evmFamily.chains.ethereum!;
    expect(endpointsOf(config, 'ethereum', 'mainnet', ethereum)[0]?.headers).toEqual({});
  });

  it('reads one WebSocket endpoint per chain and network; only chains whose nodes announce blocks take one', () => {
    const config = loadConfig({
      ETHEREUM_MAINNET_WS_URL: 'wss://eth.example/ws/KEY',
      SOLANA_TESTNET_WS_URL: 'ws://127.0.0.1:8900',
      TRON_MAINNET_WS_URL: 'wss://tron.example',
    });
    expect(config.wsEndpoints).toEqual({
      ethereum: { mainnet: 'wss://eth.example/ws/KEY' },
      solana: { testnet: 'ws://127.0.0.1:8900' },
      tron: { mainnet: 'wss://tron.example' },
    });
    // Tron's nodes offer no subscription: its watcher polls, and the setting is refused by name.
    expect(wsEndpointProblems(config, chainFamilies())).toEqual([
      {
        variable: 'TRON_MAINNET_WS_URL',
        problem: 'tron has no new-block subscription: its watcher polls the node',
      },
    ]);
    const error = failure({ BSC_TESTNET_WS_URL: 'https://bsc.example/SECRETKEY' });
    expect(error.problems.map((p) => p.variable)).toEqual(['BSC_TESTNET_WS_URL']);
    expect(error.message).not.toContain('SECRETKEY');
  });

  it("checks a family's own settings with the others", () => {
    const env = { TRON_FEE_LIMIT_TRX: 'lots', PORT: 'x' };
    let problems: string[] = [];
    try {
      loadConfig(env, familySettings());
    } catch (error) {
      if (error instanceof ConfigError) problems = error.problems.map((p) => p.variable);
    }
    expect(problems).toEqual(['PORT', 'TRON_FEE_LIMIT_TRX']);
    // Without the families' table a command that needs none stays quick (the context checks them).
    expect(failure(env).problems.map((p) => p.variable)).toEqual(['PORT']);
  });

  it('puts a sandbox on its own SQLite file whatever DATABASE_URL says', () => {
    const config = loadConfig({ SANDBOX_DIR: '/tmp/sbx', DATABASE_URL: 'postgres://x/y' });
    expect(config.databaseUrl).toBe('sqlite:/tmp/sbx/switchyard.db');
    expect(config.sandbox).toBe(true);
  });

  it('parses unlimited (null) quotas and periods', () => {
    const config = loadConfig({
      PLANS: JSON.stringify([
        { name: 'x', period: 'day', quotas: { webhooks: null, addresses: 1, requests: 2, transactions: 3 } },
      ]),
    });
    expect(config.plans[0]).toEqual({
      name: 'x',
      period: 'day',
      quotas: { webhooks: null, addresses: 1, requests: 2, transactions: 3 },
      rate: null,
      sponsored: null,
    });
  });
});

describe('operations settings', () => {
  it('reads TRUST_PROXY as no proxy, any proxy, or the proxies named by address and CIDR', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.5, 10.1.0.0/16 fd00::/8' }).trustProxy).toEqual([
      '10.0.0.5',
      '10.1.0.0/16',
      'fd00::/8',
    ]);
  });

  it('reads LOG_FORMAT, NODE_PROBE_INTERVAL_SECONDS and REQUIRED_CHAINS', () => {
    const defaults = loadConfig({});
    expect(defaults.nodeProbeIntervalMs).toBe(15_000);
    expect(defaults.requiredChains).toEqual({ kind: 'configured' });
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({ NODE_PROBE_INTERVAL_SECONDS: '5' }).nodeProbeIntervalMs).toBe(5_000);
    expect(loadConfig({ REQUIRED_CHAINS: 'all' }).requiredChains).toEqual({ kind: 'all' });
    expect(loadConfig({ REQUIRED_CHAINS: 'none' }).requiredChains).toEqual({ kind: 'none' });
    expect(loadConfig({ REQUIRED_CHAINS: 'tron, ethereum:mainnet' }).requiredChains).toEqual({
      kind: 'list',
      items: [
        { chain: 'tron', network: null },
        { chain: 'ethereum', network: 'mainnet' },
      ],
    });
  });

  it('names the variable of a bad operations value', () => {
    expect(failure({ LOG_FORMAT: 'xml' }).variable).toBe('LOG_FORMAT');
    expect(failure({ NODE_PROBE_INTERVAL_SECONDS: '0' }).variable).toBe('NODE_PROBE_INTERVAL_SECONDS');
    // A chain name is checked against the chains served once the families are known.
    expect(servedChainProblems(loadConfig({ REQUIRED_CHAINS: 'dogecoin' }))).toEqual([
      {
        variable: 'REQUIRED_CHAINS',
        problem: expect.stringMatching(/^"dogecoin" is not a chain this gateway serves/),
      },
    ]);
    expect(failure({ REQUIRED_CHAINS: 'ethereum:mainnet:x' }).variable).toBe('REQUIRED_CHAINS');
    expect(failure({ REQUIRED_CHAINS: 'tron:devnet' }).variable).toBe('REQUIRED_CHAINS');
    expect(failure({ REQUIRED_CHAINS: ',' }).variable).toBe('REQUIRED_CHAINS');
  });
});
