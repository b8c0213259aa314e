/**
 * `npm run bench:planning [-- --repeats 3] [--limit N] [--planner rules|model] [--model-timeout-ms 30000]
 *   [--judge off|local|llm] [--judge-timeout-ms 3000]`
 * (`--planner model`: the local judge's model proposes each split, checked; the rules' split where it is not usable;
 * writes bench/results/planning-model.json. `--judge local`: the router reads each step's close calls with the local
 * judge, as the api does with ROUTER_JUDGE=auto where the model is installed; writes planning-judge-local.json)
 * The planner (planner/) on bench/planning/requests.jsonl — multi-step zh/en requests written before its splitter was
 * tuned — against the zh-routing catalogue, through the api's router (the local models' head, each catalogue's own
 * fitted thresholds; ROUTER_JUDGE off, no LLM: the offline planner). Reports exact plans (every step's capability,
 * order, `after`, `$ref`s and `when` pointer right), step precision and recall, whether the proposed body passes the
 * checks of `POST /v1/chains`, and time to plan (p50/p95 over every plan of every repeat, and per repeat), with the
 * process's CPU time beside the wall time (per plan, and over the run) and the load average at the end. Writes bench/results/planning.json.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  chooseMatcher,
  DEFAULT_LEXICAL_WEIGHT,
  DEFAULT_LOCAL_MODELS,
  type ChosenMatcher,
} from '../../router/create-matcher';
import { decisionSettings } from '../../router/create-router';
import { capabilitySchemas, checkChain, type ChainCheckDeps } from '../../chains/check-chain';
import { planChain, type ChainPlan, type PlannerDeps } from '../../planner/plan-chain';
import { splitRequest } from '../../planner/split';
import { judgeModelPath, locateJudgeModel } from '../../router/judge/judge-files';
import { LocalJudge } from '../../router/judge/local-judge';
import type { BoundedJudge } from '../../router/judge/bounded-judge';
import { benchJudge, JUDGE_OPTIONS } from '../lib/bench-judge';
import { cpuSeconds } from '../lib/cpu';
import { loadZhRouting } from '../lib/routing-data';
import { writeResultFile } from '../lib/result-file';
import { latencyPercentiles, median } from '../lib/stats';
import { apiRouter, LiveCatalogue, warmUp } from '../routing/routing-live';
import { scoreCase, scoreSet, type CaseScore, type PlannedStepView, type PlanningCase } from './score';

const RESULTS = resolve(__dirname, '..', 'results');
const { values: args } = parseArgs({
  options: {
    planner: { type: 'string', default: 'rules' },
    'model-timeout-ms': { type: 'string', default: '30000' },
    repeats: { type: 'string', default: '3' },
    limit: { type: 'string' },
    set: { type: 'string', default: join(__dirname, 'requests.jsonl') },
    ...JUDGE_OPTIONS,
  },
});

function loadCases(file: string): PlanningCase[] {
  const cases = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as PlanningCase);
  return args.limit ? cases.slice(0, Number(args.limit)) : cases;
}

function viewOf(plan: ChainPlan): PlannedStepView[] {
  return plan.chain.steps.map((s) => ({
    id: s.id,
    capability: `${s.target.agent_id}/${s.target.capability}`,
    after: s.after,
    refs: Object.fromEntries(Object.entries(s.input ?? {}).map(([k, v]) => [k, v.$ref])),
    ...(s.when ? { when: s.when.$ref } : {}),
  }));
}

type ScoredCase = CaseScore & {
  id: string;
  lang: string;
  checked: string;
  runnable: boolean;
  planner: string;
  fallback?: string;
  split_right: boolean;
  unplanned: string[];
};

interface Planner {
  chosen: ChosenMatcher;
  judge?: BoundedJudge;
  model?: LocalJudge;
  deps: PlannerDeps;
  check: ChainCheckDeps;
}

/** The api's router over the zh-routing catalogue, the planner's dependencies on it, and the local judge if asked. */
async function startPlanner(useModel: boolean): Promise<Planner> {
  const set = loadZhRouting();
  const chosen = await chooseMatcher({
    provider: 'local',
    localModels: process.env.ROUTER_LOCAL_MODELS?.split(',') ?? DEFAULT_LOCAL_MODELS,
    onnxThreads: 1,
    lexicalWeight: Number(process.env.ROUTER_LEXICAL_WEIGHT ?? DEFAULT_LEXICAL_WEIGHT),
    head: process.env.ROUTER_HEAD !== 'off',
  });
  const catalogue = new LiveCatalogue(set.agents);
  const judge = benchJudge(args);
  const router = apiRouter(catalogue, chosen.factory, decisionSettings({}, chosen.kind), judge);
  await warmUp(chosen.factory, set.agents);
  await router.prepare('bench');
  const byId = new Map(set.agents.map((a) => [a.agent._id, a]));
  const model = useModel
    ? new LocalJudge({
        modelPath: locateJudgeModel(process.env.ROUTER_JUDGE_MODEL) ?? judgeModelPath(),
        threads: Number(process.env.ROUTER_JUDGE_THREADS ?? 2),
      })
    : undefined;
  if (model) await model.warm();
  const deps: PlannerDeps = {
    route: (request) => router.route(request),
    schemas: async (_tenant: string, agentId: string, capability: string) => {
      const found = byId.get(agentId)?.agent.capabilities.find((c) => c.name === capability);
      return found ? capabilitySchemas(found) : {};
    },
    ...(model ? { splitModel: model, modelTimeoutMs: Number(args['model-timeout-ms']) } : {}),
  };
  const queries = {
    get: async (_t: string, id: string) => byId.get(id),
    checkReach: async () => ({ kind: 'ok' as const }),
  };
  const limits = { maxSteps: 32, maxDepth: 16, maxBytes: 256 * 1024, maxMessageBytes: 256 * 1024 };
  return { chosen, ...(judge ? { judge } : {}), model, deps, check: { queries, limits } };
}

