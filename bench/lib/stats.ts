/** Percentiles for benchmark reports. */
export function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function summary(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    n: sorted.length,
    median_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    min_ms: round(sorted[0]!),
    max_ms: round(sorted.at(-1)!),
  };
}

/** P50 / P95 / P99 rounded to whole ms (null when there are no values). */
export function latencyPercentiles(values: number[]): {
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
} {
  if (values.length === 0) return { p50_ms: null, p95_ms: null, p99_ms: null };
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50_ms: Math.round(percentile(sorted, 50)),
    p95_ms: Math.round(percentile(sorted, 95)),
    p99_ms: Math.round(percentile(sorted, 99)),
  };
}

/** The median of a list (the lower middle for an even count); undefined when empty. */
export function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  return [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
}
