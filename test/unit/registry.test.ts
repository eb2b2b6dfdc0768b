import { describe, expect, it } from 'vitest';
import type { ChainAdapter } from '../../src/chains/chain-adapter.ts';
import { AdapterKindError, buildRegistry, ChainRegistry } from '../../src/chains/registry.ts';
import type { ChainName, Network } from '../../src/chains/types.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';

/** The smallest adapter: enough to exercise the registry's lookups, not a chain. */
function adapter(chain: ChainName, network: Network, closed: string[] = []): ChainAdapter {
  return {
    chain,
    network,
    nativeSymbol: 'X',
    nativeDecimals: 6,
    isAddress: () => true,
    getBlockNumber: async () => 1n,
    close: async () => {
      closed.push(`${chain}:${network}`);
    },
  };
}

describe('ChainRegistry', () => {
  it('finds adapters by chain and network and answers Unsupported blockchain otherwise', () => {
    const registry = new ChainRegistry();
    registry.register(adapter('tron', 'testnet'));
    expect(registry.get('tron', 'testnet').network).toBe('testnet');
    expect(registry.supports('tron')).toBe(true);
    expect(registry.supports('solana')).toBe(false);
    expect(() => registry.get('solana', 'mainnet')).toThrow('Unsupported blockchain');
    expect(() => registry.get('tron', 'mainnet')).toThrow(/tron mainnet is not configured/);
    expect(() => registry.register(adapter('tron', 'testnet'))).toThrow(/twice/);
  });

  it('gives a family its own adapter class, checked, and refuses another as a wiring mistake', () => {
    class OwnAdapter implements ChainAdapter {
      readonly nativeSymbol = 'X';
      readonly nativeDecimals = 6;
      constructor(
        readonly chain: ChainName,
        readonly network: Network,
      ) {}
      isAddress = () => true;
      getBlockNumber = async () => 1n;
      close = async () => {};
    }
    class OtherAdapter extends OwnAdapter {}
    const registry = new ChainRegistry();
    const own = new OwnAdapter('tron', 'testnet');
    registry.register(own);
    registry.register(adapter('solana', 'testnet'));
    expect(registry.adapterOf('tron', 'testnet', OwnAdapter)).toBe(own);
    expect(() => registry.adapterOf('tron', 'testnet', OtherAdapter)).toThrow(AdapterKindError);
    expect(() => registry.adapterOf('solana', 'testnet', OwnAdapter)).toThrow(
      'the solana testnet adapter is an instance of Object, not of OwnAdapter',
    );
    expect(() => registry.adapterOf('tron', 'mainnet', OwnAdapter)).toThrow(/tron mainnet is not configured/);
  });

  it('builds adapters from configured endpoints, falling back to defaults, and closes them all', async () => {
    const config = loadConfig({ TRON_TESTNET_URLS: 'http://127.0.0.1:1' });
    const closed: string[] = [];
    const seen: string[] = [];
    const registry = buildRegistry(config, createLogger('silent'), {
      tron: {
        factory: (ctx) => {
          seen.push(`${ctx.network}:${ctx.endpoints.map((e) => e.url).join()}`);
          return adapter('tron', ctx.network, closed);
        },
        defaults: { mainnet: [{ url: 'http://default.example', headers: {} }] },
      },
    });
    expect(seen.sort()).toEqual(['mainnet:http://default.example', 'testnet:http://127.0.0.1:1']);
    expect(registry.networksOf('tron')).toEqual(['mainnet', 'testnet']);
    await registry.closeAll();
    expect(closed.sort()).toEqual(['tron:mainnet', 'tron:testnet']);
  });
});
