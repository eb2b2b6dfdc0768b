import { Histogram, type MetricObjectWithValues, type MetricValueWithName, type Registry } from 'prom-client';

/** The labels of a series, and `le` on its buckets as Prometheus reads them. */
type DurationLabel = 'method' | 'route' | 'status' | 'le';

const NAME = 'switchyard_http_request_duration_seconds';
const HELP = 'HTTP request duration by method, route and status';
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One method, route and status: how many answers fell in each bucket (not cumulative), their sum and count. */
interface Series {
  labels: { method: string; route: string; status: string };
  inBucket: Float64Array;
  sum: number;
  count: number;
}

/**
 * Request duration by method, route pattern (never the raw URL, which would explode the label set) and
 * status, as prom-client's Histogram exposes it, counted in plain arrays: an answer costs a map lookup and
 * two additions, where prom-client checks and hashes the labels on every observation. The cumulative
 * buckets are worked out when the metrics are read.
 */
export class RequestDurations extends Histogram<DurationLabel> {
  readonly #series = new Map<string, Series>();
  /** The same histogram as prom-client describes it, never observed: the name, help and type it reports. */
  readonly #described = new Histogram({ name: NAME, help: HELP, buckets: BUCKETS, registers: [] });

  constructor(registry: Registry) {
    super({
      name: NAME,
      help: HELP,
      labelNames: ['method', 'route', 'status'],
      buckets: BUCKETS,
      registers: [registry],
    });
  }

  record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      series = {
        labels: { method, route, status: String(status) },
        inBucket: new Float64Array(BUCKETS.length),
        sum: 0,
        count: 0,
      };
      this.#series.set(key, series);
    }
    // A plain loop: this runs on every answer, and a callback would be made for each.
    for (let bucket = 0; bucket < BUCKETS.length; bucket++) {
      if (seconds <= BUCKETS[bucket]!) {
        series.inBucket[bucket]! += 1;
        break;
      }
    }
    series.sum += seconds;
    series.count += 1;
  }

  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<DurationLabel>>> {
    const values = this.#values().map(({ labels, shared, value, metricName }) => ({
      labels: { ...shared, ...labels },
      value,
      metricName,
    }));
    return { ...(await this.#described.get()), values };
  }

  /**
   * What the registry reads for the text format (prom-client's Histogram has this second form): each
   * value's own labels (`le`) apart from its series' labels, which the registry writes after them.
   */
  async getForPromString() {
    const values = this.#values().map(({ labels, shared, value, metricName }) => ({
      labels,
      sharedLabels: shared,
      value,
      metricName,
    }));
    return { ...(await this.#described.get()), values };
  }

  override reset(): void {
    // prom-client's constructor resets the metric before this class's fields exist.
    if (#series in this) this.#series.clear();
  }

  /** Each series' cumulative buckets, `+Inf`, sum and count, in the order Prometheus's text format lists them. */
  #values(): {
    labels: { le?: number | string };
    shared: Series['labels'];
    value: number;
    metricName: string;
  }[] {
    const values = [];
    for (const { labels: shared, inBucket, sum, count } of this.#series.values()) {
      let below = 0;
      for (const [i, bound] of BUCKETS.entries()) {
        below += inBucket[i] ?? 0;
        values.push({ labels: { le: bound }, shared, value: below, metricName: `${NAME}_bucket` });
      }
      values.push(
        { labels: { le: '+Inf' }, shared, value: count, metricName: `${NAME}_bucket` },
        { labels: {}, shared, value: sum, metricName: `${NAME}_sum` },
        { labels: {}, shared, value: count, metricName: `${NAME}_count` },
      );
    }
    return values;
  }
}
