import { describe, expect, it } from 'vitest';
import { familyOf, servedChains } from '../../src/chains/families.ts';
import { canonicalSymbol, PRICE_SYMBOLS } from '../../src/prices/symbols.ts';
import { webhookRules } from '../../src/webhooks/chain-rules.ts';

describe('what the families declare for webhooks and prices', () => {
  it("every served chain's webhooks filter on its coin, and the price API quotes that coin", () => {
    for (const chain of servedChains()) {
      const { native } = familyOf(chain)!.transferTypes(chain);
      expect(webhookRules(chain).types, chain).toContain(native);
      expect(PRICE_SYMBOLS, chain).toContain(native);
    }
  });

  it("a renamed coin's old ticker is one alias for prices and for the webhooks of its chain", () => {
    expect(canonicalSymbol('matic')).toBe('POL');
    expect(webhookRules('polygon').aliases).toEqual({ MATIC: 'POL' });
    expect(webhookRules('bsc').aliases).toEqual({ ERC20: 'BEP20', ERC721: 'BEP721' });
    expect(webhookRules('ethereum').aliases).toBeUndefined();
  });

  it('each coin is quoted once, however many chains pay in it', () => {
    expect(new Set(PRICE_SYMBOLS).size).toBe(PRICE_SYMBOLS.length);
    expect(PRICE_SYMBOLS.filter((symbol) => symbol === 'ETH')).toHaveLength(1);
  });
});
