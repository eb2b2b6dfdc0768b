import { describe, expect, it } from 'vitest';
import { displayAddress, webhookRules } from '../../src/webhooks/chain-rules.ts';

describe('webhook chain rules: one form to match, one to show', () => {
  it('EVM: matches on lower case, shows EIP-55 whatever the spelling', () => {
    const checksummed = '0x52908400098527886E0F7030069857D2E4169EE7';
    for (const spelling of [
      checksummed,
      checksummed.toLowerCase(),
      `0x${checksummed.slice(2).toUpperCase()}`,
    ]) {
      const normalized = webhookRules('ethereum').normalize(spelling);
      expect(normalized).toBe(checksummed.toLowerCase());
      expect(displayAddress('ethereum', 'mainnet', normalized)).toBe(checksummed);
      expect(displayAddress('bsc', 'mainnet', spelling)).toBe(checksummed);
    }
    expect(displayAddress('polygon', 'mainnet', '0x0000000000000000000000000000000000000000')).toBe(
      '0x0000000000000000000000000000000000000000',
    );
  });

  it('Tron stays base58; other chains as stored', () => {
    expect(displayAddress('tron', 'mainnet', 'TTd9qHyjqiUkfTxe3gotbuTMpjU8LEbpkN')).toBe(
      'TTd9qHyjqiUkfTxe3gotbuTMpjU8LEbpkN',
    );
    expect(displayAddress('bitcoin', 'mainnet', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq')).toBe(
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    );
  });

  it('never throws: null stays null, an address it cannot show is shown as it is', () => {
    expect(displayAddress('ethereum', 'mainnet', null)).toBeNull();
    expect(displayAddress('ethereum', 'mainnet', 'not an address')).toBe('not an address');
    expect(displayAddress('dogecoin', 'mainnet', '0xabc')).toBe('0xabc');
  });
});
