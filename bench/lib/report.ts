/** The printed table and the JSON file of a benchmark run. */
import { cpus, loadavg } from 'node:os';
import type { ComparedResult } from './compare';

const pct = (rate: number) => `${(rate * 100).toFixed(rate === 1 ? 0 : 2)} %`;
const ms = (value: number | null | undefined) => (value === null || value === undefined ? '—' : `${value}`);

export function printTable(results: ComparedResult[]): void {
  const rows = results.map((r) => ({
    mode: r.mode === 'reach' ? 'Agent-Reach' : 'direct HTTP',
    'msg/min': r.rate_per_min,
    faults: pct(r.fault_rate),
    messages: r.messages,
    terminal: pct(r.terminal_rate),
    processed: pct(r.processed_rate),
    'dup effects': r.duplicate_effects,
    'dup deliveries': r.duplicate_deliveries,
    'p50 ms': ms(r.p50_ms),
    'p95 ms': ms(r.p95_ms),
    'p99 ms': ms(r.p99_ms),
    'p95 overhead': r.mode === 'reach' ? ms(r.p95_overhead_ms) : '',
    'cpu gateway': r.mode === 'reach' ? r.cpu_cores.gateway : '',
    'cpu agents': r.cpu_cores.agents,
  }));
  console.table(rows);
}

export function machine() {
  const [one, five, fifteen] = loadavg().map((load) => Math.round(load * 100) / 100);
  return {
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    shared: true,
    load_average: { one, five, fifteen },
  };
}
