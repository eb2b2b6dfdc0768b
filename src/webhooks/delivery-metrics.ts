import { Counter, Histogram, type Registry } from 'prom-client';
import type { AttemptResult, Verdict } from './delivery-attempt.ts';

/**
 * The deliverer's Prometheus series. Registered once per registry: several deliverers (tests, or one
 * per role) may share it.
 */
export class DeliveryMetrics {
  private readonly deliveries: Counter<'outcome'>;
  private readonly duration: Histogram;
  private readonly blockToDelivery: Histogram;

  constructor(registry: Registry) {
    const existing = <T>(name: string) => registry.getSingleMetric(name) as T | undefined;
    this.deliveries =
      existing<Counter<'outcome'>>('switchyard_webhook_deliveries_total') ??
      new Counter({
        name: 'switchyard_webhook_deliveries_total',
        help: 'Webhook delivery attempts by outcome (delivered, failed, retry_scheduled)',
        labelNames: ['outcome'] as const,
        registers: [registry],
      });
    this.duration =
      existing<Histogram>('switchyard_webhook_delivery_duration_seconds') ??
      new Histogram({
        name: 'switchyard_webhook_delivery_duration_seconds',
        help: 'Time from sending a webhook to having its response (or error)',
        buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
        registers: [registry],
      });
    this.blockToDelivery =
      existing<Histogram>('switchyard_block_to_delivery_seconds') ??
      new Histogram({
        name: 'switchyard_block_to_delivery_seconds',
        help: "Time from a transfer's block to its webhook being delivered",
        buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800, 3600, 86_400],
        registers: [registry],
      });
  }

  /** A notification failed without a request: its webhook is deleted or disabled. */
  countUnsent(): void {
    this.deliveries.inc({ outcome: 'failed' });
  }

  /** One attempt's outcome and duration; for a delivery also the time since the transfer's block. */
  observeAttempt(attempt: AttemptResult, verdict: Verdict, blockTime: string): void {
    this.deliveries.inc({ outcome: verdict.outcome });
    this.duration.observe(attempt.durationMs / 1000);
    if (verdict.outcome !== 'delivered') return;
    const sinceBlock = (attempt.finishedAt.getTime() - Date.parse(blockTime)) / 1000;
    if (Number.isFinite(sinceBlock)) this.blockToDelivery.observe(Math.max(0, sinceBlock));
  }
}
