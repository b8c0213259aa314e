/**
 * Chooses the similarity provider from configuration: the local ONNX model(s) when their files are present, an
 * OpenAI-compatible embeddings endpoint when configured, BM25 otherwise. Says which, and why.
 */
import { CombinedEmbedder, type LanguageModel } from './embeddings/combined-embedder';
import { coresUpTo } from '../util/cores';
import { EmbeddingPool } from './embeddings/embedding-pool';
import { KNOWN_MODELS, locateModel, type KnownModel } from './embeddings/model-files';
import type { OnnxModelFiles } from './embeddings/onnx-embedder';
import { OpenAiEmbedder } from './embeddings/openai-embedder';
import type { EmbeddingProvider } from './embeddings/provider';
import { DEFAULT_HEAD_WAIT_MS } from '../platform/config';
import { FIRST_HEADS, headMatcherFactory, type HeadMatcherOptions } from './head/head-matcher';
import { HeadTrainingStopped, trainingsExited } from './head/head-trainer';
import { hybridMatcherFactory, lexicalMatcherFactory, semanticMatcherFactory, type MatcherFactory } from './matcher';
import { VectorCache } from './semantic-index';

export type ProviderChoice = 'auto' | 'local' | 'openai' | 'lexical';

export interface MatcherSettings {
  provider: ProviderChoice;
  localModels: string[];
  openai?: { model: string; baseURL?: string; apiKey?: string };
  onnxThreads?: number;
  /** Worker threads that run the local models (embedding-pool.ts). */
  embeddingThreads?: number;
  /** Share of BM25 in the blend with semantic scores (0 = semantic only). */
  lexicalWeight: number;
  /** Train a classifier head per catalogue (embedding providers only). */
  head?: boolean;
  /** How long a request waits for a head still training. */
  headWaitMs?: number;
  onHeadError?: (error: Error) => void;
  onHeadTrained?: HeadMatcherOptions['onTrained'];
}

export interface ChosenMatcher {
  factory: MatcherFactory;
  /** `local`, `openai` or `lexical`. */
  kind: 'local' | 'openai' | 'lexical';
  provider: string;
  note: string;
  /** The multilingual model, for enum parameters that no word names (router/params/enums.ts). */
  parameterEmbedder?: EmbeddingProvider;
  /** Stops the threads running the local models, letting each finish its batch (before the process exits). */
  close?: () => Promise<void>;
}

/**
 * One multilingual model (≈ 100 languages), so Chinese and English requests reach capabilities described in either;
 * an English model, whose head also judges requests without Chinese characters (CLINC150 val: raw top-1
 * 86.5 → 89.6 %); and Universal Sentence Encoder multilingual, whose head joins late (head-matcher.ts `FIRST_HEADS`)
 * and carries cross-lingual requests (zh/en locked part 78.2 → 87.2 %; docs/routing.md).
 */
export const DEFAULT_LOCAL_MODELS = ['multilingual-e5-small', 'bge-small-en-v1.5-q', 'use-multilingual-v3-q'];

/** Share of BM25 in the hybrid score; fitted on CLINC150 val and zh dev (never their test splits). */
export const DEFAULT_LEXICAL_WEIGHT = 0.2;

/** Worker threads running the local models when not configured: one per core, at most two. */
export const DEFAULT_EMBEDDING_THREADS = coresUpTo(2);

/** How the local models run: worker threads, and onnxruntime threads per session. */
export interface LocalModelRun {
  workers?: number;
  threads?: number;
}

/** The local models and how to stop the threads that run them. */
export interface LocalModels {
  models: LanguageModel[];
  /** Models past the first FIRST_HEADS whose files were not found: left out (their heads would only join late). */
  missing: string[];
  /** Lets each thread finish the batch it is on, then stops it (embedding-pool.ts). */
  close(): Promise<void>;
}

/**
 * The local models, each with the language it reads (none for a multilingual one), run by one pool of worker
 * threads; undefined if one of the first FIRST_HEADS is missing (a later one is left out).
 */