async function scored(c: PlanningCase, plan: ChainPlan, check: ChainCheckDeps): Promise<ScoredCase> {
  const checked = plan.chain.steps.length ? await checkChain(check, 'bench', plan.chain) : undefined;
  return {
    id: c.id,
    lang: c.lang,
    ...scoreCase(c, viewOf(plan)),
    checked:
      checked === undefined ? 'no steps' : checked.ok ? 'ok' : `${checked.refusal.code}: ${checked.refusal.message}`,
    runnable: plan.runnable,
    planner: plan.planner.used,
    ...(plan.planner.fallback ? { fallback: plan.planner.fallback } : {}),
    split_right: splitRequest(c.text).length === c.steps.length,
    unplanned: plan.unplanned.map(
      (u) => `${u.code}${u.step ? ` ${u.step}` : ''}${u.missing ? ` (${u.missing.join(', ')})` : ''}`,
    ),
  };
}

interface Runs {
  times: number[][];
  /** The process's CPU per plan (every thread: the models' worker threads too), one plan at a time. */
  cpuPerPlan: number[];
  /** Each case's score, from the first repeat. */
  scores: ScoredCase[];
  wallSeconds: number;
  cpu: number;
}

/** Plans every case `repeats` times, timing each plan; scores the first repeat's plans. */
async function planRepeats(planner: Planner, cases: PlanningCase[], repeats: number, useModel: boolean): Promise<Runs> {
  const times: number[][] = [];
  const cpuPerPlan: number[] = [];
  const scores: ScoredCase[] = [];
  const cpuBefore = cpuSeconds(process.pid) ?? 0;
  const wallBefore = performance.now();
  for (let r = 0; r < repeats; r++) {
    const pass: number[] = [];
    for (const c of cases) {
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      const ask = { intent: c.text, planner: useModel ? ('model' as const) : ('rules' as const) };
      const plan = await planChain(planner.deps, { tenant: 'bench' }, ask);
      pass.push(performance.now() - started);
      const used = process.cpuUsage(cpuStarted);
      cpuPerPlan.push((used.user + used.system) / 1000);
      if (r === 0) scores.push(await scored(c, plan, planner.check));
    }
    times.push(pass);
    process.stdout.write(
      `  repeat ${r + 1}/${repeats}: p50 ${latencyPercentiles(pass).p50_ms} ms, p95 ${latencyPercentiles(pass).p95_ms} ms\n`,
    );
  }
  const wallSeconds = (performance.now() - wallBefore) / 1000;
  return { times, cpuPerPlan, scores, wallSeconds, cpu: (cpuSeconds(process.pid) ?? 0) - cpuBefore };
}

