/**
 * `npm run bench:routing [-- --provider local,lexical] [--sets clinc150,zh-routing,scale] [--limit N] [--full]
 *    [--judge off|local|llm] [--judge-timeout-ms 3000] [--params-timeout-ms 0] [--val] [--decisions FILE]
 *    [--examples N]`
 * Routing quality and decision time, per data set and similarity provider, through the api's path (the Router as
 * `createRouter` builds it, default settings: each head fits its own thresholds on its catalogue, nothing is fitted
 * on the evaluation requests), including requests sent right after the catalogue is registered, after a card is
 * edited and after every instance goes offline (bench/routing/routing-live.ts).
 * Each set is reported on its parts side by side (bench/routing/parts.ts; docs/routing.md, "Tuning and locked
 * parts"): tune only on `tuning`, keep a change only if `locked` agrees. Sets:
 * - CLINC150: 10 agents (domains), 150 capabilities (intents, 10 train examples each, the intent's name as the
 *   description); `tuning` and `locked` are the halves of val + oos_val; `test` is test + oos_test (every 9th
 *   in-scope and every 4th out-of-scope request; all with --full).
 *   --val: the val halves only, written to bench/results/routing-clinc150-val.json.
 *   --full writes bench/results/routing-clinc150-full.json.
 *   --examples N: N train examples per intent instead of 10 (what a card's examples are worth), written to
 *   bench/results/routing-clinc150-examples-N[-judge-<kind>].json.
 * - zh-routing: our catalogue; `tuning` is dev.jsonl's tuning half, `locked` its locked half with locked-holdout.jsonl
 *   and params-holdout.jsonl (the head never sees any of them).
 * --limit N: the first N requests of each part.
 * ROUTER_HEAD=off measures plain similarity.
 * - scale: 1,000 agents × 5 capabilities, decision time only.
 * --judge: the same with the judge on (docs/routing.md, "The judge"; ROUTER_JUDGE_MODEL and the LLM_* settings as the
 *   api reads them); writes bench/results/routing-<set>-judge-<kind>.json, also with --limit.
 * --decisions FILE: also every steady decision, a JSON line each (part, request, verdict, the head's and the judge's
 *   explanation), for studying the misses; FILE gets the set's name before its extension.
 * Writes bench/results/routing-<set>.json and prints a table.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { writeResultFile } from '../lib/result-file';
import { candidatesOf } from '../../router/candidates';
import { chooseMatcher, DEFAULT_LEXICAL_WEIGHT, DEFAULT_LOCAL_MODELS } from '../../router/create-matcher';
import { decisionSettings, DEFAULT_THRESHOLDS } from '../../router/create-router';
import type { BoundedJudge } from '../../router/judge/bounded-judge';
import type { WarmUpStatus } from '../../router/judge/warm-up';
import { benchJudge, JUDGE_OPTIONS, type JudgeKind } from '../lib/bench-judge';
import type { MatcherFactory } from '../../router/matcher';
import { agentFromCard, loadClinc150, loadZhRouting, type RoutingDataset } from '../lib/routing-data';
import { parameterReport, scoringRouter } from './routing-eval';
import {
  apiRouter,
  chosen,
  type Decided,
  decideAll,
  decisionReport,
  headRevisions,
  LiveCatalogue,
  markClockFields,
  warmUp,
} from './routing-live';
import { clincParts, limitParts, type PartRequest, type Parts, zhRoutingParts } from './parts';
import { type PartFigures, partsTable } from './parts-table';
import { percentile } from '../lib/stats';

const RESULTS = resolve(__dirname, '..', 'results');

/** Head trainings seen by the matchers built here: model, capabilities, samples, iterations, ms. */
const trainings: Record<string, unknown>[] = [];

/** `close` stops the local models' threads (~400 MB each) once a set is measured. */
async function matcherFor(provider: string): Promise<{
  factory: MatcherFactory;
  name: string;
  kind: keyof typeof DEFAULT_THRESHOLDS;
  close: () => Promise<void>;
}> {
  const chosen = await chooseMatcher({
    onHeadTrained: (model, capabilities, training) => trainings.push({ model, capabilities, ...training }),
    provider: provider as 'local' | 'lexical',
    localModels: process.env.ROUTER_LOCAL_MODELS?.split(',') ?? DEFAULT_LOCAL_MODELS,
    onnxThreads: 1,
    // The api's default unless set (ROUTER_EMBEDDING_THREADS), to compare.
    ...(process.env.ROUTER_EMBEDDING_THREADS ? { embeddingThreads: Number(process.env.ROUTER_EMBEDDING_THREADS) } : {}),
    lexicalWeight: Number(process.env.ROUTER_LEXICAL_WEIGHT ?? DEFAULT_LEXICAL_WEIGHT),
    head: process.env.ROUTER_HEAD !== 'off',
  });
  return { factory: chosen.factory, name: chosen.provider, kind: chosen.kind, close: async () => chosen.close?.() };
}

