/**
 * `npm run bench:lessons [-- --judge local|llm]`: misroute feedback on the zh/en dev set. The requests the router sends to a wrong
 * capability in the set's tuning part become lessons of that capability, as an agent's or an operator's report would
 * make them; the router is measured again on the locked part (`other_half`: does it generalise: fewer
 * misroutes, in-scope not lower?) and on the taught half sent again (is the same request kept away?). The head,
 * the calibration, card borders and lessons are those of the api (router/head/), default settings, no LLM.
 * --judge: the same with the judge reviewing the head's acceptances as in the api (router/judge/judge-stage.ts, its
 * default bounds; the judge reads a capability's lessons with its counter-examples); writes
 * lessons-zh-routing-judge-<kind>.json.
 */
import { resolve } from 'node:path';
import { candidatesOf, type CapabilityCandidate } from '../../router/candidates';
import { CombinedEmbedder } from '../../router/embeddings/combined-embedder';
import { DEFAULT_LOCAL_MODELS, loadLocalModels } from '../../router/create-matcher';
import { decideByHead, DEFAULT_HEAD_SETTINGS, groupScores, resolveThresholds } from '../../router/head/decide';
import { headMatcherFactory } from '../../router/head/head-matcher';
import { semanticMatcherFactory } from '../../router/matcher';
import { VectorCache } from '../../router/semantic-index';
import type { BoundedJudge } from '../../router/judge/bounded-judge';
import { benchJudge, JUDGE_OPTIONS, type JudgeKind } from '../lib/bench-judge';
import { reviewVerdict } from '../../router/judge/judge-stage';
import { parseArgs } from 'node:util';
import { lockedSplit } from '../lib/locked-split';
import { loadZhRouting, type LabelledRequest } from '../lib/routing-data';
import { writeResultFile } from '../lib/result-file';

interface Decided extends LabelledRequest {
  half: number;
  chosen: string | null;
}

const inScope = (d: Decided) => d.kind === 'in_scope' || d.kind === 'cross_lingual';
const misrouted = (d: Decided) => d.chosen !== null && d.chosen !== d.expected;
const share = (ds: Decided[], keep: (d: Decided) => boolean) =>
  Math.round((1e4 * ds.filter(keep).length) / Math.max(1, ds.length)) / 1e4;

async function decideAll(
  models: NonNullable<Awaited<ReturnType<typeof loadLocalModels>>>['models'],
  cache: VectorCache,
  candidates: CapabilityCandidate[],
  rows: (LabelledRequest & { half: number })[],
  judge: BoundedJudge | undefined,
  revision: string,
): Promise<Decided[]> {
  const byKey = new Map(candidates.map((c) => [c.key, c]));
  const cached = models.map((m) => ({ ...m, provider: cache.through(m.provider) }));
  const matcher = await headMatcherFactory(cached, semanticMatcherFactory(new CombinedEmbedder(cached), cache), cache, {
    waitMs: 0,
  })(candidates);
  await matcher.full?.();
  const out: Decided[] = [];
  for (const row of rows) {
    const prediction = (await matcher.classify!(row.text))!;
    const groups = groupScores(prediction.ranked, prediction.same, prediction.crossLingual);
    const thresholds = resolveThresholds(prediction.calibration, DEFAULT_HEAD_SETTINGS, false);
    const headVerdict = decideByHead(groups, thresholds, prediction.crossed);
    const verdict = judge
      ? (
          await reviewVerdict(judge, {
            intent: row.text,
            verdict: headVerdict,
            groups,
            thresholds,
            candidate: (key) => byKey.get(key)!,
            revision,
            ...(prediction.gaps ? { gaps: prediction.gaps } : {}),
          })
        ).verdict
      : headVerdict;
    out.push({ ...row, chosen: verdict.kind === 'accept' ? verdict.group.keys[0]! : null });
  }
  return out;
}

function report(decided: Decided[], half: number) {
  const rows = decided.filter((d) => d.half === half);
  const negatives = rows.filter((d) => !inScope(d));
  return {
    requests: rows.length,
    misroutes: rows.filter(misrouted).length,
    in_scope_right: share(rows.filter(inScope), (d) => d.chosen === d.expected),
    negatives_refused: share(negatives, (d) => d.chosen === null),
  };
}

async function main(): Promise<void> {
  const set = loadZhRouting();
  const models = (await loadLocalModels(process.env.ROUTER_LOCAL_MODELS?.split(',') ?? DEFAULT_LOCAL_MODELS))?.models;
  if (!models) throw new Error('the local models are missing: run `npm run models`');
  const cache = new VectorCache();
  const candidates = candidatesOf(set.agents);
  // Taught on the tuning part, measured on the locked part (docs/routing.md, "Tuning and locked parts").
  const { tuning, locked } = lockedSplit(set.fit);
  const rows = [...tuning.map((r) => ({ ...r, half: 0 })), ...locked.map((r) => ({ ...r, half: 1 }))];
  const { values } = parseArgs({ options: JUDGE_OPTIONS });
  const judgeKind = values.judge as JudgeKind;
  const judge = benchJudge(values);
  const before = await decideAll(models, cache, candidates, rows, judge, 'before');
  const lessons = new Map<string, string[]>();
  for (const d of before)
    if (d.half === 0 && misrouted(d)) lessons.set(d.chosen!, [...(lessons.get(d.chosen!) ?? []), d.text]);
  const after = await decideAll(
    models,
    cache,
    candidates.map((c) => (lessons.has(c.key) ? { ...c, misroutes: lessons.get(c.key)! } : c)),
    rows,
    judge,
    'after',
  );
  const result = {
    ...(judge ? { judge: { name: judge.name, timeout_ms: Number(values['judge-timeout-ms']) } } : {}),
    lessons: { texts: [...lessons.values()].flat().length, capabilities: lessons.size },
    other_half: { before: report(before, 1), after: report(after, 1) },
    taught_half_sent_again: { before: report(before, 0), after: report(after, 0) },
  };
  console.log(JSON.stringify(result, null, 2));
  writeResultFile(
    resolve(__dirname, '..', 'results'),
    judge ? `lessons-zh-routing-judge-${judgeKind}` : 'lessons-zh-routing',
    result,
  );
  await judge?.close();
}

void main();
