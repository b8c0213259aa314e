/**
 * `npm run fit-threshold -- FILE [--catalog CATALOG.json] [--provider local|lexical] [--min-refusal 0.9]`
 * Fits the router's refusal threshold on labelled requests (JSON lines: {"text", "expected": "agent/capability"
 * or null, "acceptable"?: [...]}) against a catalogue ({"agents": [cards as registered]}; default: the zh-routing
 * catalogue). By default it balances in-scope accuracy and refusals; `--min-refusal R` maximises in-scope accuracy
 * while refusing at least R of the out-of-scope requests. Deterministic: the same data and provider give the same threshold.
 * With a trained head (the default for embedding providers) it prints ROUTER_HEAD_ACCEPT=…; with ROUTER_HEAD=off,
 * or BM25, ROUTER_THRESHOLD=….
 * Fit on training or validation data only, never on what you report as a test.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { chooseMatcher, DEFAULT_LEXICAL_WEIGHT, DEFAULT_LOCAL_MODELS } from '../../router/create-matcher';
import { fitThreshold } from '../../router/threshold';
import { agentFromCard, DATA_DIR, type LabelledRequest } from '../lib/routing-data';
import { report, routeAll, scoringRouter, toScored } from './routing-eval';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      catalog: { type: 'string' },
      provider: { type: 'string', default: 'auto' },
      'min-refusal': { type: 'string' },
    },
  });
  const file = positionals[0];
  if (!file)
    throw new Error(
      'usage: npm run fit-threshold -- FILE.jsonl [--catalog CATALOG.json] [--provider auto|local|lexical]',
    );
  const catalogFile = values.catalog ?? `${DATA_DIR}/zh-routing/catalog.json`;
  const catalog = JSON.parse(readFileSync(catalogFile, 'utf8')) as { agents: Parameters<typeof agentFromCard>[0][] };
  const requests = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LabelledRequest);
  const matcher = await chooseMatcher({
    provider: values.provider as 'auto',
    localModels: DEFAULT_LOCAL_MODELS,
    lexicalWeight: DEFAULT_LEXICAL_WEIGHT,
    head: process.env.ROUTER_HEAD !== 'off',
  });
  console.error(`provider: ${matcher.note}; ${requests.length} requests; catalogue ${catalogFile}`);
  const router = scoringRouter(
    catalog.agents.map((a) => agentFromCard(a, 'bench')),
    matcher.factory,
  );
  await router.prepare('bench');
  const routed = await routeAll(router, requests);
  const minRefusal = values['min-refusal'] === undefined ? undefined : Number(values['min-refusal']);
  const fit = fitThreshold(toScored(routed), minRefusal === undefined ? {} : { minRefusal });
  const { p50_decision_ms, p95_decision_ms, ...quality } = report(routed, fit.threshold);
  console.error(JSON.stringify({ provider: matcher.provider, ...quality }, null, 2));
  console.log(`${routed[0]?.by_head ? 'ROUTER_HEAD_ACCEPT' : 'ROUTER_THRESHOLD'}=${fit.threshold}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