function progress(label: string) {
  return (done: number) => process.stdout.write(`\r  ${label}: ${done} routed`);
}

/** Requests sent right after each catalogue change (before its head can be ready). */
const RIGHT_AFTER = 30;
/** --full: every CLINC150 test request. */
const FULL = process.argv.includes('--full');
/** --val: CLINC150's validation split instead of its test split. */
const VAL = process.argv.includes('--val');

/** Train examples per CLINC150 intent on its cards, unless --examples says otherwise. */
const CLINC_EXAMPLES = 10;

/** What a CLINC150 result file's name says of the run: its validation halves or whole test split, other examples per intent. */
function clincSuffix(examples: number): string {
  return `${VAL ? '-val' : ''}${FULL ? '-full' : ''}${examples === CLINC_EXAMPLES ? '' : `-examples-${examples}`}`;
}

/** Waits until the judge's warm-up of the bench tenant has ended (done or failed), at most fifteen minutes. */
async function judgeWarmedUp(judge: BoundedJudge): Promise<WarmUpStatus | { state: 'not_started' }> {
  const until = Date.now() + 900_000;
  for (;;) {
    const status = judge.warming('bench');
    if (status && status.state !== 'warming') return status;
    if (Date.now() > until) return status ?? { state: 'not_started' };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * One data set through the api's path: register the catalogue and send requests at once; wait for the head
 * (time to ready); the steady decisions on each part (tuning, locked, and CLINC150's test sample); a card edited and
 * requests sent at once (the previous head should answer); every instance offline (no retraining, the head answers).
 */
async function qualitySet(
  set: RoutingDataset,
  parts: Parts,
  provider: string,
  judge?: BoundedJudge,
  decisionsFile?: string,
) {
  const { factory, name, kind, close } = await matcherFor(provider);
  const catalogue = new LiveCatalogue(set.agents);
  const router = apiRouter(catalogue, factory, decisionSettings({}, kind), judge);
  const firsts = parts.tuning!.slice(0, RIGHT_AFTER);
  await warmUp(factory, set.agents);
  const trainingsBefore = trainings.length;

  const registered = performance.now();
  const afterRegistration = await decideAll(router, firsts);
  await router.prepare('bench', 'head');
  const readyMs = performance.now() - registered;
  // Steady state: every head serves (the late ones joined).
  await router.prepare('bench', 'full');
  const fullMs = performance.now() - registered;
  // With the judge, steady state also means its warm-up has held the catalogue's cards (docs/routing.md).
  const judgeWarmUp = judge ? await judgeWarmedUp(judge) : undefined;
  const judgeWarmUpMs = judgeWarmUp && performance.now() - registered;
  const status = await router.status('bench');
  const late = status.serving?.late;
  if (late && late.state !== 'joined') throw new Error(`${set.name}: the late heads did not join (${late.state})`);

  const steady: Record<string, Decided[]> = {};
  for (const [part, requests] of Object.entries(parts)) {
    steady[part] = await decideAll(router, requests, progress(`${set.name}/${provider} ${part}`));
    markClockFields(steady[part], set.agents);
    process.stdout.write('\n');
  }
  if (decisionsFile) writeDecisions(decisionsFile.replace(/(\.\w+)?$/, `-${set.name}$1`), steady);

  catalogue.editCard(0, set.name === 'zh-routing' ? '支持中文和英文请求。' : 'Answers in English.');
  const changed = performance.now();
  const afterChange = await decideAll(router, firsts);
  await router.prepare('bench', 'head');
  const changeReadyMs = performance.now() - changed;
  await router.prepare('bench', 'full');

  const trainingsBeforeOffline = trainings.length;
  const revisionBeforeOffline = (await router.status('bench')).serving?.revision;
  catalogue.allOffline();
  const afterOffline = await decideAll(router, firsts);
  await router.prepare('bench');
  const offlineStatus = await router.status('bench');
  await close();

  return {
    provider: name,
    capabilities: candidatesOf(set.agents).length,
    evaluated_on: PART_NOTES[set.name],
    head_ready_after_registration_ms: Math.round(readyMs),
    full_after_registration_ms: Math.round(fullMs),
    ...(judgeWarmUp ? { judge_warm_up: { ...judgeWarmUp, after_registration_ms: Math.round(judgeWarmUpMs!) } } : {}),
    heads: status.serving?.heads ?? null,
    head_trainings: trainings.slice(trainingsBefore),
    fitted: status.serving?.calibration ?? null,
    steady: Object.fromEntries(Object.entries(steady).map(([part, rows]) => [part, partReport(rows)])),
    right_after_registration: { ...decisionReport(afterRegistration), by_revision: headRevisions(afterRegistration) },
    after_card_edit: {
      ready_ms: Math.round(changeReadyMs),
      ...decisionReport(afterChange),
      by_revision: headRevisions(afterChange),
    },
    after_all_offline: {
      retrained: trainings.length > trainingsBeforeOffline,
      same_revision: offlineStatus.serving?.revision === revisionBeforeOffline,
      by_revision: headRevisions(afterOffline),
      decided_by: decisionReport(afterOffline).decided_by,
    },
  };
}

/** One line per steady decision: what was asked, what came back (with its parameters), and why (--decisions). */
function writeDecisions(path: string, steady: Record<string, Decided[]>): void {
  const lines = Object.entries(steady).flatMap(([part, rows]) =>
    rows.map((decided) => {
      const { request, decision, ms } = decided;
      return JSON.stringify({
        part,
        source: (request as PartRequest).source,
        text: request.text,
        kind: request.kind,
        expected: request.expected,
        acceptable: request.acceptable,
        chosen: chosen(decided),
        decision: decision.kind,
        params: decision.kind === 'refused' ? undefined : decision.params,
        want: request.params,
        clock_fields: decided.clockFields,
        head: decision.explanation.head,
        judge: decision.explanation.judge,
        top: decision.explanation.candidates.slice(0, 3).map((c) => c.key),
        ms: Math.round(ms),
      });
    }),
  );
  writeFileSync(path, lines.join('\n') + '\n');
  console.log(`decisions: ${path}`);
}

const PART_NOTES: Record<string, string> = {
  'zh-routing':
    'tuning = dev\'s tuning half + tuning-crosslingual; locked = dev\'s locked half + locked-holdout + params-holdout; fresh = fresh.jsonl, written after the rules last changed (docs/routing.md, "Tuning and locked parts"); the head never sees them and fits its thresholds on the catalogue alone',
  clinc150:
    'tuning and locked = the halves of val + oos_val; test = test + oos_test (a fixed sample unless --full; not with --val); nothing fitted on them',
};

/** A part's decisions, and by source file where it mixes several (the zh locked part). */
function partReport(rows: Decided[]) {
  const sources = [...new Set(rows.map((d) => (d.request as PartRequest).source))];
  if (sources.length < 2) return decisionReport(rows);
  const bySource = Object.fromEntries(
    sources.map((source) => [source, decisionReport(rows.filter((d) => (d.request as PartRequest).source === source))]),
  );
  return { ...decisionReport(rows), by_source: bySource };
}

/** Each part interleaved (so the requests sent right after a change mix in-scope and out-of-scope ones), then --limit. */
function evaluationParts(set: RoutingDataset, limit?: number): Parts {
  const parts = set.name === 'clinc150' ? clincParts(set, { val: VAL, full: FULL }) : zhRoutingParts(set);
  const mixed = Object.fromEntries(
    Object.entries(parts).map(([part, rows]) => [part, [...rows].sort((a, b) => hash(a.text) - hash(b.text))]),
  );
  return limitParts(mixed, limit);
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Parameters on each part (heuristic extraction on the expected capability). */
async function partParameters(parts: Parts, set: RoutingDataset) {
  const out: Record<string, unknown> = {};
  for (const [part, rows] of Object.entries(parts)) out[part] = await parameterReport(rows, set.agents);
  return out;
}

/** 1,000 agents × 5 capabilities made from the zh and CLINC150 catalogues (texts repeat; each capability is scored). */
function scaleCatalogue(agentsCount: number) {
  const sources = [...loadZhRouting().agents, ...loadClinc150(3).agents].flatMap(({ agent }) => agent.capabilities);
  return Array.from({ length: agentsCount }, (_, a) =>
    agentFromCard(
      {
        agent_id: `agent-${a}`,
        name: `agent ${a}`,
        description: `synthetic agent ${a}`,
        tags: [],
        capabilities: Array.from({ length: 5 }, (_, c) => {
          const source = sources[(a * 5 + c) % sources.length]!;
          return {
            name: `${source.name}_${c}`,
            description: source.description,
            tags: source.tags,
            examples: source.examples.slice(0, 3),
          };
        }),
      },
      'bench',
    ),
  );
}

async function scaleSet(provider: string, agentsCount: number, queries: number) {
  const { factory, name, kind, close } = await matcherFor(provider);
  const agents = scaleCatalogue(agentsCount);
  // Decisions as the api takes them: with the provider's default threshold.
  const router = scoringRouter(agents, factory, DEFAULT_THRESHOLDS[kind], decisionSettings({}, kind).head);
  const buildStarted = performance.now();
  await router.prepare('bench');
  const buildMs = performance.now() - buildStarted;
  const texts = loadZhRouting().fit.map((r) => r.text);
  const total: number[] = [];
  const match: number[] = [];
  for (let i = 0; i < queries; i++) {
    const decision = await router.route({
      tenant: 'bench',
      caller: { tenant: 'bench' },
      intent: texts[i % texts.length]!,
    });
    total.push(decision.explanation.timings_ms.total);
    match.push(decision.explanation.timings_ms.match);
  }
  // The query's own embedding, timed alone, to separate model time from the router's own work.
  const embedOnly: number[] = [];
  await close();
  const single = await matcherFor(provider);
  const tiny = await single.factory(candidatesOf(agents.slice(0, 1)));
  for (let i = 0; i < Math.min(queries, 100); i++) {
    const started = performance.now();
    await tiny.score(texts[i % texts.length]!);
    embedOnly.push(performance.now() - started);
  }
  await single.close();
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const r = (n: number) => Math.round(n * 100) / 100;
  const p50Embed = percentile(sorted(embedOnly), 50);
  return {
    provider: name,
    agents: agentsCount,
    capabilities: agentsCount * 5,
    threshold: DEFAULT_THRESHOLDS[kind],
    index_build_ms: Math.round(buildMs),
    head_trainings: trainings.filter((t) => t.capabilities === agentsCount * 5),
    queries,
    p50_decision_ms: r(percentile(sorted(total), 50)),
    p95_decision_ms: r(percentile(sorted(total), 95)),
    p95_match_stage_ms: r(percentile(sorted(match), 95)),
    p50_query_embedding_ms: r(p50Embed),
    p95_decision_ms_without_query_embedding: r(percentile(sorted(total.map((t) => Math.max(0, t - p50Embed))), 95)),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      provider: { type: 'string', default: 'local,lexical' },
      sets: { type: 'string', default: 'clinc150,zh-routing,scale' },
      limit: { type: 'string' },
      full: { type: 'boolean', default: false },
      val: { type: 'boolean', default: false },
      agents: { type: 'string', default: '1000' },
      queries: { type: 'string', default: '300' },
      decisions: { type: 'string' },
      examples: { type: 'string', default: String(CLINC_EXAMPLES) },
      ...JUDGE_OPTIONS,
    },
  });
  const judgeKind = values.judge as JudgeKind;
  const judge = benchJudge(values);
  const providers = values.provider!.split(',');
  const sets = values.sets!.split(',');
  const limit = values.limit ? Number(values.limit) : undefined;
  const examples = Number(values.examples);
  if (!Number.isInteger(examples) || examples < 1)
    throw new Error(`--examples: a whole number ≥ 1, not ${values.examples}`);
  const meta = {
    at: new Date().toISOString(),
    machine: 'shared 2-core box; figures are noisy',
    node: process.version,
    ...(judge
      ? { judge: { name: judge.name, timeout_ms: Number(values['judge-timeout-ms']), limit: limit ?? null } }
      : {}),
  };
  for (const setName of sets) {
    const results: Record<string, unknown> = {};
    for (const provider of providers) {
      console.log(`${setName} · ${provider}`);
      if (setName === 'scale')
        results[provider] = await scaleSet(provider, Number(values.agents), Number(values.queries));
      else {
        const set = setName === 'clinc150' ? loadClinc150(examples) : loadZhRouting();
        const parts = evaluationParts(set, limit);
        const quality = await qualitySet(set, parts, provider, judge, values.decisions);
        results[provider] =
          setName === 'zh-routing' ? { ...quality, parameters: await partParameters(parts, set) } : quality;
      }
      console.log(JSON.stringify(results[provider], null, 2));
    }
    if (setName !== 'scale')
      console.log(partsTable(setName, results as Record<string, { steady: Record<string, PartFigures> }>));
    const name = `routing-${setName}${setName === 'clinc150' ? clincSuffix(examples) : ''}`;
    if (judge) writeResultFile(RESULTS, `${name}-judge-${judgeKind}`, { ...meta, set: setName, results });
    else if (!limit)
      writeResultFile(RESULTS, name, {
        ...meta,
        set: setName,
        results,
      });
  }
  await judge?.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
