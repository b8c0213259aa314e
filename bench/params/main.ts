/**
 * Parameter extraction with the expected capability's schema (oracle route): exact match, field recall and precision
 * (rules in bench/params/params-eval.ts), on four sets: zh-routing dev (tuned on), zh-routing params-holdout (written
 * from the schemas before the extractor was changed, never tuned on), params-schema-only (English requests for
 * five made-up schemas outside our catalogue, also written before the change) and tuning-crosslingual (the zh/en
 * tuning part's cross-lingual requests, Router 4: tuned on). Writes
 * bench/results/params-zh-routing[-no-embed][-no-lexicon].json.
 *   npm run bench:params [-- --failures] [-- --set dev,holdout,schema-only,tuning-crosslingual]
 * Enums the words did not settle are matched by meaning with multilingual-e5-small, as the router does when it runs
 * that model (PARAMS_EMBED=0: words only). PARAMS_LEXICON=0: without the bilingual lexicon (router/params/lexicon.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KNOWN_MODELS, locateModel } from '../../router/embeddings/model-files';
import { OnnxEmbedder } from '../../router/embeddings/onnx-embedder';
import { extractParameters } from '../../router/extraction';
import { LEXICON } from '../../router/params/lexicon';
import { scoreAll } from './params-eval';
import { writeResultFile } from '../lib/result-file';
import { DATA_DIR, type LabelledRequest, loadZhRouting } from '../lib/routing-data';

/** A fixed clock, so the figures are reproducible. */
const NOW = new Date('2024-09-04T10:00:00+08:00');

function readJsonl(path: string): LabelledRequest[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LabelledRequest);
}

function argument(flag: string): string | undefined {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main() {
  const zh = loadZhRouting();
  const schemas = new Map<string, unknown>();
  for (const { agent } of zh.agents) {
    for (const c of agent.capabilities)
      if (c.parameters_json) schemas.set(`${agent._id}/${c.name}`, JSON.parse(c.parameters_json));
  }
  const schemaOnly = join(DATA_DIR, 'params-schema-only');
  for (const [key, schema] of Object.entries(
    JSON.parse(readFileSync(join(schemaOnly, 'schemas.json'), 'utf8')) as Record<string, unknown>,
  ))
    schemas.set(key, schema);
  const sets: Record<string, LabelledRequest[]> = {
    dev: zh.fit,
    holdout: readJsonl(join(DATA_DIR, 'zh-routing', 'params-holdout.jsonl')),
    'tuning-crosslingual': readJsonl(join(DATA_DIR, 'zh-routing', 'tuning-crosslingual.jsonl')),
    'schema-only': readJsonl(join(schemaOnly, 'requests.jsonl')),
  };
  const only = argument('--set');
  // PARAMS_LEXICON=0: without the hand-written vocabulary, to see how much rests on words someone wrote down.
  if (process.env.PARAMS_LEXICON === '0') for (const key of Object.keys(LEXICON)) delete LEXICON[key];
  const files = process.env.PARAMS_EMBED === '0' ? undefined : locateModel('multilingual-e5-small');
  const embed = files ? await OnnxEmbedder.load(KNOWN_MODELS['multilingual-e5-small']!, files) : undefined;
  const lexicon = process.env.PARAMS_LEXICON !== '0';
  const result: Record<string, unknown> = {
    now: NOW.toISOString(),
    embed: embed ? 'multilingual-e5-small' : 'none',
    lexicon,
  };
  for (const [name, rows] of Object.entries(sets)) {
    if (only && !only.split(',').includes(name)) continue;
    const { summary, rows: scored } = await scoreAll(
      rows,
      schemas,
      (text, schema, now) => extractParameters(text, schema, { now, ...(embed ? { embed } : {}) }),
      NOW,
    );
    const failures = scored
      .filter((r) => !r.exact)
      .map(({ text, capability, wrong, missed, extra, got, want }) => ({
        text,
        capability,
        wrong,
        missed,
        extra,
        got,
        want,
      }));
    result[name] = { ...summary, failures };
    console.log(`${name}: ${JSON.stringify(summary)}`);
    if (process.argv.includes('--failures')) for (const f of failures) console.log(JSON.stringify(f));
  }
  const name = `params-zh-routing${embed ? '' : '-no-embed'}${lexicon ? '' : '-no-lexicon'}`;
  console.log(`written: ${writeResultFile(join(__dirname, '..', 'results'), name, result)}`);
}

void main();
