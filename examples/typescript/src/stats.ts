// Latency statistics over request durations in milliseconds.

/** Sorts durations from fastest to slowest (a new array). */
export function ascending(durations: readonly number[]): number[] {
  return [...durations].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Nearest-rank percentile of an ascending array: the smallest value with at
 * least p% of the values at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(rank - 1, 0)] ?? NaN;
}
