/**
 * `npm run bench:routing [-- --provider local,lexical] [--sets clinc150,zh-routing,scale] [--limit N]`
 * Routing quality and decision time, per data set and similarity provider:
 * - CLINC150: 10 agents (domains), 150 capabilities (intents, ≤ 10 train examples each). Threshold fitted on
 *   val + oos_val only; reported on test + oos_test.
 * - zh-routing: our catalogue and dev.jsonl, which has no held-out split: thresholds are judged by 5-fold
 *   cross-validation (each request with the threshold fitted on the other four fifths). The head itself never sees
 *   a dev request: it learns from the catalogue and the shipped generic out-of-scope text only.
 * ROUTER_HEAD=off measures plain similarity (the fallback while a head trains).
 * - scale: 1,000 agents × 5 capabilities, decision time only.
 * Writes bench/results/routing-<set>.json and prints a table.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { writeResultFile } from './lib/result-file';
import { candidatesOf } from '../router/candidates';
import { chooseMatcher, DEFAULT_LEXICAL_WEIGHT, DEFAULT_LOCAL_MODELS } from '../router/create-matcher';
import { DEFAULT_THRESHOLDS } from '../router/create-router';
import { DEFAULT_HEAD_SETTINGS } from '../router/head/decide';
import { fitThreshold } from '../router/threshold';
import type { MatcherFactory } from '../router/matcher';
import { agentFromCard, loadClinc150, loadZhRouting, type RoutingDataset } from './lib/routing-data';
import { crossValidate, parameterReport, report, routeAll, scoringRouter, toScored } from './lib/routing-eval';
import { percentile } from './lib/stats';

const RESULTS = resolve(__dirname, '..', 'bench', 'results');

/** Head trainings seen by the matchers built here: model, capabilities, samples, iterations, ms. */
const trainings: Record<string, unknown>[] = [];

async function matcherFor(provider: string): Promise<{ factory: MatcherFactory; name: string; kind: keyof typeof DEFAULT_THRESHOLDS }> {
  const chosen = await chooseMatcher({
    onHeadTrained: (model, capabilities, training) => trainings.push({ model, capabilities, ...training }),
    provider: provider as 'local' | 'lexical',
    localModels: process.env.ROUTER_LOCAL_MODELS?.split(',') ?? DEFAULT_LOCAL_MODELS,
    onnxThreads: 1,
    lexicalWeight: Number(process.env.ROUTER_LEXICAL_WEIGHT ?? DEFAULT_LEXICAL_WEIGHT),
    head: process.env.ROUTER_HEAD !== 'off',
  });
  return { factory: chosen.factory, name: chosen.provider, kind: chosen.kind };
}

function progress(label: string) {
  return (done: number) => process.stdout.write(`\r  ${label}: ${done} routed`);
}

async function qualitySet(set: RoutingDataset, provider: string, limit?: number) {
  const { factory, name } = await matcherFor(provider);
  const router = scoringRouter(set.agents, factory);
  const buildStarted = performance.now();
  await router.prepare('bench');
  const buildMs = performance.now() - buildStarted;
  const sample = <T>(rows: T[]) => (limit ? rows.filter((_, i) => i % Math.ceil(rows.length / limit) === 0) : rows);
  const fitRows = await routeAll(router, sample(set.fit), progress(`${set.name}/${provider} fit`));
  const balanced = fitThreshold(toScored(fitRows));
  // A refusal floor (CLINC150: ≥ 80 % out-of-scope recall; zh: ≥ 85 % of near misses and out-of-scope refused).
  const floor = set.test ? 0.8 : 0.85;
  const floored = fitThreshold(toScored(fitRows), { minRefusal: floor });
  const testRows = set.test ? await routeAll(router, sample(set.test), progress(`${set.name}/${provider} test`)) : undefined;
  process.stdout.write('\n');
  const common = { provider: name, capabilities: candidatesOf(set.agents).length, index_build_ms: Math.round(buildMs) };
  if (testRows) {
    return {
      ...common,
      fitted_on: 'val + oos_val; reported on test + oos_test',
      balanced_threshold: { fit: report(fitRows, balanced.threshold), test: report(testRows, balanced.threshold) },
      [`refusal_floor_${floor}`]: { fit: report(fitRows, floored.threshold), test: report(testRows, floored.threshold) },
    };
  }
  return {
    ...common,
    fitted_on: 'dev, 5-fold cross-validation (each request judged with a threshold fitted on the other folds)',
    balanced_threshold: { cross_validated: crossValidate(fitRows), fitted_on_all_dev: balanced.threshold },
    [`refusal_floor_${floor}`]: { cross_validated: crossValidate(fitRows, { minRefusal: floor }), fitted_on_all_dev: floored.threshold },
  };
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
          return { name: `${source.name}_${c}`, description: source.description, tags: source.tags, examples: source.examples.slice(0, 3) };
        }),
      },
      'bench',
    ),
  );
}

async function scaleSet(provider: string, agentsCount: number, queries: number) {
  const { factory, name, kind } = await matcherFor(provider);
  const agents = scaleCatalogue(agentsCount);
  // Decisions as the api takes them: with the provider's default threshold.
  const router = scoringRouter(agents, factory, DEFAULT_THRESHOLDS[kind], DEFAULT_HEAD_SETTINGS);
  const buildStarted = performance.now();
  await router.prepare('bench');
  const buildMs = performance.now() - buildStarted;
  const texts = loadZhRouting().fit.map((r) => r.text);
  const total: number[] = [];
  const match: number[] = [];
  for (let i = 0; i < queries; i++) {
    const decision = await router.route({ tenant: 'bench', caller: { tenant: 'bench' }, intent: texts[i % texts.length]! });
    total.push(decision.explanation.timings_ms.total);
    match.push(decision.explanation.timings_ms.match);
  }
  // The query's own embedding, timed alone, to separate model time from the router's own work.
  const embedOnly: number[] = [];
  const { factory: single } = await matcherFor(provider);
  const tiny = await single(candidatesOf(agents.slice(0, 1)));
  for (let i = 0; i < Math.min(queries, 100); i++) {
    const started = performance.now();
    await tiny.score(texts[i % texts.length]!);
    embedOnly.push(performance.now() - started);
  }
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
      agents: { type: 'string', default: '1000' },
      queries: { type: 'string', default: '300' },
    },
  });
  const providers = values.provider!.split(',');
  const sets = values.sets!.split(',');
  const limit = values.limit ? Number(values.limit) : undefined;
  const meta = { at: new Date().toISOString(), machine: 'shared 2-core box; figures are noisy', node: process.version };
  for (const setName of sets) {
    const results: Record<string, unknown> = {};
    for (const provider of providers) {
      console.log(`${setName} · ${provider}`);
      if (setName === 'scale') results[provider] = await scaleSet(provider, Number(values.agents), Number(values.queries));
      else {
        const set = setName === 'clinc150' ? loadClinc150() : loadZhRouting();
        const quality = await qualitySet(set, provider, limit);
        results[provider] = setName === 'zh-routing' ? { ...quality, parameters: await parameterReport(set.fit, set.agents) } : quality;
      }
      console.log(JSON.stringify(results[provider], null, 2));
    }
    if (!limit) writeResultFile(RESULTS, `routing-${setName}`, { ...meta, set: setName, results });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
