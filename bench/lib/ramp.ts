/**
 * The maximum sustained rate: runs direct HTTP and Agent-Reach at increasing rates (no faults). Two verdicts per
 * step, both reported:
 * - keeps up: every message processed and settled, and the throughput at least 90 % of the offered rate;
 * - within the overhead: keeps up, and Agent-Reach's P95 is at most `maxOverheadMs` above direct HTTP's.
 * The ramp stops at the first rate that does not keep up.
 */
import { withOverhead, type ComparedResult } from './compare';
import { runScenario, type HarnessOptions } from './scenario';

export interface RampStep {
  rate_per_min: number;
  keeps_up: boolean;
  within_overhead: boolean;
  why?: string;
  results: ComparedResult[];
}

/** Why a step does not keep up, or undefined when it does. Pure. */
export function keepUpVerdict(reach: ComparedResult): string | undefined {
  if (reach.processed_rate < 1 || reach.terminal_rate < 1)
    return `errors: ${reach.processed} of ${reach.messages} processed, ${reach.terminal} terminal`;
  if (reach.throughput_per_min < 0.9 * reach.rate_per_min)
    return `throughput ${reach.throughput_per_min}/min < 90 % of the offered rate`;
  return undefined;
}

/** Why a step misses the overhead limit (or does not keep up), or undefined. Pure. */
export function rampVerdict(reach: ComparedResult, maxOverheadMs: number): string | undefined {
  const behind = keepUpVerdict(reach);
  if (behind) return behind;
  if (reach.p95_overhead_ms === null || reach.p95_overhead_ms === undefined) return 'no overhead figure';
  if (reach.p95_overhead_ms > maxOverheadMs) return `P95 overhead ${reach.p95_overhead_ms} ms > ${maxOverheadMs} ms`;
  return undefined;
}

export async function findMaxRate(
  rates: number[],
  messages: number,
  maxOverheadMs: number,
  harness: HarnessOptions,
): Promise<RampStep[]> {
  const steps: RampStep[] = [];
  for (const rate of rates) {
    const direct = (await runScenario({ mode: 'direct', ratePerMin: rate, messages, faultRate: 0 }, harness)).result;
    const reach = (await runScenario({ mode: 'reach', ratePerMin: rate, messages, faultRate: 0 }, harness)).result;
    const results = withOverhead([direct, reach]);
    const behind = keepUpVerdict(results[1]!);
    const why = rampVerdict(results[1]!, maxOverheadMs);
    steps.push({ rate_per_min: rate, keeps_up: !behind, within_overhead: !why, ...(why ? { why } : {}), results });
    harness.progress(`[ramp] ${rate}/min: ${why ?? 'sustained within the overhead limit'}`, true);
    if (behind) break;
  }
  return steps;
}
