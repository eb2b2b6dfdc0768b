import type { Metric, Registry } from 'prom-client';

/** The name and registry a new metric is made with. */
export interface MetricPlace {
  name: string;
  registers: Registry[];
}

/**
 * The metric `name` on `registry`, made by `create` the first time: several deliverers or watchers of one
 * process (tests, or one per role) share the registry, and a name can be registered only once.
 */
export function sharedMetric<T extends Metric>(
  registry: Registry,
  name: string,
  create: (place: MetricPlace) => T,
): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create({ name, registers: [registry] });
}
