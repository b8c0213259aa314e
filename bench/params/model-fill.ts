/**
 * `npm run bench:params-model [-- --parts tuning,locked]`
 * What the local judge's model adds to parameters (router/params/fill-schema.ts, ROUTER_PARAMS_MODEL_TIMEOUT_MS):
 * the zh/en parts' in-scope requests labelled with parameters, routed through the api's path twice — the heuristics
 * alone, then with the model filling the required fields they left empty (a judge that never reads, so only the
 * filling differs; no timeout) — and the parameters a caller of POST /v1/route gets judged exactly against the
 * labels (bench/routing/routing-live.ts `routedParameters`). Needs `npm run models -- --judge`.
 * Writes bench/results/params-model-fill.json.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chooseMatcher, DEFAULT_LEXICAL_WEIGHT, DEFAULT_LOCAL_MODELS } from '../../router/create-matcher';
import { decisionSettings } from '../../router/create-router';
import { BoundedJudge } from '../../router/judge/bounded-judge';
import { locateJudgeModel } from '../../router/judge/judge-files';
import { LocalJudge } from '../../router/judge/local-judge';
import { loadZhRouting } from '../lib/routing-data';
import { writeResultFile } from '../lib/result-file';
import { percentile } from '../lib/stats';
import { zhRoutingParts } from '../routing/parts';
import {
  apiRouter,
  decideAll,
  LiveCatalogue,
  markClockFields,
  routedParameters,
  type Decided,
} from '../routing/routing-live';

function fillFigures(rows: Decided[]) {
  const fills = rows.flatMap((d) =>
    d.decision.explanation.extraction?.filled ? [d.decision.explanation.extraction.filled] : [],
  );
  const outcomes: Record<string, number> = {};
  for (const f of fills) outcomes[f.outcome] = (outcomes[f.outcome] ?? 0) + 1;
  const ms = fills.flatMap((f) => (f.ms === undefined ? [] : [f.ms])).sort((a, b) => a - b);
  return { fills: fills.length, outcomes, fill_ms_p50: percentile(ms, 50), fill_ms_p95: percentile(ms, 95) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { parts: { type: 'string', default: 'tuning,locked' } } });
  const modelPath = locateJudgeModel(process.env.ROUTER_JUDGE_MODEL);
  if (!modelPath) throw new Error('the judge model is not installed: npm run models -- --judge');
  const set = loadZhRouting();
  const chosen = await chooseMatcher({
    provider: 'local',
    localModels: DEFAULT_LOCAL_MODELS,
    lexicalWeight: DEFAULT_LEXICAL_WEIGHT,
    head: true,
    onnxThreads: 1,
  });
  const local = new LocalJudge({ modelPath, threads: Number(process.env.ROUTER_JUDGE_THREADS ?? 2) });
  await local.warm();
  const fillOnly = new BoundedJudge(
    { name: 'fill-only', judge: async () => undefined, fill: (request, signal) => local.fill(request, signal) },
    { timeoutMs: 600_000, fillTimeoutMs: 600_000 },
  );
  const heuristics = apiRouter(new LiveCatalogue(set.agents), chosen.factory, decisionSettings({}, chosen.kind));
  const withModel = apiRouter(
    new LiveCatalogue(set.agents),
    chosen.factory,
    decisionSettings({}, chosen.kind),
    fillOnly,
  );
  await Promise.all([heuristics.prepare('bench'), withModel.prepare('bench')]);
  const parts = zhRoutingParts(set);
  const results: Record<string, unknown> = {};
  for (const part of values.parts!.split(',')) {
    const rows = (parts[part] ?? []).filter((r) => r.expected && r.params && Object.keys(r.params).length > 0);
    const before = await decideAll(heuristics, rows);
    const after = await decideAll(withModel, rows);
    markClockFields(before, set.agents);
    markClockFields(after, set.agents);
    results[part] = {
      heuristics: routedParameters(before),
      with_model: routedParameters(after),
      ...fillFigures(after),
    };
    console.log(part, JSON.stringify(results[part]));
  }
  const file = writeResultFile(resolve(__dirname, '..', 'results'), 'params-model-fill', {
    benchmark: 'params-model-fill',
    model: modelPath,
    results,
  });
  console.log(`wrote ${file}`);
  await chosen.close?.();
  await local.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
