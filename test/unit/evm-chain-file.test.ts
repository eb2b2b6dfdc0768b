import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { evmChainTable } from '../../src/chains/evm/chains.ts';
import { familySettings } from '../../src/chains/families.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'evm-chains-'));
const shipped = JSON.parse(readFileSync('src/chains/evm/evm-chains.json', 'utf8'));

function chainFile(name: string, chains: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify({ chains }));
  return file;
}

const testchain = {
  ...shipped.chains.base,
  nativeSymbol: 'TST',
  priceSymbol: 'ETH',
  networks: {
    mainnet: { ...shipped.chains.base.networks.mainnet, chainId: 31_337_001, name: 'Test chain' },
    testnet: { ...shipped.chains.base.networks.testnet, chainId: 31_337_002, name: 'Test chain testnet' },
  },
};

describe('the EVM chain file', () => {
  it('ships Base and Optimism beside the four EVM chains, wei as bigint', () => {
    const chains = evmChainTable(undefined);
    expect([...chains.keys()]).toEqual(['ethereum', 'bsc', 'polygon', 'arbitrum', 'base', 'optimism']);
    expect(chains.get('base')?.networks.mainnet.chainId).toBe(8453);
    expect(chains.get('base')?.networks.testnet.chainId).toBe(84532);
    expect(chains.get('optimism')?.networks.mainnet.chainId).toBe(10);
    expect(chains.get('optimism')?.networks.testnet.chainId).toBe(11155420);
    expect(chains.get('polygon')?.networks.mainnet.minPriorityFeeWei).toBe(25_000_000_000n);
    expect(chains.get('base')?.priceSymbol).toBe('ETH');
  });

  it("adds an operator's chains and replaces one of the same name", () => {
    const file = chainFile('more.json', {
      testchain,
      bsc: {
        ...shipped.chains.bsc,
        networks: { ...shipped.chains.bsc.networks, mainnet: testchain.networks.mainnet },
      },
    });
    const chains = evmChainTable(file);
    expect(chains.get('testchain')?.nativeSymbol).toBe('TST');
    expect(chains.get('bsc')?.networks.mainnet.chainId).toBe(31_337_001);
    expect(chains.get('ethereum')?.networks.mainnet.chainId).toBe(1);
  });

  it('refuses a file naming the file and the field that is wrong', () => {
    const file = chainFile('bad.json', {
      testchain: {
        ...testchain,
        networks: { ...testchain.networks, mainnet: { ...testchain.networks.mainnet, chainId: 'one' } },
      },
    });
    const problem = () => loadConfig({ EVM_CHAINS_FILE: file }, familySettings());
    expect(problem).toThrow(ConfigError);
    expect(problem).toThrow(/EVM_CHAINS_FILE: .*bad\.json: \/chains\/testchain\/networks\/mainnet\/chainId/);
    expect(() => loadConfig({ EVM_CHAINS_FILE: path.join(dir, 'absent.json') }, familySettings())).toThrow(
      /EVM_CHAINS_FILE: cannot read .*absent\.json/,
    );
    const badUrl = chainFile('url.json', {
      testchain: {
        ...testchain,
        networks: {
          ...testchain.networks,
          testnet: { ...testchain.networks.testnet, endpoints: ['ftp://x'] },
        },
      },
    });
    expect(() => evmChainTable(badUrl)).toThrow(
      /url\.json: \/chains\/testchain\/networks\/testnet\/endpoints\/0 is not an http/,
    );
    expect(() => evmChainTable(chainFile('name.json', { 'Test-Chain': testchain }))).toThrow(/name\.json/);
  });
});
