/**
 * Chooses the similarity provider from configuration: the local ONNX model(s) when their files are present, an
 * OpenAI-compatible embeddings endpoint when configured, BM25 otherwise. Says which, and why.
 */
import { CombinedEmbedder, type LanguageModel } from './embeddings/combined-embedder';
import { KNOWN_MODELS, locateModel } from './embeddings/model-files';
import { OnnxEmbedder } from './embeddings/onnx-embedder';
import { OpenAiEmbedder } from './embeddings/openai-embedder';
import type { EmbeddingProvider } from './embeddings/provider';
import { hybridMatcherFactory, lexicalMatcherFactory, semanticMatcherFactory, type MatcherFactory } from './matcher';

export type ProviderChoice = 'auto' | 'local' | 'openai' | 'lexical';

export interface MatcherSettings {
  provider: ProviderChoice;
  localModels: string[];
  openai?: { model: string; baseURL?: string; apiKey?: string };
  onnxThreads?: number;
  /** Share of BM25 in the blend with semantic scores (0 = semantic only). */
  lexicalWeight: number;
}

export interface ChosenMatcher {
  factory: MatcherFactory;
  /** `local`, `openai` or `lexical`. */
  kind: 'local' | 'openai' | 'lexical';
  provider: string;
  note: string;
}

/** The default pairing: no multilingual model ships in a registry package here, so a Chinese and an English one. */
export const DEFAULT_LOCAL_MODELS = ['bge-small-zh-v1.5-q', 'bge-small-en-v1.5-q'];

/** Share of BM25 in the hybrid score; fitted on CLINC150 val and zh dev (never their test splits). */
export const DEFAULT_LEXICAL_WEIGHT = 0.2;

export async function loadLocalEmbedder(ids: string[], threads = 1, env: NodeJS.ProcessEnv = process.env): Promise<EmbeddingProvider | undefined> {
  const models: LanguageModel[] = [];
  for (const id of ids) {
    const spec = KNOWN_MODELS[id];
    const files = locateModel(id, env);
    if (!spec || !files) return undefined;
    models.push({ provider: await OnnxEmbedder.load(spec, files, threads), ...(spec.language ? { language: spec.language } : {}) });
  }
  return models.length === 1 ? models[0]!.provider : new CombinedEmbedder(models);
}

export async function chooseMatcher(settings: MatcherSettings, env: NodeJS.ProcessEnv = process.env): Promise<ChosenMatcher> {
  if (settings.provider === 'openai' || (settings.provider === 'auto' && settings.openai)) {
    if (!settings.openai) throw new Error('ROUTER_PROVIDER=openai needs EMBEDDINGS_MODEL');
    const embedder = new OpenAiEmbedder(settings.openai);
    const semantic = semanticMatcherFactory(embedder);
    const factory = settings.lexicalWeight > 0 ? hybridMatcherFactory(semantic, lexicalMatcherFactory(), settings.lexicalWeight) : semantic;
    return { factory, kind: 'openai', provider: embedder.id, note: `OpenAI-compatible embeddings (${settings.openai.model})` };
  }
  if (settings.provider === 'local' || settings.provider === 'auto') {
    const embedder = await loadLocalEmbedder(settings.localModels, settings.onnxThreads, env);
    if (embedder) {
      const factory = settings.lexicalWeight > 0 ? hybridMatcherFactory(semanticMatcherFactory(embedder), lexicalMatcherFactory(), settings.lexicalWeight) : semanticMatcherFactory(embedder);
      return { factory, kind: 'local', provider: embedder.id, note: `local model ${embedder.id}` };
    }
    const why = `model files for ${settings.localModels.join(', ')} not found (run \`npm run models\`)`;
    if (settings.provider === 'local') throw new Error(`ROUTER_PROVIDER=local, but ${why}`);
    return { factory: lexicalMatcherFactory(), kind: 'lexical', provider: 'lexical', note: `lexical matching (BM25): ${why}` };
  }
  return { factory: lexicalMatcherFactory(), kind: 'lexical', provider: 'lexical', note: 'lexical matching (BM25), as configured' };
}
