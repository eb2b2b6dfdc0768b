import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api.ts';
import { COINS, fromBaseUnits, trimAmount } from '../format.ts';

/**
 * The balance route answers per family: a decimal string (EVM), `balance` in the coin (Solana, Bitcoin), or
 * `balance` in base units beside `decimals` (Tron, in sun). Answers the coin amount as text.
 */
export function balanceText(answer: unknown): string | null {
  if (typeof answer === 'string') return trimAmount(answer);
  if (typeof answer !== 'object' || answer === null || !('balance' in answer)) return null;
  const { balance } = answer;
  if (typeof balance !== 'string') return null;
  if ('decimals' in answer && typeof answer.decimals === 'number')
    return fromBaseUnits(balance, answer.decimals);
  return trimAmount(balance);
}

/** One address's balance, read when its row shows (one request each); an error is a dash that says why. */
export function Balance({ chain, address }: { chain: string; address: string }) {
  const [state, setState] = useState<{ text: string } | { error: string } | null>(null);
  useEffect(() => {
    let current = true;
    api
      .get<unknown>(`/api/v2/${encodeURIComponent(chain)}/balances/${encodeURIComponent(address)}`)
      .then((answer) => {
        const text = balanceText(answer);
        if (current) setState(text === null ? { error: 'The gateway answered no balance' } : { text });
      })
      .catch((error) => current && setState({ error: messageOf(error) }));
    return () => {
      current = false;
    };
  }, [chain, address]);
  if (state === null) return <span class="muted">…</span>;
  if ('error' in state)
    return (
      <span title={`Balance not read: ${state.error}`} data-testid="balance">
        —
      </span>
    );
  return (
    <span data-testid="balance">
      {state.text} {COINS[chain] ?? ''}
    </span>
  );
}
