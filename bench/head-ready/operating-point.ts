/**
 * `npx tsx bench/head-ready/operating-point.ts [--sets zh-routing,clinc150] [--runs 4] [--requests 400]`
 * Does the same catalogue give the same router? Trains a set's head several times through the api's path (the
 * Router as `createRouter` builds it, default settings, a fresh matcher each run) — its agents listed in another
 * seeded order each run, every other run while two processes burn CPU beside it — and prints each run's fitted
 * operating point, its trainings (iterations, why they stopped) and how many of `--requests` of the set's requests (every
 * n-th) were decided otherwise than in the first run. Writes bench/results/operating-point.json.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { spawn, type ChildProcess } from 'node:child_process';
import { chooseMatcher, DEFAULT_LEXICAL_WEIGHT, DEFAULT_LOCAL_MODELS } from '../../router/create-matcher';
import { decisionSettings } from '../../router/create-router';
import type { HeadTraining } from '../../router/head/head';
import type { AgentWithInstances } from '../../catalogue/agent-queries';
import { seededRandom } from '../../util/random';
import { writeResultFile } from '../lib/result-file';
import { loadClinc150, loadZhRouting, type RoutingDataset } from '../lib/routing-data';
import { apiRouter, decideAll, LiveCatalogue, warmUp, type Decided } from '../routing/routing-live';

const RESULTS = resolve(__dirname, '..', 'results');

/** Processes that spin until killed: the other tenants of a shared machine (apart, so our CPU time stays ours). */
function burnCpu(processes: number): ChildProcess[] {
  return Array.from({ length: processes }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

/** The agents in a seeded order (run 0: as listed). */
function shuffled(agents: readonly AgentWithInstances[], seed: number): AgentWithInstances[] {
  const out = [...agents];
  if (seed === 0) return out;
  const random = seededRandom(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** What a caller gets: the verdict and the capability chosen (or refused with which code). */
function verdict(d: Decided): string {
  const { decision } = d;
  return decision.kind === 'refused'
    ? `refused ${decision.code}`
    : `${decision.kind} ${decision.target.agent_id}/${decision.target.capability}`;
}

async function runOnce(set: RoutingDataset, seed: number, loaded: boolean, requests: number) {
  const trainings: ({ model: string } & HeadTraining)[] = [];
  const chosen = await chooseMatcher({
    provider: 'local',
    localModels: process.env.ROUTER_LOCAL_MODELS?.split(',') ?? DEFAULT_LOCAL_MODELS,
    onnxThreads: 1,
    lexicalWeight: DEFAULT_LEXICAL_WEIGHT,
    head: true,
    onHeadTrained: (model, _capabilities, training) => trainings.push({ model, ...training }),
  });
  const agents = shuffled(set.agents, seed);
  await warmUp(chosen.factory, agents);
  trainings.length = 0;
  const router = apiRouter(new LiveCatalogue(agents), chosen.factory, decisionSettings({}, chosen.kind));
  const burners = loaded ? burnCpu(2) : [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  try {
    await router.prepare('bench');
  } finally {
    for (const burner of burners) burner.kill();
  }
  const readyMs = Math.round(performance.now() - started);
  const used = process.cpuUsage(cpu);
  const status = await router.status('bench');
  const step = Math.max(1, Math.ceil(set.fit.length / requests));
  const decisions = (
    await decideAll(
      router,
      set.fit.filter((_, i) => i % step === 0),
    )
  ).map(verdict);
  await chosen.close?.();
  const calibration = status.serving?.calibration;
  return {
    seed,
    loaded,
    ready_ms: readyMs,
    cpu_ms: Math.round((used.user + used.system) / 1000),
    accept: { same_language: calibration?.same_language.accept, cross_lingual: calibration?.cross_lingual.accept },
    escalate: {
      same_language: calibration?.same_language.escalate,
      cross_lingual: calibration?.cross_lingual.escalate,
    },
    ...(status.serving?.time_guard ? { time_guard: status.serving.time_guard } : {}),
    trainings: trainings.map((t) => ({
      model: t.model,
      iterations: t.iterations,
      stopped: t.stopped,
      ms: t.ms,
      held_out_ms: t.held_out_ms,
    })),
    decisions,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sets: { type: 'string', default: 'zh-routing,clinc150' },
      runs: { type: 'string', default: '4' },
      requests: { type: 'string', default: '400' },
    },
  });
  const results: Record<string, unknown> = {};
  for (const name of values.sets.split(',')) {
    const set = name === 'clinc150' ? loadClinc150() : loadZhRouting();
    const runs: Awaited<ReturnType<typeof runOnce>>[] = [];
    for (let r = 0; r < Number(values.runs); r++) {
      const run = await runOnce(set, r, r % 2 === 1, Number(values.requests));
      const differ = runs.length ? run.decisions.filter((d, i) => d !== runs[0]!.decisions[i]).length : 0;
      runs.push(run);
      console.log(
        `${name} run ${r + 1} (order ${r}${run.loaded ? ', CPU burnt' : ''}): accept ${run.accept.same_language} / ${run.accept.cross_lingual}, escalate ${run.escalate.same_language} / ${run.escalate.cross_lingual}; ` +
          `iterations ${run.trainings.map((t) => `${t.iterations} (${t.stopped})`).join(', ')}; ready ${run.ready_ms} ms, CPU ${run.cpu_ms} ms; ${differ} of ${run.decisions.length} decisions differ from run 1${run.time_guard ? `; ${run.time_guard}` : ''}`,
      );
    }
    results[name] = runs.map(({ decisions, ...rest }) => ({
      ...rest,
      decisions_differing_from_first: decisions.filter((d, i) => d !== runs[0]!.decisions[i]).length,
      decisions: decisions.length,
    }));
  }
  const file = writeResultFile(RESULTS, 'operating-point', {
    at: new Date().toISOString(),
    machine: 'shared 2-core box',
    node: process.version,
    results,
  });
  console.log(`wrote ${file}`);
  process.exit(0);
}

void main();
