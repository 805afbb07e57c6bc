// A prom-client Histogram whose hot-path observations cost a few comparisons and three additions.
//
// prom-client's observe() validates and hashes the label set and looks the series up on every
// call (about 1 µs); the queue observes twice per key and the controller once per reconcile.
// Here a caller takes a `recorder(labels)` once, which counts into a plain array; the counts are
// added to the histogram's series when it is read (a scrape, `get()`), so what Prometheus sees is
// the same as if every value had been observed directly. `observe()` still works as usual.
//
// Adding a batch needs prom-client's per-series record ({ labels, bucketValues, sum, count } in
// `hashMap`, unchanged since prom-client 11); the record is reached through the series that the
// public `zero()` creates. The tests compare the output with direct observations, so a change
// there shows up as a failing test rather than as wrong numbers.
import { Histogram, type LabelValues } from "prom-client";

/** Counts one series' observations until the next read. */
export interface HistogramRecorder {
  observe(seconds: number): void;
}

interface SeriesRecord {
  labels: Record<string, string | number>;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

class Pending<T extends string> implements HistogramRecorder {
  /** Non-cumulative counts per bucket, as prom-client keeps them; values above the last bound only count. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(
    readonly labels: LabelValues<T>,
    readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]!++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }

  clear(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

export class BatchedHistogram<T extends string = string> extends Histogram<T> {
  readonly #pending: Pending<T>[] = [];

  /** A recorder for the series `labels` (created at zero now, as Go's WithLabelValues does). */
  recorder(labels: LabelValues<T>): HistogramRecorder {
    let p = this.#pending.find((x) => sameLabels(x.labels, labels));
    if (p === undefined) {
      p = new Pending<T>({ ...labels }, (this as unknown as { upperBounds: number[] }).upperBounds);
      this.#pending.push(p);
      this.zero(labels);
    }
    return p;
  }

  /** What the registry reads for the text format (prom-client calls it when present; untyped there). */
  async getForPromString(): Promise<unknown> {
    this.#flush();
    const base = Histogram.prototype as unknown as { getForPromString(): Promise<unknown> };
    return base.getForPromString.call(this);
  }

  override async get() {
    this.#flush();
    return super.get();
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor calls reset() too, before this class's fields exist.
    if (#pending in this) for (const p of this.#pending) p.clear();
  }

  /** Adds what the recorders counted since the last read to the histogram's series. */
  #flush(): void {
    const map = (this as unknown as { hashMap: Record<string, SeriesRecord> }).hashMap;
    for (const p of this.#pending) {
      if (p.count === 0) continue;
      let series = Object.values(map).find((s) => sameLabels(s.labels, p.labels));
      if (series === undefined) {
        // reset() dropped it: start the series again, as the next direct observe would.
        this.zero(p.labels);
        series = Object.values(map).find((s) => sameLabels(s.labels, p.labels))!;
      }
      for (let i = 0; i < p.bounds.length; i++) {
        const n = p.counts[i]!;
        if (n !== 0) series.bucketValues[p.bounds[i]!] = (series.bucketValues[p.bounds[i]!] ?? 0) + n;
      }
      series.sum += p.sum;
      series.count += p.count;
      p.clear();
    }
  }
}

function sameLabels(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (String(a[k]) !== String(b[k])) return false;
  return true;
}
