/**
 * The maximum sustained rate: runs direct HTTP and Agent-Reach at increasing rates (no faults) and stops at the
 * first rate where Agent-Reach's P95 overhead passes the limit, or a message is not processed, or the throughput
 * falls behind the offered rate (the backlog grows), or the driver could not send on time.
 */
import { withOverhead, type ComparedResult } from './compare';
import { runScenario, type HarnessOptions } from './scenario';

export interface RampStep {
  rate_per_min: number;
  ok: boolean;
  why?: string;
  results: ComparedResult[];
}

/** Why a step does not count as sustained, or undefined when it does. Pure. */
export function rampVerdict(reach: ComparedResult, maxOverheadMs: number): string | undefined {
  if (reach.processed_rate < 1 || reach.terminal_rate < 1) return `errors: ${reach.processed} of ${reach.messages} processed, ${reach.terminal} terminal`;
  if (reach.p95_overhead_ms === null || reach.p95_overhead_ms === undefined) return 'no overhead figure';
  if (reach.p95_overhead_ms > maxOverheadMs) return `P95 overhead ${reach.p95_overhead_ms} ms > ${maxOverheadMs} ms`;
  if (reach.throughput_per_min < 0.9 * reach.rate_per_min) return `throughput ${reach.throughput_per_min}/min < 90 % of the offered rate`;
  return undefined;
}

export async function findMaxRate(rates: number[], messages: number, maxOverheadMs: number, harness: HarnessOptions): Promise<RampStep[]> {
  const steps: RampStep[] = [];
  for (const rate of rates) {
    const direct = (await runScenario({ mode: 'direct', ratePerMin: rate, messages, faultRate: 0 }, harness)).result;
    const reach = (await runScenario({ mode: 'reach', ratePerMin: rate, messages, faultRate: 0 }, harness)).result;
    const results = withOverhead([direct, reach]);
    const why = rampVerdict(results[1]!, maxOverheadMs);
    steps.push({ rate_per_min: rate, ok: !why, ...(why ? { why } : {}), results });
    harness.progress(`[ramp] ${rate}/min: ${why ?? 'sustained'}`, true);
    if (why) break;
  }
  return steps;
}
