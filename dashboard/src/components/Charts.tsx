/**
 * Two small charts drawn as SVG by hand: no chart library (the page stays a few dozen KiB) and no inline
 * style (the gateway's CSP allows none): sizes are SVG attributes, colours come from classes in styles.css.
 * Each chart has a text summary beside it, and a title per bar for the figures behind it.
 */
import { formatCount } from '../format.ts';

export interface DeliveryHour {
  hour: string;
  delivered: number;
  failed: number;
  retried: number;
  latency_ms: { average: number | null; max: number | null };
}

export interface RequestDay {
  day: string;
  requests: number;
}

const WIDTH = 600;
const HEIGHT = 140;
const PAD = { left: 40, right: 8, top: 8, bottom: 20 };
const PLOT_W = WIDTH - PAD.left - PAD.right;
const PLOT_H = HEIGHT - PAD.top - PAD.bottom;

/** A y for `value` of `max` inside the plot (max 0 draws everything on the axis). */
const yOf = (value: number, max: number) => PAD.top + PLOT_H - (max === 0 ? 0 : (value / max) * PLOT_H);

/** A round number at or above `value`, for the top of an axis. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(value));
  for (const factor of [1, 2, 5, 10]) if (value <= factor * step) return factor * step;
  return 10 * step;
}

function seconds(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

const hourLabel = (iso: string) =>
  new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

function YAxis({ max, unit }: { max: number; unit: string }) {
  return (
    <g class="chart-axis">
      <line x1={PAD.left} x2={WIDTH - PAD.right} y1={yOf(0, max)} y2={yOf(0, max)} />
      <text x={PAD.left - 4} y={yOf(max, max) + 8} text-anchor="end">
        {formatCount(max)}
        {unit}
      </text>
      <text x={PAD.left - 4} y={yOf(0, max)} text-anchor="end">
        0
      </text>
    </g>
  );
}

/** Deliveries per hour (delivered over failed, retries marked) and the latency from block to delivery. */
export function DeliveryHealthChart({ hours }: { hours: DeliveryHour[] }) {
  const total = (key: 'delivered' | 'failed' | 'retried') => hours.reduce((sum, hour) => sum + hour[key], 0);
  const max = niceMax(Math.max(...hours.map((hour) => hour.delivered + hour.failed)));
  const slot = PLOT_W / Math.max(1, hours.length);
  const bar = Math.max(2, slot * 0.7);
  const latencies = hours.flatMap((hour, i) =>
    hour.latency_ms.average === null
      ? []
      : [{ i, average: hour.latency_ms.average, max: hour.latency_ms.max }],
  );
  const slowest = Math.max(0, ...latencies.map((point) => point.max ?? point.average));
  const latencyMax = niceMax(slowest / 1000) * 1000;
  const averages = latencies.map((point) => point.average);
  const average = averages.length === 0 ? null : averages.reduce((a, b) => a + b, 0) / averages.length;
  const x = (i: number) => PAD.left + i * slot + (slot - bar) / 2;
  return (
    <figure class="chart" data-testid="delivery-health">
      <figcaption>
        Last {hours.length} hours:{' '}
        <span class="legend legend-ok">
          <span data-testid="health-delivered">{total('delivered')}</span> delivered
        </span>
        ,{' '}
        <span class="legend legend-failed">
          <span data-testid="health-failed">{total('failed')}</span> failed
        </span>
        ,{' '}
        <span class="legend legend-retried">
          <span data-testid="health-retried">{total('retried')}</span> retried
        </span>
        ; block to delivery <span data-testid="health-latency">{seconds(average)}</span> on average
        {slowest > 0 ? `, at most ${seconds(slowest)}` : ''}.
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label="Delivery attempts per hour">
        <YAxis max={max} unit="" />
        {hours.map((hour, i) => {
          const title = `${hourLabel(hour.hour)}: ${hour.delivered} delivered, ${hour.failed} failed, ${hour.retried} retries`;
          const okTop = yOf(hour.delivered, max);
          const failedTop = yOf(hour.delivered + hour.failed, max);
          return (
            <g key={hour.hour}>
              <title>{title}</title>
              <rect class="bar-ok" x={x(i)} y={okTop} width={bar} height={yOf(0, max) - okTop} />
              <rect class="bar-failed" x={x(i)} y={failedTop} width={bar} height={okTop - failedTop} />
              {hour.retried > 0 && (
                <circle class="mark-retried" cx={x(i) + bar / 2} cy={failedTop - 5} r={3.5} />
              )}
              {i % 6 === 0 && (
                <text class="chart-axis" x={x(i)} y={HEIGHT - 4}>
                  {hourLabel(hour.hour)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT / 2 + 12}`}
        role="img"
        aria-label="Block to delivery latency per hour"
      >
        <g class="chart-axis">
          <text x={PAD.left - 4} y={PAD.top + 8} text-anchor="end">
            {seconds(latencyMax)}
          </text>
          <line x1={PAD.left} x2={WIDTH - PAD.right} y1={HEIGHT / 2} y2={HEIGHT / 2} />
        </g>
        {latencies.map((point) => {
          const y = (ms: number) => PAD.top + (HEIGHT / 2 - PAD.top) * (1 - ms / latencyMax);
          return (
            <g key={point.i}>
              <title>{`${hourLabel(hours[point.i]?.hour ?? '')}: ${seconds(point.average)} on average, at most ${seconds(point.max)}`}</title>
              {point.max !== null && (
                <line
                  class="latency-range"
                  x1={x(point.i) + bar / 2}
                  x2={x(point.i) + bar / 2}
                  y1={y(point.max)}
                  y2={y(point.average)}
                />
              )}
              <circle class="latency-point" cx={x(point.i) + bar / 2} cy={y(point.average)} r={3.5} />
            </g>
          );
        })}
        <text class="chart-axis" x={PAD.left} y={HEIGHT / 2 + 11}>
          Block to delivery: average (dot) and slowest (line) per hour
        </text>
      </svg>
    </figure>
  );
}

/**
 * Requests per day (bars), what the current period has used so far (the line) and the period's quota (the
 * dashed line; none for an unlimited plan).
 */
export function RequestUsageChart(props: { days: RequestDay[]; quota: number | null; periodStart: string }) {
  const { days, quota } = props;
  const periodDay = props.periodStart.slice(0, 10);
  let used = 0;
  const cumulative = days.map((day) => {
    if (day.day >= periodDay) used += day.requests;
    return day.day >= periodDay ? used : null;
  });
  const max = niceMax(Math.max(quota ?? 0, used, ...days.map((day) => day.requests)));
  const slot = PLOT_W / Math.max(1, days.length);
  const bar = Math.max(2, slot * 0.7);
  const x = (i: number) => PAD.left + i * slot + (slot - bar) / 2;
  const today = days.at(-1)?.requests ?? 0;
  const line = cumulative
    .map((value, i) => (value === null ? null : `${x(i) + bar / 2},${yOf(value, max)}`))
    .filter(Boolean)
    .join(' ');
  return (
    <figure class="chart" data-testid="usage-chart">
      <figcaption>
        Today <span data-testid="usage-today">{formatCount(today)}</span> requests; this period{' '}
        <span data-testid="usage-period">{formatCount(used)}</span>
        {quota === null ? ' (unlimited)' : ` of ${formatCount(quota)}`}.
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label="Requests per day against the quota">
        <YAxis max={max} unit="" />
        {quota !== null && (
          <line
            class="quota-line"
            x1={PAD.left}
            x2={WIDTH - PAD.right}
            y1={yOf(quota, max)}
            y2={yOf(quota, max)}
          />
        )}
        {days.map((day, i) => (
          <g key={day.day}>
            <title>{`${day.day}: ${formatCount(day.requests)} requests`}</title>
            <rect
              class="bar-usage"
              data-testid="usage-bar"
              x={x(i)}
              y={yOf(day.requests, max)}
              width={bar}
              height={yOf(0, max) - yOf(day.requests, max)}
            />
            {i % 7 === 0 && (
              <text class="chart-axis" x={x(i)} y={HEIGHT - 4}>
                {day.day.slice(5)}
              </text>
            )}
          </g>
        ))}
        {line && <polyline class="usage-line" points={line} />}
      </svg>
    </figure>
  );
}
