import { formatCount } from '../format.ts';

/**
 * What is left of one quota this period, as a meter of left over total; `null` totals are unlimited.
 * A meter needs no inline style, so it passes the gateway's strict CSP.
 */
export function QuotaBar({ name, left, total }: { name: string; left: number | null; total: number | null }) {
  const key = name.toLowerCase();
  if (total === null || left === null) {
    return (
      <div class="quota">
        <div class="quota-head">
          <span class="quota-name">{name}</span>
          <span data-testid={`quota-left-${key}`}>Unlimited</span>
        </div>
      </div>
    );
  }
  const low = Math.max(1, Math.floor(total / 5));
  return (
    <div class="quota">
      <div class="quota-head">
        <span class="quota-name" id={`quota-${key}`}>
          {name}
        </span>
        <span>
          <span data-testid={`quota-left-${key}`}>{formatCount(left)}</span> of {formatCount(total)} left
        </span>
      </div>
      <meter
        aria-labelledby={`quota-${key}`}
        min={0}
        max={total}
        value={left}
        low={low}
        high={total}
        optimum={total}
      >
        {formatCount(left)} of {formatCount(total)}
      </meter>
    </div>
  );
}
