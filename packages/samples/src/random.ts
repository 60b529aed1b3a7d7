/**
 * A seeded pseudo-random stream (SplitMix32 over a 32-bit counter): the same seed gives the same values on
 * every machine and Node version, so the generated sample tables are byte-for-byte the same data wherever
 * they are made. Math.random and DuckDB's random() would not be.
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A uniform 32-bit unsigned integer. */
  next(): number {
    this.state = (this.state + 0x9e3779b9) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  }

  /** A uniform float in [0, 1). */
  float(): number {
    return this.next() / 4294967296;
  }

  /** A uniform integer in [lo, hi], both included (dbgen's RANDOM(lo, hi)). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }

  /** Amounts in cents drawn uniformly, as dbgen draws money (e.g. -999.99 .. 9999.99). */
  money(loCents: number, hiCents: number): number {
    return this.int(loCents, hiCents) / 100;
  }

  /** An exponential variate with the given mean (trip distances). */
  exponential(mean: number): number {
    return -Math.log(1 - this.float()) * mean;
  }
}
