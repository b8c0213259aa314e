/**
 * `npm run bench:delivery`: seed 000's experiment, direct HTTP beside Agent-Reach in one run.
 *
 * Starts the gateway as separate processes (Temporal dev server, FerretDB, api, worker) on free ports with data
 * under /tmp, then for each rate and fault level runs the three-agent pipeline (intent → quality → conclusion)
 * twice: agents calling each other over plain HTTP with a typical retrying client, and SDK agents passing each hop
 * through Agent-Reach. Writes bench/results/delivery.json and delivery.svg (or `--name`).
 *
 *   --rates 500,2000  --faults 0,0.05  --messages 120  --repeats 1  --modes direct,reach
 *   --ramp [--ramp-rates 30,60,120,240,500,1000,2000,4000,6000] [--ramp-messages 60] [--max-overhead-ms 200]
 *   --cpu-profile-dir DIR (V8 CPU profiles of the api and the worker, written when they stop)
 *   --temporal-pragmas journal_mode=wal,synchronous=normal (the default; `none` for Temporal's own)
 *   --temporal-db file|memory (Temporal's SQLite on a file under /tmp, as embedded mode, or in memory)
 *   --cluster [--cluster-workers 2] (the gateway in cluster mode instead: Temporal server and FerretDB on PostgreSQL,
 *     two api replicas behind HAProxy, N workers; docs/cluster.md)
 *   plus the common options of bench/lib/options.ts (--work-ms, --api-key, --env KEY=VALUE, …)
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { medianOfRepeats, withOverhead, type ComparedResult } from '../lib/compare';
import { deliveryChart } from '../lib/chart';
import { COMMON_ARGS, commonOptions, gatewayEnv, type CommonOptions } from '../lib/options';
import { machine, printTable } from '../lib/report';
import { writeResultFile } from '../lib/result-file';
import { runScenario, type Mode, type ScenarioResult } from '../lib/scenario';
import { harnessOptions } from '../lib/harness';
import { BENCH_TEMPORAL_PRAGMAS, pragmaList, startBenchSystem } from '../lib/system';
import { startBenchCluster } from '../lib/cluster-system';
import { progressPrinter } from '../lib/progress';
import { findMaxRate, type RampStep } from '../lib/ramp';

const RESULTS = resolve(__dirname, '../results');

const numbers = (text: string) => text.split(',').map((part) => Number(part.trim()));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      ...COMMON_ARGS,
      rates: { type: 'string', default: '500,2000' },
      faults: { type: 'string', default: '0,0.05' },
      messages: { type: 'string', default: '120' },
      repeats: { type: 'string', default: '1' },
      modes: { type: 'string', default: 'direct,reach' },
      ramp: { type: 'boolean', default: false },
      'ramp-rates': { type: 'string', default: '30,60,120,240,500,1000,2000,4000,6000' },
      'ramp-messages': { type: 'string', default: '60' },
      'max-overhead-ms': { type: 'string', default: '200' },
      name: { type: 'string' },
      'temporal-db': { type: 'string', default: 'file' },
      'cpu-profile-dir': { type: 'string' },
      'temporal-pragmas': { type: 'string', default: BENCH_TEMPORAL_PRAGMAS },
      cluster: { type: 'boolean', default: false },
      'cluster-workers': { type: 'string', default: '2' },
    },
  });
  const common = commonOptions(values);
  const modes = values.modes.split(',') as Mode[];
  const progress = progressPrinter();
  const pragmas = values['temporal-db'] === 'memory' ? [] : pragmaList(values['temporal-pragmas']);
  const workers = Number(values['cluster-workers']);
  const temporal = values.cluster
    ? { gateway: 'cluster', cluster_workers: workers, api_replicas: 2 }
    : { temporal_db: values['temporal-db'], temporal_sqlite_pragmas: pragmas };
  const system = values.cluster
    ? await startBenchCluster({
        env: gatewayEnv(common),
        workers,
        keepData: common.keepData,
        log: (line) => progress(`[cluster] ${line}`),
      })
    : await startBenchSystem({
        env: gatewayEnv(common),
        keepData: common.keepData,
        temporalInMemory: values['temporal-db'] === 'memory',
        temporalPragmas: pragmas,
        ...(values['cpu-profile-dir'] ? { cpuProfileDir: resolve(values['cpu-profile-dir']) } : {}),
        log: (line) => progress(`[system] ${line}`),
      });
  progress(`[system] gateway up at ${system.apiUrl} (data in ${system.dataDir})`, true);
  const harness = harnessOptions(common, system.dataDir, system, progress);
  try {
    if (values.ramp) {
      const steps = await findMaxRate(
        numbers(values['ramp-rates']),
        Number(values['ramp-messages']),
        Number(values['max-overhead-ms']),
        harness,
      );
      finishRamp(steps, common, temporal, values.name ?? 'delivery-ramp');
      return;
    }
    const runs: ComparedResult[][] = [];
    for (let repeat = 0; repeat < Number(values.repeats); repeat++) {
      const results: ScenarioResult[] = [];
      for (const rate of numbers(values.rates)) {
        for (const faultRate of numbers(values.faults)) {
          for (const mode of modes) {
            results.push(
              (await runScenario({ mode, ratePerMin: rate, messages: Number(values.messages), faultRate }, harness))
                .result,
            );
          }
        }
      }
      runs.push(withOverhead(results));
    }
    finishDelivery(runs, common, temporal, values.name ?? 'delivery');
  } finally {
    await system.stop();
  }
}

function settings(common: CommonOptions, temporal: object) {
  const { apiKey, ...rest } = common;
  return { ...rest, api_key: apiKey ? 'set' : 'none', gateway_env: gatewayEnv(common), ...temporal };
}

function finishDelivery(runs: ComparedResult[][], common: CommonOptions, temporal: object, name: string): void {
  const results = medianOfRepeats(runs);
  printTable(results);
  const when = new Date().toISOString();
  const file = writeResultFile(RESULTS, name, {
    benchmark: 'delivery: seed 000 pipeline, direct HTTP vs Agent-Reach',
    when,
    machine: machine(),
    settings: settings(common, temporal),
    results,
    runs,
  });
  const svg = join(RESULTS, `${name}.svg`);
  writeFileSync(
    svg,
    deliveryChart(results, `${when.slice(0, 10)} · ${machine().cpus} shared cores · median of ${runs.length} run(s)`),
  );
  console.log(`written ${file} and ${svg}`);
}

function finishRamp(steps: RampStep[], common: CommonOptions, temporal: object, name: string): void {
  printTable(steps.flatMap((step) => step.results));
  const withinOverhead = steps.filter((step) => step.within_overhead).at(-1)?.rate_per_min ?? null;
  const keepingUp = steps.filter((step) => step.keeps_up).at(-1)?.rate_per_min ?? null;
  console.log(
    `maximum rate within the P95 overhead limit: ${withinOverhead ?? 'none of the tried rates'}; maximum rate kept up with: ${keepingUp ?? 'none'} msg/min`,
  );
  const file = writeResultFile(RESULTS, name, {
    benchmark: 'delivery ramp: highest rate kept up with, and highest within the P95 overhead limit',
    when: new Date().toISOString(),
    machine: machine(),
    settings: settings(common, temporal),
    max_sustained_within_overhead_per_min: withinOverhead,
    max_kept_up_per_min: keepingUp,
    steps,
  });
  console.log(`written ${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
