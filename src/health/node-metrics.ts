import { Counter, Gauge, type Registry } from 'prom-client';

const LABELS = ['chain', 'network', 'endpoint'] as const;

export interface EndpointLabels {
  chain: string;
  network: string;
  /** Host (and port) only, never a path or query, which may hold an API key. */
  endpoint: string;
}

/** Prometheus series per node endpoint: the node monitor's probes and failed node calls. */
export class NodeMetrics {
  readonly #up: Gauge<(typeof LABELS)[number]>;
  readonly #height: Gauge<(typeof LABELS)[number]>;
  readonly #latency: Gauge<(typeof LABELS)[number]>;
  readonly #errors: Counter<(typeof LABELS)[number] | 'source'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#up = new Gauge({
      name: 'switchyard_node_up',
      help: 'Whether the endpoint answered its last head probe (1) or not (0)',
      labelNames: LABELS,
      registers,
    });
    this.#height = new Gauge({
      name: 'switchyard_node_head_height',
      help: 'Head block number the endpoint reported at its last successful probe',
      labelNames: LABELS,
      registers,
    });
    this.#latency = new Gauge({
      name: 'switchyard_node_probe_latency_seconds',
      help: 'How long the endpoint took to answer its last head probe',
      labelNames: LABELS,
      registers,
    });
    this.#errors = new Counter({
      name: 'switchyard_node_errors_total',
      help: 'Failed head probes (source=probe) and failed node call attempts (source=call) per endpoint',
      labelNames: [...LABELS, 'source'],
      registers,
    });
  }

  /** Before the first probe: the endpoint is known and not up. */
  register(labels: EndpointLabels): void {
    this.#up.set(labels, 0);
    this.#errors.inc({ ...labels, source: 'probe' }, 0);
    this.#errors.inc({ ...labels, source: 'call' }, 0);
  }

  probeSucceeded(labels: EndpointLabels, height: bigint, latencyMs: number): void {
    this.#up.set(labels, 1);
    this.#height.set(labels, Number(height));
    this.#latency.set(labels, latencyMs / 1000);
  }

  probeFailed(labels: EndpointLabels, latencyMs: number): void {
    this.#up.set(labels, 0);
    this.#latency.set(labels, latencyMs / 1000);
    this.#errors.inc({ ...labels, source: 'probe' });
  }

  callFailed(labels: EndpointLabels): void {
    this.#errors.inc({ ...labels, source: 'call' });
  }
}
