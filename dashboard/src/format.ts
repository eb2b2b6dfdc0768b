/** Display helpers. Amounts stay decimal strings: trimmed as text, never converted to a number. */

/** A timestamp from the API in the reader's locale, or a dash for none. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A whole count with group separators (quotas are integers). */
export function formatCount(value: number): string {
  return value.toLocaleString('en');
}

/** A long hash or address cut in the middle for narrow cells; the full text goes in a title. */
export function shorten(text: string | null | undefined, keep = 10): string {
  if (!text) return '—';
  return text.length <= keep * 2 + 1 ? text : `${text.slice(0, keep)}…${text.slice(-keep + 2)}`;
}

/**
 * A decimal amount without the zeros the API pads it with (`0.250000000000000000` → `0.25`, `12.5000` →
 * `12.5`, `3.000` → `3`). Text in, text out: a double would round the digits a token can have.
 */
export function trimAmount(amount: string): string {
  if (!/^-?\d+\.\d+$/.test(amount)) return amount;
  return amount.replace(/0+$/, '').replace(/\.$/, '');
}

/** Base units (sun, satoshis) as a decimal string with `decimals` digits after the point, trimmed. */
export function fromBaseUnits(units: string, decimals: number): string {
  if (!/^\d+$/.test(units) || decimals === 0) return units;
  const padded = units.padStart(decimals + 1, '0');
  return trimAmount(`${padded.slice(0, -decimals)}.${padded.slice(-decimals)}`);
}

/** The coin of each chain, for amounts and balances. */
export const COINS: Record<string, string> = {
  tron: 'TRX',
  ethereum: 'ETH',
  bsc: 'BNB',
  polygon: 'POL',
  arbitrum: 'ETH',
  solana: 'SOL',
  bitcoin: 'BTC',
};

/** A history row's type in words: the API's `default` (Chaingateway's name) is a native coin transfer. */
export function transactionType(chain: string, type: string): string {
  if (type === 'default') return `${COINS[chain] ?? 'Coin'} transfer`;
  if (type === 'raw') return 'Signed transaction';
  return type;
}

const BITCOIN_ADDRESS = /^(?:(?:bc|tb|bcrt)1[02-9ac-hj-np-z]{8,87}|[123mn][1-9A-HJ-NP-Za-km-z]{25,34})$/;

/** Whether a history row's `from` names a Bitcoin HD wallet (its send records the wallet, not an address). */
export function isWalletSource(chain: string, from: string | null): boolean {
  return chain === 'bitcoin' && from !== null && !BITCOIN_ADDRESS.test(from);
}
