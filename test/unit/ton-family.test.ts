import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { tonFamily } from '../../src/chains/ton/index.ts';
import { tonEndpointHeaders } from '../../src/chains/ton/settings.ts';
import { tonDisplayAddress } from '../../src/chains/ton/webhook-rules.ts';

const RAW = '0:9e88a7a0cd2fa9a4a0d83f41daa773364b295d2855394419314df2ea91fee8fe';
const address = Address.parseRaw(RAW);

describe('the TON family module', () => {
  it('compares every spelling of an address as one, and shows it in the wallet form of the network it is told', () => {
    const rules = tonFamily.webhookRules('ton');
    const spellings = [
      RAW.toUpperCase(),
      address.toString(),
      address.toString({ bounceable: false }),
      address.toString({ testOnly: true, urlSafe: false }),
      address.toString({ bounceable: false, testOnly: true }),
    ];
    for (const spelling of spellings) {
      expect(rules.isAddress(spelling)).toBe(true);
      expect(rules.normalize(spelling)).toBe(RAW);
    }
    expect(tonDisplayAddress(RAW, 'mainnet')).toBe(address.toString({ bounceable: false }));
    expect(tonDisplayAddress(RAW, 'testnet')).toBe(address.toString({ bounceable: false, testOnly: true }));
    expect(rules).toMatchObject({ hasComments: true });
    expect(rules.types).toEqual(['TON', 'JETTON']);
    expect(rules.hasMempool).toBe(false);
  });

  it("stores a key's address in the network's wallet form, whatever form it is named in", () => {
    const mainnet = tonFamily.keys('mainnet', {});
    const testnet = tonFamily.keys('testnet', {});
    expect(mainnet.normalizeAddress(RAW)).toBe(address.toString({ bounceable: false }));
    expect(mainnet.normalizeAddress(address.toString())).toBe(address.toString({ bounceable: false }));
    expect(testnet.normalizeAddress(address.toString())).toBe(
      address.toString({ bounceable: false, testOnly: true }),
    );
  });

  it('exports the stored seed as it is, shows an unsecure key once, and quotes TON after SOL', () => {
    const pair = tonFamily.keys('mainnet', {}).generate();
    expect(tonFamily.keyForms?.exportedKey(pair.privateKey, pair.address)).toBe(pair.privateKey);
    expect(tonFamily.custody.created.of(pair, true)).toEqual({
      address: pair.address,
      publicKey: pair.publicKey,
      privateKey: pair.privateKey,
    });
    expect(tonFamily.custody.created.of(pair, false)).not.toHaveProperty('privateKey');
    expect(tonFamily.transferTypes('ton')).toEqual({ native: 'TON', fungible: 'JETTON', nft: 'NFT' });
    expect(tonFamily.priceCoins).toMatchObject([
      { symbol: 'TON', coingeckoId: 'the-open-network', binancePair: 'TONUSDT' },
    ]);
    expect(tonFamily.historyDecimals('ton', 'TON')).toBe(9);
    expect(tonFamily.historyDecimals('ton', 'JETTON')).toBeNull();
  });

  it("sends toncenter's API key as X-API-Key when TON_API_KEY is set", () => {
    expect(tonEndpointHeaders({})).toEqual({});
    expect(tonEndpointHeaders({ TON_API_KEY: 'k3y-value' })).toEqual({ 'X-API-Key': 'k3y-value' });
  });
});
