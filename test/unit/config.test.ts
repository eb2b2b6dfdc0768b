import { describe, expect, it } from 'vitest';
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

  it('names the variable of a bad value', () => {
    expect(failure({ PORT: 'eighty' }).variable).toBe('PORT');
    expect(failure({ PORT: '70000' }).message).toMatch(/PORT.*outside/);
    expect(failure({ DATABASE_URL: 'mysql://x' }).variable).toBe('DATABASE_URL');
    expect(failure({ LOG_LEVEL: 'loud' }).variable).toBe('LOG_LEVEL');
    expect(failure({ TRUST_PROXY: 'maybe' }).variable).toBe('TRUST_PROXY');
    expect(failure({ PLANS: '{' }).variable).toBe('PLANS');
    expect(failure({ PLANS: '[{"name":"a","quotas":{"webhooks":-1}}]' }).message).toMatch(/quotas.webhooks/);
    expect(failure({ DEFAULT_PLAN: 'gold' }).variable).toBe('DEFAULT_PLAN');
    expect(failure({ TRON_MAINNET_URLS: 'ftp://node' }).variable).toBe('TRON_MAINNET_URLS');
    expect(failure({ CONFIG_FILE: '/nonexistent/file.json' }).variable).toBe('CONFIG_FILE');
    expect(failure({ DATABASE_URL: 'postgres://db/x' }).variable).toBe('MASTER_KEY');
    expect(failure({ ROLES: 'api,cook' }).variable).toBe('ROLES');
  });

  it('never echoes a node URL path or query, which may hold an API key', () => {
    const error = failure({ ETHEREUM_MAINNET_URLS: 'https://node.example/v3/SECRETKEY,notaurl' });
    expect(error.message).not.toContain('SECRETKEY');
  });

  it('reads node endpoints per chain and network, with the TronGrid key header', () => {
    const config = loadConfig({
      TRON_TESTNET_URLS: 'http://a.example, http://b.example',
      TRON_API_KEY: 'k',
    });
    expect(config.endpoints.tron?.testnet).toEqual([
      { url: 'http://a.example', headers: { 'TRON-PRO-API-KEY': 'k' } },
      { url: 'http://b.example', headers: { 'TRON-PRO-API-KEY': 'k' } },
    ]);
    expect(config.endpoints.tron?.mainnet).toBeUndefined();
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
    });
  });
});
