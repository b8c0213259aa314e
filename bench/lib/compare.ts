/**
 * Pairs each Agent-Reach scenario with the direct-HTTP one of the same rate and fault level (same run) and adds
 * the latency overhead; merges repeats into medians. Pure.
 */
import { median } from './stats';
import type { ScenarioResult } from './scenario';

export type ComparedResult = ScenarioResult & { p95_overhead_ms?: number | null; repeats: number };

const sameCell = (a: ScenarioResult, b: ScenarioResult) =>
  a.rate_per_min === b.rate_per_min && a.fault_rate === b.fault_rate;

/** P95 of Agent-Reach minus P95 of direct HTTP at the same rate and fault level; null when either is missing. */
export function withOverhead(results: ScenarioResult[]): ComparedResult[] {
  return results.map((result) => {
    if (result.mode !== 'reach') return { ...result, repeats: 1 };
    const direct = results.find((other) => other.mode === 'direct' && sameCell(other, result));
    const overhead = direct && result.p95_ms !== null && direct.p95_ms !== null ? result.p95_ms - direct.p95_ms : null;
    return { ...result, p95_overhead_ms: overhead, repeats: 1 };
  });
}

/** One result per (mode, rate, fault): the median of every number over the repeats (counts too). */
export function medianOfRepeats(runs: ComparedResult[][]): ComparedResult[] {
  const first = runs[0] ?? [];
  return first.map((cell) => {
    const same = runs
      .map((run) => run.find((r) => r.mode === cell.mode && sameCell(r, cell)))
      .filter((r): r is ComparedResult => r !== undefined);
    return {
      ...medianFields(cell, same as unknown as Record<string, unknown>[]),
      repeats: same.length,
    } as unknown as ComparedResult;
  });
}

const KEYS = new Set(['rate_per_min', 'fault_rate', 'repeats']);

/** The cell with each number (also one level down, e.g. cpu_cores) replaced by its median over `same`. */
function medianFields(cell: object, same: Record<string, unknown>[]): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...cell };
  for (const [field, value] of Object.entries(cell)) {
    if (typeof value === 'number' && !KEYS.has(field)) {
      merged[field] = median(same.map((r) => r[field]).filter((n): n is number => typeof n === 'number'));
    } else if (value && typeof value === 'object') {
      merged[field] = medianFields(
        value,
        same.map((r) => (r[field] ?? {}) as Record<string, unknown>),
      );
    }
  }
  return merged;
}
