/**
 * Parameter extraction on the zh/en set with the expected capability's schema (oracle route): exact match,
 * field recall and precision (rules in scripts/lib/params-eval.ts). Writes bench/results/params-zh-routing.json.
 *   npm run bench:params [-- --failures]
 */
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KNOWN_MODELS, locateModel } from '../router/embeddings/model-files';
import { OnnxEmbedder } from '../router/embeddings/onnx-embedder';
import { extractParameters } from '../router/extraction';
import { scoreAll } from './lib/params-eval';
import { loadZhRouting } from './lib/routing-data';

/** A fixed clock, so the figures are reproducible. */
const NOW = new Date('2024-09-04T10:00:00+08:00');

async function main() {
  const set = loadZhRouting();
  const schemas = new Map<string, unknown>();
  for (const { agent } of set.agents) {
    for (const c of agent.capabilities) if (c.parameters_json) schemas.set(`${agent._id}/${c.name}`, JSON.parse(c.parameters_json));
  }
  // PARAMS_EMBED=1: enums the words did not settle are matched by meaning with the multilingual model.
  const model = process.env.PARAMS_EMBED === '1' ? await OnnxEmbedder.load(KNOWN_MODELS['multilingual-e5-small']!, locateModel('multilingual-e5-small')!) : undefined;
  const embed = model ? (texts: string[]) => model.embedDocuments(texts) : undefined;
  const { summary, rows } = await scoreAll(set.fit, schemas, (text, schema, now) => extractParameters(text, schema, { now, ...(embed ? { embed } : {}) }), NOW);
  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout
  }
  const failures = rows.filter((r) => !r.exact).map(({ text, capability, wrong, missed, extra, got, want }) => ({ text, capability, wrong, missed, extra, got, want }));
  const result = { data_set: 'zh-routing dev (oracle route)', commit, now: NOW.toISOString(), ...summary, failures };
  const dir = join(__dirname, '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'params-zh-routing.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(summary, null, 2));
  if (process.argv.includes('--failures')) for (const f of failures) console.log(JSON.stringify(f));
}

void main();