function qualityOf(scores: ScoredCase[]) {
  return {
    all: scoreSet(scores),
    zh: scoreSet(scores.filter((s) => s.lang === 'zh')),
    en: scoreSet(scores.filter((s) => s.lang === 'en')),
    split_right_pct: Math.round((1000 * scores.filter((s) => s.split_right).length) / scores.length) / 10,
    passes_chain_check_pct: Math.round((1000 * scores.filter((s) => s.checked === 'ok').length) / scores.length) / 10,
    runnable_pct: Math.round((1000 * scores.filter((s) => s.runnable).length) / scores.length) / 10,
    split_by_model: scores.filter((s) => s.planner === 'model').length,
  };
}

function timingOf({ times, cpuPerPlan, wallSeconds, cpu }: Runs) {
  const all = latencyPercentiles(times.flat());
  const perRepeat = times.map((t) => latencyPercentiles(t));
  return {
    plans: times.flat().length,
    p50_ms: all.p50_ms,
    p95_ms: all.p95_ms,
    p99_ms: all.p99_ms,
    median_of_repeats: {
      p50_ms: median(perRepeat.map((p) => p.p50_ms!)),
      p95_ms: median(perRepeat.map((p) => p.p95_ms!)),
    },
    per_repeat: perRepeat,
    cpu_per_plan: latencyPercentiles(cpuPerPlan),
    load_average: loadavg().map((l) => Math.round(l * 10) / 10),
    wall_s: Math.round(wallSeconds * 10) / 10,
    cpu_s: Math.round(cpu * 10) / 10,
  };
}

async function main() {
  const cases = loadCases(args.set!);
  const useModel = args.planner === 'model';
  const planner = await startPlanner(useModel);
  const runs = await planRepeats(planner, cases, Number(args.repeats), useModel);
  const scores = runs.scores;
  const quality = qualityOf(scores);
  const timing = timingOf(runs);
  const judged = args.judge !== 'off';
  const name = useModel ? 'planning-model' : judged ? `planning-judge-${args.judge}` : 'planning';
  const file = writeResultFile(RESULTS, name, {
    at: new Date().toISOString(),
    machine: 'shared 2-core box; figures are noisy',
    node: process.version,
    set: `${args.set!.replace(`${resolve(__dirname, '../..')}/`, '')} (${cases.length} requests)`,
    planner: useModel
      ? `model (${planner.model!.name}, checked; the rules' split where it is not usable)`
      : 'rules (deterministic splitter), no model',
    router: {
      provider: planner.chosen.provider,
      head: process.env.ROUTER_HEAD !== 'off',
      judge: planner.judge ? { name: planner.judge.name, timeout_ms: Number(args['judge-timeout-ms']) } : 'off',
      llm: 'none',
    },
    goals: { exact_pct: 60, step_recall_pct: 90, p95_ms: 300 },
    quality,
    timing,
    cases: scores,
  });
  console.log(JSON.stringify({ quality, timing: { ...timing, per_repeat: undefined } }, null, 2));
  for (const s of scores.filter((x) => !x.exact))
    console.log(`  ✗ ${s.id}: ${s.miss}${s.checked === 'ok' ? '' : ` [check: ${s.checked}]`}`);
  console.log(`wrote ${file}`);
  await planner.model?.close();
  await planner.judge?.close();
  await planner.chosen.close?.();
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
