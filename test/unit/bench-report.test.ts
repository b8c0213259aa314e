import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { medianOfRepeats, withOverhead } from '../../bench/lib/compare';
import { cpuTicksFromStat } from '../../bench/lib/cpu';
import { rampVerdict } from '../../bench/lib/ramp';
import { recoveryOf } from '../../bench/lib/recovery';
import type { ScenarioResult } from '../../bench/lib/scenario';
import { latencyPercentiles, median } from '../../bench/lib/stats';

function result(mode: 'direct' | 'reach', p95: number | null, extra: Partial<ScenarioResult> = {}): ScenarioResult {
  return {
    mode,
    rate_per_min: 500,
    fault_rate: 0,
    messages: 10,
    terminal: 10,
    processed: 10,
    failed: 0,
    terminal_rate: 1,
    processed_rate: 1,
    duplicate_effects: 0,
    duplicate_deliveries: 0,
    p50_ms: 1,
    p95_ms: p95,
    p99_ms: 1,
    duration_s: 1,
    throughput_per_min: 500,
    send_lateness_p95_ms: 0,
    cpu_seconds: {},
    cpu_wait_seconds: {},
    cpu_cores: { gateway: 1, agents: 0.1, driver: 0.1 },
    ...extra,
  };
}

describe('bench report', () => {
  it('bench report - the overhead is Agent-Reach P95 minus direct P95 of the same cell', () => {
    const [direct, reach, lonely] = withOverhead([
      result('direct', 100),
      result('reach', 340),
      result('reach', 50, { rate_per_min: 9 }),
    ]);
    assert.equal(direct!.p95_overhead_ms, undefined);
    assert.equal(reach!.p95_overhead_ms, 240);
    assert.equal(lonely!.p95_overhead_ms, null);
  });

  it('bench report - repeats merge into medians, nested CPU figures too', () => {
    const runs = [100, 300, 200].map((p95) =>
      withOverhead([result('reach', p95, { cpu_cores: { gateway: p95 / 100, agents: 0, driver: 0 } })]),
    );
    const [merged] = medianOfRepeats(runs);
    assert.equal(merged!.p95_ms, 200);
    assert.equal(merged!.cpu_cores.gateway, 2);
    assert.equal(merged!.repeats, 3);
    assert.equal(merged!.rate_per_min, 500);
  });

  it('bench report - a ramp step is sustained only without errors, within the overhead, keeping up', () => {
    const ok = { ...result('reach', 300), p95_overhead_ms: 150, repeats: 1 };
    assert.equal(rampVerdict(ok, 200), undefined);
    assert.match(rampVerdict({ ...ok, p95_overhead_ms: 250 }, 200)!, /overhead 250 ms/);
    assert.match(rampVerdict({ ...ok, processed: 9, processed_rate: 0.9 }, 200)!, /errors/);
    assert.match(rampVerdict({ ...ok, throughput_per_min: 300 }, 200)!, /throughput/);
  });

  it('bench report - CPU ticks come from /proc stat even with spaces in the name', () => {
    const stat = '4242 (node (tsx) x) S 1 2 3 4 5 6 7 8 9 10 150 25 0 0 20 0 9 0';
    assert.equal(cpuTicksFromStat(stat), 175);
  });

  it('bench report - recovery: first completion sent after the kill, last in-flight completion, lost when one never completes', () => {
    const sentAt = new Map([
      ['done-before', 0],
      ['in-flight', 500],
      ['after', 1_500],
    ]);
    const doneAt = new Map([
      ['done-before', 800],
      ['in-flight', 4_000],
      ['after', 3_000],
    ]);
    assert.deepEqual(recoveryOf({ killedAt: 1_000, upAt: 2_000 }, sentAt, doneAt), {
      restart_s: 1,
      in_flight_at_kill: 1,
      first_progress_s: 2,
      all_in_flight_done_s: 3,
    });
    doneAt.delete('in-flight');
    assert.equal(recoveryOf({ killedAt: 1_000, upAt: 2_000 }, sentAt, doneAt).all_in_flight_done_s, null);
  });

  it('bench report - percentiles and median', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    assert.deepEqual(latencyPercentiles(values), { p50_ms: 50, p95_ms: 95, p99_ms: 99 });
    assert.deepEqual(latencyPercentiles([]), { p50_ms: null, p95_ms: null, p99_ms: null });
    assert.equal(median([3, 1, 2]), 2);
  });
});
