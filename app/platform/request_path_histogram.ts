/*
| A Prometheus histogram for the series observed on every request (request durations,
| database pool waits), exposed by prom-client's registry exactly as prom-client's
| own Histogram would expose it (tests/unit/request_path_histogram.spec.ts compares
| the text), but cheaper to observe: prom-client validates the labels, builds a hash
| key from them and copies them on every observation, which the profiles of
| `/portal/me` and `POST /oauth/token` put at 1-2 % of a request's CPU. Here an
| observation finds its series by the label values joined in a fixed order, and its
| bucket by a short loop. Labels are the caller's closed sets (operator_metrics.ts).
*/
import type { Registry } from 'prom-client'

interface Series<Label extends string> {
  labels: Record<Label, string>
  /** Observations per bucket (not cumulative), in the order of the upper bounds. */
  counts: number[]
  sum: number
  count: number
}

export class RequestPathHistogram<Label extends string> {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  readonly name: string
  readonly help: string
  readonly labelNames: readonly Label[]
  readonly upperBounds: readonly number[]
  #series = new Map<string, Series<Label>>()

  constructor(options: {
    name: string
    help: string
    labelNames: readonly Label[]
    buckets: readonly number[]
    registers: Registry[]
  }) {
    this.name = options.name
    this.help = options.help
    this.labelNames = options.labelNames
    // As given (ascending), as prom-client takes its buckets.
    this.upperBounds = options.buckets
    for (const registry of options.registers) registry.registerMetric(this as never)
  }

  observe(labels: Record<Label, string>, value: number) {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`)
    let key = ''
    for (const name of this.labelNames) key += `${labels[name]}\u0000`
    let series = this.#series.get(key)
    if (!series) {
      const own = {} as Record<Label, string>
      for (const name of this.labelNames) own[name] = labels[name]
      series = { labels: own, counts: this.upperBounds.map(() => 0), sum: 0, count: 0 }
      this.#series.set(key, series)
    }
    const bucket = this.upperBounds.findIndex((bound) => value <= bound)
    if (bucket !== -1) series.counts[bucket] += 1
    series.sum += value
    series.count += 1
  }

  reset() {
    this.#series.clear()
  }

  /** The series as prom-client's registry reads a metric: cumulative buckets, +Inf, sum, count. */
  async get() {
    const bucket = `${this.name}_bucket`
    const values: Array<{
      labels: Record<string, string | number>
      sharedLabels: Record<Label, string>
      value: number
      metricName: string
    }> = []
    for (const series of this.#series.values()) {
      let cumulative = 0
      this.upperBounds.forEach((bound, index) => {
        cumulative += series.counts[index]
        values.push({
          labels: { le: bound },
          sharedLabels: series.labels,
          value: cumulative,
          metricName: bucket,
        })
      })
      values.push(
        {
          labels: { le: '+Inf' },
          sharedLabels: series.labels,
          value: series.count,
          metricName: bucket,
        },
        {
          labels: {},
          sharedLabels: series.labels,
          value: series.sum,
          metricName: `${this.name}_sum`,
        },
        {
          labels: {},
          sharedLabels: series.labels,
          value: series.count,
          metricName: `${this.name}_count`,
        }
      )
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    }
  }
}
