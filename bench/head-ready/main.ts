/**
 * `npm run bench:head-ready [-- --sets zh-routing,clinc150] [--threads 1,2] [--repeats 3]`
 * How soon a catalogue's head is ready after it is registered, through the api's path (the Router as
 * `createRouter` builds it, default settings), for several ROUTER_EMBEDDING_THREADS values side by side: each repeat
 * runs every value in turn, so the load of a shared machine hits them alike. Every run starts from a fresh matcher
 * (nothing embedded but the generic out-of-scope text, as in an api that has been up a while) and registers the
 * whole catalogue at once. Per run: wall ms to ready (the first heads serve) and to full (every head serves: the late
 * ones joined), the process's CPU ms to each (all threads), and the ms its threads waited for a core (/proc schedstat:
 * the other tenants' share). Medians over repeats.
 * Writes bench/results/head-ready.json.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chooseMatcher, DEFAULT_LEXICAL_WEIGHT, DEFAULT_LOCAL_MODELS } from '../../router/create-matcher';
import { decisionSettings } from '../../router/create-router';
import { runQueueWaitSeconds } from '../lib/cpu';
import { writeResultFile } from '../lib/result-file';
import { loadClinc150, loadZhRouting, type RoutingDataset } from '../lib/routing-data';
import { median } from '../lib/stats';
import { apiRouter, LiveCatalogue, warmUp } from '../routing/routing-live';

const RESULTS = resolve(__dirname, '..', 'results');

interface Run {
  /** To the head ready: the first heads serve. */
  wall_ms: number;
  cpu_ms: number;
  /** To every head serving (the late ones joined; the same moment without late heads). */
  full_wall_ms: number;
  full_cpu_ms: number;
  waited_ms: number;
  trainings_ms: number[];
}

async function readyOnce(set: RoutingDataset, threads: number): Promise<Run> {
  const trainings: number[] = [];
  const chosen = await chooseMatcher({
    provider: 'local',
    localModels: process.env.ROUTER_LOCAL_MODELS?.split(',') ?? DEFAULT_LOCAL_MODELS,
    onnxThreads: 1,
    embeddingThreads: threads,
    lexicalWeight: DEFAULT_LEXICAL_WEIGHT,
    head: true,
    onHeadTrained: (_model, _capabilities, training) => trainings.push(training.ms + (training.held_out_ms ?? 0)),
  });
  await warmUp(chosen.factory, set.agents);
  trainings.length = 0;
  const router = apiRouter(new LiveCatalogue(set.agents), chosen.factory, decisionSettings({}, chosen.kind));
  const cpu = process.cpuUsage();
  const waited = runQueueWaitSeconds(process.pid) ?? 0;
  const started = performance.now();
  await router.prepare('bench', 'head');
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await router.prepare('bench', 'full');
  const fullWall = performance.now() - started;
  const fullUsed = process.cpuUsage(cpu);
  const status = await router.status('bench');
  // Each run has its own model threads (~400 MB each): stopped before the next run starts its own.
  await chosen.close?.();
  if (status.state !== 'ready') throw new Error(`${set.name}: the head did not become ready`);
  const late = status.serving?.late;
  if (late && late.state !== 'joined') throw new Error(`${set.name}: the late heads did not join (${late.state})`);
  return {
    wall_ms: Math.round(wall),
    cpu_ms: Math.round((used.user + used.system) / 1000),
    full_wall_ms: Math.round(fullWall),
    full_cpu_ms: Math.round((fullUsed.user + fullUsed.system) / 1000),
    waited_ms: Math.round(((runQueueWaitSeconds(process.pid) ?? 0) - waited) * 1000),
    trainings_ms: trainings,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sets: { type: 'string', default: 'zh-routing,clinc150' },
      threads: { type: 'string', default: '1,2' },
      repeats: { type: 'string', default: '3' },
    },
  });
  const threadCounts = values.threads.split(',').map(Number);
  const repeats = Number(values.repeats);
  const results: Record<string, unknown> = {};
  for (const name of values.sets.split(',')) {
    const set = name === 'clinc150' ? loadClinc150() : loadZhRouting();
    const runs = new Map<number, Run[]>(threadCounts.map((t) => [t, []]));
    for (let r = 0; r < repeats; r++) {
      for (const t of threadCounts) {
        const run = await readyOnce(set, t);
        runs.get(t)!.push(run);
        console.log(
          `${name} threads=${t} repeat ${r + 1}: ready ${run.wall_ms} ms, cpu ${run.cpu_ms} ms; full ${run.full_wall_ms} ms, cpu ${run.full_cpu_ms} ms; waited ${run.waited_ms} ms`,
        );
      }
    }
    results[name] = Object.fromEntries(
      [...runs].map(([t, list]) => [
        `threads_${t}`,
        {
          median_wall_ms: median(list.map((x) => x.wall_ms)),
          median_cpu_ms: median(list.map((x) => x.cpu_ms)),
          median_full_wall_ms: median(list.map((x) => x.full_wall_ms)),
          median_full_cpu_ms: median(list.map((x) => x.full_cpu_ms)),
          median_waited_ms: median(list.map((x) => x.waited_ms)),
          runs: list,
        },
      ]),
    );
  }
  const file = writeResultFile(RESULTS, 'head-ready', {
    at: new Date().toISOString(),
    machine: 'shared 2-core box; figures are noisy',
    node: process.version,
    load_average_at_end: (await import('node:os')).loadavg(),
    results,
  });
  console.log(`wrote ${file}`);
  process.exit(0);
}

void main();
