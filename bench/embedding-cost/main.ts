/**
 * `npm run bench:embedding-cost [-- --models multilingual-e5-small,multilingual-e5-small-int8,bge-small-en-v1.5-q]
 *    [--repeats 5] [--clinc 500]`
 * What embedding a catalogue costs per text, for several local models side by side in one process (the machine is
 * shared: each repeat runs every model in turn, so load hits them alike). The texts are those a head learns from
 * (router/head/head-matcher.ts `trainingTexts`, plus counter-examples): all of zh-routing's, and an even sample of
 * CLINC150's. Per model and set: the median over repeats of wall and process CPU ms per text (one onnxruntime
 * session of one thread: a text's cost on one core; the router runs one such session per model in each of its
 * ROUTER_EMBEDDING_THREADS worker threads), and for variants of the first model (`<id>-…`, e.g. its int8 conversion) how near their
 * vectors are to its own (cosine, same texts).
 * Writes bench/results/embedding-cost.json.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { candidatesOf } from '../../router/candidates';
import { KNOWN_MODELS, locateModel } from '../../router/embeddings/model-files';
import { OnnxEmbedder } from '../../router/embeddings/onnx-embedder';
import { trainingTexts } from '../../router/head/head-matcher';
import { writeResultFile } from '../lib/result-file';
import { loadClinc150, loadZhRouting, type RoutingDataset } from '../lib/routing-data';
import { median } from '../lib/stats';

const RESULTS = resolve(__dirname, '..', 'results');

function catalogueTexts(set: RoutingDataset): string[] {
  return candidatesOf(set.agents).flatMap((c) => [...trainingTexts(c), ...(c.capability.counter_examples ?? [])]);
}

/** Every k-th text, so that about `count` remain. */
function sample(texts: string[], count: number): string[] {
  const step = Math.max(1, Math.floor(texts.length / count));
  return texts.filter((_, i) => i % step === 0).slice(0, count);
}

interface Run {
  wallMs: number;
  cpuMs: number;
}

async function timed(embedder: OnnxEmbedder, texts: string[]): Promise<{ run: Run; vectors: Float32Array[] }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const vectors = await embedder.embedDocuments(texts);
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { run: { wallMs, cpuMs: (used.user + used.system) / 1000 }, vectors };
}

function cosine(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      models: { type: 'string', default: 'multilingual-e5-small,multilingual-e5-small-int8,bge-small-en-v1.5-q' },
      repeats: { type: 'string', default: '5' },
      clinc: { type: 'string', default: '500' },
    },
  });
  const ids = values.models.split(',');
  const embedders = await Promise.all(
    ids.map(async (id) => {
      const files = locateModel(id);
      if (!KNOWN_MODELS[id] || !files) throw new Error(`model ${id} not found (npm run models -- ${id})`);
      return OnnxEmbedder.load(KNOWN_MODELS[id]!, files, 1);
    }),
  );
  const sets = {
    'zh-routing': catalogueTexts(loadZhRouting()),
    clinc150: sample(catalogueTexts(loadClinc150()), Number(values.clinc)),
  };
  const runs = new Map<string, Run[]>();
  const vectorsOf = new Map<string, Float32Array[]>();
  // One untimed pass: onnxruntime's first runs of each shape allocate.
  for (const embedder of embedders) await embedder.embedDocuments(sets['zh-routing'].slice(0, 16));
  for (let r = 0; r < Number(values.repeats); r++) {
    for (const [set, texts] of Object.entries(sets)) {
      for (const embedder of embedders) {
        const { run, vectors } = await timed(embedder, texts);
        const key = `${embedder.id} ${set}`;
        runs.set(key, [...(runs.get(key) ?? []), run]);
        vectorsOf.set(key, vectors);
        process.stdout.write(`\r  repeat ${r + 1}: ${key} ${round(run.wallMs / texts.length)} ms/text        `);
      }
    }
  }
  process.stdout.write('\n');
  const rows = Object.entries(sets).flatMap(([set, texts]) =>
    ids.map((id) => {
      const own = runs.get(`${id} ${set}`)!;
      const row = {
        model: id,
        set,
        texts: texts.length,
        wall_ms_per_text: round(median(own.map((r) => r.wallMs))! / texts.length),
        cpu_ms_per_text: round(median(own.map((r) => r.cpuMs))! / texts.length),
      };
      if (id === ids[0] || !id.startsWith(`${ids[0]}-`)) return row;
      const reference = vectorsOf.get(`${ids[0]} ${set}`)!;
      const cosines = vectorsOf
        .get(`${id} ${set}`)!
        .map((v, i) => cosine(v, reference[i]!))
        .sort((a, b) => a - b);
      return { ...row, cosine_to_first_min: round(cosines[0]!, 4), cosine_to_first_median: round(median(cosines)!, 4) };
    }),
  );
  console.table(rows);
  const { loadavg } = await import('node:os');
  const file = writeResultFile(RESULTS, 'embedding-cost', {
    measured_at: new Date().toISOString(),
    load_average: loadavg().map((l) => round(l)),
    repeats: Number(values.repeats),
    rows,
  });
  console.log(`written ${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
