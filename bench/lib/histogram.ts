/**
 * HDR-style latency histogram: log-linear buckets with 1024 linear sub-buckets per power of two,
 * so every recorded value keeps 3 significant decimal digits (relative error < 0.1%) from 1 unit
 * up to 2^42 units, in a fixed 64 KiB of counters. Recording is a few integer operations and no
 * allocation, so it can sit inside a timed loop. Values are integers in any unit (the benches use
 * nanoseconds for the matching core and microseconds elsewhere).
 */
const SUB_BITS = 10;
const SUB = 1 << SUB_BITS; // 1024
const MAX_EXP = 32; // values up to 2^(SUB_BITS+MAX_EXP) units

export class Histogram {
  private readonly counts = new Float64Array(SUB * 2 + SUB * MAX_EXP);
  count = 0;
  min = Infinity;
  max = 0;
  private sum = 0;

  static indexOf(v: number): number {
    if (v < SUB * 2) return v;
    // e = floor(log2(v)) - SUB_BITS, computed without Math.log2 on the hot path for < 2^32.
    const e = (v < 4294967296 ? 31 - Math.clz32(v) : Math.floor(Math.log2(v))) - SUB_BITS;
    return SUB * e + Math.floor(v / 2 ** e);
  }

  /** The largest value that falls in bucket `idx` (what HdrHistogram reports as "highest equivalent"). */
  static upperOf(idx: number): number {
    if (idx < SUB * 2) return idx;
    const e = Math.floor(idx / SUB) - 1;
    const m = idx - SUB * e;
    return (m + 1) * 2 ** e - 1;
  }

  record(value: number): void {
    const v = value < 0 ? 0 : Math.round(value);
    let idx = Histogram.indexOf(v);
    if (idx >= this.counts.length) idx = this.counts.length - 1;
    this.counts[idx]++;
    this.count++;
    this.sum += v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  /**
   * Records `value`, and when it exceeds the expected interval between two requests of an
   * open-loop schedule also the samples the stalled requests would have produced
   * (HdrHistogram's recordValueWithExpectedInterval: correction for coordinated omission).
   */
  recordCorrected(value: number, expectedInterval: number): void {
    this.record(value);
    if (expectedInterval <= 0) return;
    for (let missing = value - expectedInterval; missing >= expectedInterval; missing -= expectedInterval) this.record(missing);
  }

  merge(other: Histogram): void {
    for (let i = 0; i < this.counts.length; i++) this.counts[i] += other.counts[i];
    this.count += other.count;
    this.sum += other.sum;
    if (other.min < this.min) this.min = other.min;
    if (other.max > this.max) this.max = other.max;
  }

  mean(): number {
    return this.count ? this.sum / this.count : NaN;
  }

  /** Value at quantile q (0..1): the highest value equivalent to the bucket holding the q-th sample. */
  quantile(q: number): number {
    if (!this.count) return NaN;
    const target = Math.max(1, Math.ceil(this.count * q));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i];
      if (seen >= target) return Math.min(Histogram.upperOf(i), this.max);
    }
    return this.max;
  }
}
