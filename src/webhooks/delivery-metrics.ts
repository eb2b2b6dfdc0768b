import { Counter, Histogram, type Registry } from 'prom-client';

export interface DeliveryMetrics {
  deliveries: Counter<'outcome'>;
  duration: Histogram;
  blockToDelivery: Histogram;
}

/** Registered once per registry: several deliverers (tests, or one per role) may share it. */
export function deliveryMetrics(registry: Registry): DeliveryMetrics {
  const existing = <T>(name: string) => registry.getSingleMetric(name) as T | undefined;
  return {
    deliveries:
      existing<Counter<'outcome'>>('switchyard_webhook_deliveries_total') ??
      new Counter({
        name: 'switchyard_webhook_deliveries_total',
        help: 'Webhook delivery attempts by outcome (delivered, failed, retry_scheduled)',
        labelNames: ['outcome'] as const,
        registers: [registry],
      }),
    duration:
      existing<Histogram>('switchyard_webhook_delivery_duration_seconds') ??
      new Histogram({
        name: 'switchyard_webhook_delivery_duration_seconds',
        help: 'Time from sending a webhook to having its response (or error)',
        buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
        registers: [registry],
      }),
    blockToDelivery:
      existing<Histogram>('switchyard_block_to_delivery_seconds') ??
      new Histogram({
        name: 'switchyard_block_to_delivery_seconds',
        help: "Time from a transfer's block to its webhook being delivered",
        buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800, 3600, 86_400],
        registers: [registry],
      }),
  };
}
