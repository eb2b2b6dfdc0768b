import { describe, expect, it } from 'vitest';
import { chainFamilies, FAMILIES, familySettings, servedChainProblems } from '../../src/chains/families.ts';
import {
  LIGHT_FAMILY_MIGRATIONS,
  lightFamilySettings,
  lightServedChainProblems,
  lightServedChains,
} from '../../src/chains/family-settings.ts';
import { loadConfig } from '../../src/config.ts';

// `config check` reads the families' settings and chains from a light table instead of the family modules
// (whose chain libraries take seconds to load): the table must say what the modules say.
describe('the light table of family settings and chains', () => {
  it('has every family setting, in order, as the family modules do', () => {
    expect(lightFamilySettings()).toEqual(familySettings());
  });

  it('has every served chain, in order, with the same new-block subscriptions', () => {
    const whole = Object.entries(chainFamilies()).map(([chain, family]) => [chain, family?.headSubscription]);
    const light = Object.entries(lightServedChains()).map(([chain, family]) => [
      chain,
      family?.headSubscription,
    ]);
    expect(light).toEqual(whole);
  });

  it("has every family's own migrations, in order, as the family modules do", () => {
    const whole = FAMILIES.flatMap((family) => (family.migrations === undefined ? [] : [family.migrations]));
    expect(LIGHT_FAMILY_MIGRATIONS).toEqual(whole);
  });

  it('finds the same problems in settings that name chains', () => {
    const config = loadConfig({
      TRON_MAINNET_WS_URL: 'ws://127.0.0.1:1',
      SOLANA_MAINNET_WS_URL: 'ws://127.0.0.1:2',
      REQUIRED_CHAINS: 'dogecoin,ethereum:testnet',
    });
    expect(lightServedChainProblems(config)).toEqual(servedChainProblems(config));
    expect(lightServedChainProblems(config).length).toBeGreaterThan(0);
  });
});
