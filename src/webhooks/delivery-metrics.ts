import { Counter, Histogram, type Registry } from 'prom-client';
import type { AttemptResult, Verdict } from './delivery-attempt.ts';
import { sharedMetric } from './shared-metric.ts';

/** The deliverer's Prometheus series, registered once per registry (shared-metric.ts). */
export class DeliveryMetrics {
  private readonly deliveries: Counter<'outcome'>;
  private readonly duration: Histogram;
  private readonly blockToDelivery: Histogram;

  constructor(registry: Registry) {
    this.deliveries = sharedMetric(
      registry,
      'switchyard_webhook_deliveries_total',
      (place) =>
        new Counter({
          ...place,
          help: 'Webhook delivery attempts by outcome (delivered, failed, retry_scheduled)',
          labelNames: ['outcome'] as const,
        }),
    );
    this.duration = sharedMetric(
      registry,
      'switchyard_webhook_delivery_duration_seconds',
      (place) =>
        new Histogram({
          ...place,
          help: 'Time from sending a webhook to having its response (or error)',
          buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
        }),
    );
    this.blockToDelivery = sharedMetric(
      registry,
      'switchyard_block_to_delivery_seconds',
      (place) =>
        new Histogram({
          ...place,
          help: "Time from a transfer's block to its webhook being delivered",
          buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800, 3600, 86_400],
        }),
    );
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