export async function loadLocalModels(
  ids: string[],
  run: LocalModelRun = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<LocalModels | undefined> {
  const found: { spec: KnownModel; files: OnnxModelFiles }[] = [];
  const missing: string[] = [];
  for (const [i, id] of ids.entries()) {
    const spec = KNOWN_MODELS[id];
    const files = locateModel(id, env);
    if (spec && files) found.push({ spec, files });
    else if (i < FIRST_HEADS) return undefined;
    else missing.push(id);
  }
  const pool = await EmbeddingPool.start(found, {
    workers: run.workers ?? DEFAULT_EMBEDDING_THREADS,
    threads: run.threads ?? 1,
  });
  return {
    models: found.map(({ spec }) => ({
      provider: pool.provider(spec),
      ...(spec.language ? { language: spec.language } : {}),
    })),
    missing,
    close: () => pool.close(),
  };
}

/** Several models as one embedder, for plain similarity. */
function asOneEmbedder(models: LanguageModel[]): EmbeddingProvider {
  return models.length === 1 ? models[0]!.provider : new CombinedEmbedder(models);
}

/** Similarity (and BM25 when weighted), with a trained head per model on top when enabled. */
function embeddingMatcher(models: LanguageModel[], settings: MatcherSettings, stop: AbortSignal): MatcherFactory {
  const cache = new VectorCache();
  // Each model embeds a catalogue text once, through the cache, whether similarity or a head asks for it.
  const cached = models.map((m) => ({ ...m, provider: cache.through(m.provider) }));
  // Plain similarity (what answers before a head is ready, or with ROUTER_HEAD=off; its thresholds were fitted on the
  // first two models) reads the first models only: a late model's texts would otherwise be embedded before the first
  // heads could start (CLINC150: ~3.5 s of CPU more to the head ready with USE).
  const semantic = semanticMatcherFactory(asOneEmbedder(cached.slice(0, FIRST_HEADS)), cache);
  const similarity =
    settings.lexicalWeight > 0
      ? hybridMatcherFactory(semantic, lexicalMatcherFactory(), settings.lexicalWeight)
      : semantic;
  if (!settings.head) return similarity;
  return headMatcherFactory(cached, similarity, cache, {
    waitMs: settings.headWaitMs ?? DEFAULT_HEAD_WAIT_MS,
    stop,
    ...(settings.onHeadError ? { onError: settings.onHeadError } : {}),
    ...(settings.onHeadTrained ? { onTrained: settings.onHeadTrained } : {}),
  });
}

/**
 * What stops the heads' trainings when the router closes: the running ones end at their next step and the process
 * may exit once their threads have (a thread stopped inside onnxruntime takes the process down).
 */
function headTrainingStop(): { signal: AbortSignal; stop: () => Promise<void> } {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    stop: async () => {
      controller.abort(new HeadTrainingStopped());
      await trainingsExited();
    },
  };
}

export async function chooseMatcher(
  settings: MatcherSettings,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ChosenMatcher> {
  if (settings.provider === 'openai' || (settings.provider === 'auto' && settings.openai)) {
    if (!settings.openai) throw new Error('ROUTER_PROVIDER=openai needs EMBEDDINGS_MODEL');
    const embedder = new OpenAiEmbedder(settings.openai);
    const heads = headTrainingStop();
    return {
      factory: embeddingMatcher([{ provider: embedder }], settings, heads.signal),
      kind: 'openai',
      provider: embedder.id,
      note: `OpenAI-compatible embeddings (${settings.openai.model})${settings.head ? ', a head per catalogue' : ''}`,
      close: heads.stop,
    };
  }
  if (settings.provider === 'local' || settings.provider === 'auto') {
    const local = await loadLocalModels(
      settings.localModels,
      {
        ...(settings.onnxThreads ? { threads: settings.onnxThreads } : {}),
        ...(settings.embeddingThreads ? { workers: settings.embeddingThreads } : {}),
      },
      env,
    );
    if (local) {
      const { models, missing } = local;
      const id = models.map((m) => m.provider.id).join('+');
      const multilingual = models.find((m) => !m.language)?.provider;
      const heads = headTrainingStop();
      const left = missing.length ? ` (left out, files not found: ${missing.join(', ')}; run \`npm run models\`)` : '';
      return {
        factory: embeddingMatcher(models, settings, heads.signal),
        kind: 'local',
        provider: id,
        note: `local model ${id}${settings.head ? ', a head per catalogue' : ''}${left}`,
        ...(multilingual ? { parameterEmbedder: multilingual } : {}),
        close: async () => {
          await Promise.all([heads.stop(), local.close()]);
        },
      };
    }
    const why = `model files for ${settings.localModels.join(', ')} not found (run \`npm run models\`)`;
    if (settings.provider === 'local') throw new Error(`ROUTER_PROVIDER=local, but ${why}`);
    return {
      factory: lexicalMatcherFactory(),
      kind: 'lexical',
      provider: 'lexical',
      note: `lexical matching (BM25): ${why}`,
    };
  }
  return {
    factory: lexicalMatcherFactory(),
    kind: 'lexical',
    provider: 'lexical',
    note: 'lexical matching (BM25), as configured',
  };
}
