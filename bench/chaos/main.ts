/**
 * `npm run bench:chaos`: the pipeline through Agent-Reach while its processes crash. At set points of the run it
 * SIGKILLs the worker, the api and one agent (each once), and SIGKILLs the Temporal dev server, restarting each at
 * once (Temporal on its SQLite file, the agent with its identity and handled-ids file). Then it checks that every
 * message reached a terminal state and was processed, counts doubled effects, and reports the recovery times.
 * Writes bench/results/chaos.json (or `--name`).
 *
 *   --rate 40 --messages 160 --faults 0 (a rate the gateway keeps up with on a shared 2-core machine)
 *   plus the common options of bench/lib/options.ts
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { harnessOptions } from '../lib/harness';
import { COMMON_ARGS, commonOptions, gatewayEnv } from '../lib/options';
import { completionTimes } from '../lib/outcome';
import { progressPrinter } from '../lib/progress';
import { recoveryOf, type CrashTimes, type Recovery } from '../lib/recovery';
import { machine } from '../lib/report';
import { writeResultFile } from '../lib/result-file';
import { runScenario, type DuringRun } from '../lib/scenario';
import { BENCH_TEMPORAL_PRAGMAS, pragmaList, startBenchSystem, type BenchSystem } from '../lib/system';

const RESULTS = resolve(__dirname, '../results');

/** What is crashed, and when, as a share of the sending window. */
const CRASHES = [
  { target: 'worker', at: 0.1 },
  { target: 'api', at: 0.35 },
  { target: 'agent:quality', at: 0.6 },
  { target: 'temporal', at: 0.85 },
] as const;

type Target = (typeof CRASHES)[number]['target'];

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function crashSchedule(
  system: BenchSystem,
  sendWindowMs: number,
  crashes: Map<Target, CrashTimes>,
  log: (line: string) => void,
): DuringRun {
  return async ({ agents, startedAt }) => {
    for (const crash of CRASHES) {
      const due = startedAt + crash.at * sendWindowMs;
      if (due > Date.now()) await sleep(due - Date.now());
      const killedAt = Date.now();
      if (crash.target === 'agent:quality') {
        await agents.quality.kill();
        await agents.quality.start();
      } else {
        await system.kill(crash.target);
        await system.start(crash.target);
      }
      const upAt = Date.now();
      crashes.set(crash.target, { killedAt, upAt });
      log(
        `[chaos] ${crash.target} killed at ${Math.round((killedAt - startedAt) / 1000)} s, back after ${((upAt - killedAt) / 1000).toFixed(1)} s`,
      );
    }
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      ...COMMON_ARGS,
      rate: { type: 'string', default: '40' },
      messages: { type: 'string', default: '160' },
      faults: { type: 'string', default: '0' },
      name: { type: 'string', default: 'chaos' },
      'temporal-pragmas': { type: 'string', default: BENCH_TEMPORAL_PRAGMAS },
    },
  });
  const common = commonOptions(values);
  const rate = Number(values.rate);
  const messages = Number(values.messages);
  const progress = progressPrinter();
  const pragmas = pragmaList(values['temporal-pragmas']);
  const system = await startBenchSystem({
    env: gatewayEnv(common),
    keepData: common.keepData,
    temporalPragmas: pragmas,
    log: (line) => progress(`[system] ${line}`, true),
  });
  const crashes = new Map<Target, CrashTimes>();
  try {
    const harness = {
      ...harnessOptions(common, system.dataDir, system, progress),
      stallMs: 90_000,
      drainTimeoutMs: 300_000,
    };
    const sendWindowMs = (messages * 60_000) / rate;
    const { result, raw } = await runScenario(
      { mode: 'reach', ratePerMin: rate, messages, faultRate: Number(values.faults) },
      harness,
      crashSchedule(system, sendWindowMs, crashes, (line) => progress(line, true)),
    );
    const doneAt = completionTimes(raw.events);
    const recoveries: Record<string, Recovery> = {};
    for (const [target, times] of crashes) recoveries[target] = recoveryOf(times, raw.sentAt, doneAt);
    const lost = [...raw.sentAt.keys()].filter((key) => !doneAt.has(key));
    const verdict = {
      every_message_terminal: result.terminal === result.messages,
      every_message_processed: result.processed === result.messages,
      no_doubled_effect: result.duplicate_effects === 0,
      not_processed: lost.slice(0, 20),
    };
    console.table(recoveries);
    console.log(
      `${result.processed}/${result.messages} processed, ${result.terminal} terminal, ${result.duplicate_effects} doubled effects, ${result.duplicate_deliveries} duplicate deliveries; p50 ${result.p50_ms} ms, p95 ${result.p95_ms} ms`,
    );
    const file = writeResultFile(RESULTS, values.name, {
      benchmark: 'chaos: worker, api, an agent and the Temporal dev server killed mid-run',
      when: new Date().toISOString(),
      machine: machine(),
      settings: {
        rate_per_min: rate,
        messages,
        fault_rate: Number(values.faults),
        crashes: CRASHES,
        ...common,
        apiKey: undefined,
        gateway_env: gatewayEnv(common),
        temporal_sqlite_pragmas: pragmas,
      },
      verdict,
      recoveries,
      result,
    });
    console.log(`written ${file}`);
    if (!verdict.every_message_terminal || !verdict.every_message_processed || !verdict.no_doubled_effect)
      process.exitCode = 1;
  } finally {
    await system.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
