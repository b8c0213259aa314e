import { z } from 'zod';
import { positiveMs } from './fields';

/**
 * How long requests right after a catalogue change may wait for its head when no previous head answers them: long
 * enough for a catalogue of a few dozen capabilities (zh/en, 36: ready in ~4 s on two cores), short enough that a
 * huge one does not hold requests; after it, similarity answers until the head is ready.
 */
export const DEFAULT_HEAD_WAIT_MS = 5_000;

/**
 * Router and models: how a request's intent finds a capability (similarity, the classifier head, the judge) and the
 * OpenAI-compatible services it may use (docs/routing.md).
 */
export const routerShape = {
  /**
   * Similarity provider of the intent router: `auto` (OpenAI-compatible embeddings when EMBEDDINGS_MODEL is set,
   * else the local models when their files are present, else lexical), `local`, `openai` or `lexical`. @default auto
   */
  ROUTER_PROVIDER: z.enum(['auto', 'local', 'openai', 'lexical']).default('auto'),
  /**
   * Local embedding models, comma-separated (see `npm run models`; also known: `bge-small-zh-v1.5-q`,
   * `all-minilm-l6-v2-q`). A model read for one language judges only requests in it. The first two models' heads
   * serve first; a further model's head joins once trained (and is left out if its files are missing).
   * @default multilingual-e5-small,bge-small-en-v1.5-q,use-multilingual-v3-q
   */
  ROUTER_LOCAL_MODELS: z
    .string()
    .regex(/^[a-z0-9.-]+(,[a-z0-9.-]+)*$/, 'comma-separated model ids')
    .default('multilingual-e5-small,bge-small-en-v1.5-q,use-multilingual-v3-q'),
  /**
   * Whether a classifier head is trained on each tenant's catalogue (in a worker thread, whenever its cards change)
   * and decides with calibrated probabilities; `off` keeps plain similarity with ROUTER_THRESHOLD. @default on
   */
  ROUTER_HEAD: z.enum(['on', 'off']).default('on'),
  /**
   * The head's probability from which the best capability is routed to, overriding the threshold each catalogue's
   * head fits for itself (a cross-lingual request is held to this ÷ 1.5). @default fitted per catalogue (see docs/routing.md)
   */
  ROUTER_HEAD_ACCEPT: z.coerce.number().min(0).max(1).optional(),
  /**
   * The lower end of the escalation band, overriding the fitted one: between it and the accept threshold the LLM
   * decides; without an LLM (`LLM_MODEL`) there is no band. @default fitted per catalogue (see docs/routing.md)
   */
  ROUTER_HEAD_ESCALATE: z.coerce.number().min(0).max(1).optional(),
  /**
   * How long a request right after a catalogue change waits for the new head when no previous head can answer
   * (the first catalogue, or a request the previous head refuses), before plain similarity does, in ms. A
   * catalogue of a few dozen capabilities has its head within it (docs/benchmarks.md, "Head ready"). @default 5000
   */
  ROUTER_HEAD_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(DEFAULT_HEAD_WAIT_MS),
  /** Share of BM25 in the hybrid match score (0 = embeddings only). @default 0.2 */
  ROUTER_LEXICAL_WEIGHT: z.coerce.number().min(0).max(1).default(0.2),
  /**
   * Refusal threshold on the match score; default: the value fitted for the provider in use (local 0.77,
   * lexical 0.46, openai 0.5 — not fitted; see docs/routing.md). Optional.
   */
  ROUTER_THRESHOLD: z.coerce.number().min(-1).max(2).optional(),
  /** How long a session keeps routing to the same agent and instance, in ms. @default 1800000 (30 min) */
  ROUTER_SESSION_TTL_MS: positiveMs.default(1_800_000),
  /** Threads of the local model per process. @default 1 */
  ROUTER_ONNX_THREADS: z.coerce.number().int().min(1).max(64).default(1),
  /**
   * Worker threads running the local models (each holds every model: ~400 MB of memory per thread with
   * multilingual-e5-small and bge-small-en — weights, onnxruntime's buffers, tokenizers). A catalogue's texts are
   * shared out to all of them; the api's own thread never embeds.
   * @default one per core, at most 2
   */
  ROUTER_EMBEDDING_THREADS: z.coerce.number().int().min(1).max(16).optional(),
  /**
   * The judge, a model that reads whether the head's choice does what the request asks (docs/routing.md, "The
   * judge"): `off`, `llm` (the OpenAI-compatible chat endpoint of LLM_BASE_URL / LLM_API_KEY), `local` (a GGUF
   * model on the CPU; `npm run models -- --judge` installs it) or `auto`: `local` where it is installed, the host
   * has 2 CPU cores and 5 GiB of memory free at start and a judgement timed there takes at most half of
   * ROUTER_JUDGE_TIMEOUT_MS (off until that probe ends), else `off` (logged, and shown in GET /v1/router/status).
   * @default auto
   */
  ROUTER_JUDGE: z.enum(['off', 'llm', 'local', 'auto']).default('auto'),
  /**
   * The judge's model: for `local` a GGUF file path, for `llm` a chat model name.
   * @default local: the cached Qwen2.5-Coder-1.5B-Instruct Q4_K_M; llm: LLM_MODEL
   */
  ROUTER_JUDGE_MODEL: z.string().min(1).optional(),
  /** How long a request waits for the judge (in line and reading), in ms; then the head's verdict stands. @default 3000 */
  ROUTER_JUDGE_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(3_000),
  /**
   * How long a request waits, in ms, for the local judge's model to fill required parameters the heuristic
   * extraction left empty (in line and generating; values the request does not state are dropped); then the
   * request is `input_required` as before. 0 (the default): the model never fills parameters — a fill holds the
   * judge's model for seconds (5–20 s on two busy cores), during which judgements wait. Only where the local judge
   * is on (with LLM_MODEL set, the LLM fills them instead).
   * @default 0
   */
  ROUTER_PARAMS_MODEL_TIMEOUT_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  /** CPU threads of the local judge. @default 2 */
  ROUTER_JUDGE_THREADS: z.coerce.number().int().min(1).max(64).default(2),
  /** OpenAI-compatible base URL for embeddings (e.g. http://localhost:11434/v1 for Ollama). Optional. */
  EMBEDDINGS_BASE_URL: z.url().optional(),
  /** Embedding model name at that endpoint; setting it turns OpenAI-compatible embeddings on. Optional. */
  EMBEDDINGS_MODEL: z.string().min(1).optional(),
  /** API key for the embeddings endpoint. Optional. */
  EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  /** OpenAI-compatible base URL of the LLM used as routing fallback and parameter extractor. Optional. */
  LLM_BASE_URL: z.url().optional(),
  /** Chat model name; setting it turns the LLM fallback on. Optional. */
  LLM_MODEL: z.string().min(1).optional(),
  /** API key for the LLM endpoint. Optional. */
  LLM_API_KEY: z.string().min(1).optional(),
};

type RouterEnv = z.infer<z.ZodObject<typeof routerShape>>;

/** The router's similarity settings. */
export function matcherSettings(config: RouterEnv) {
  return {
    provider: config.ROUTER_PROVIDER,
    localModels: config.ROUTER_LOCAL_MODELS.split(','),
    lexicalWeight: config.ROUTER_LEXICAL_WEIGHT,
    onnxThreads: config.ROUTER_ONNX_THREADS,
    ...(config.ROUTER_EMBEDDING_THREADS ? { embeddingThreads: config.ROUTER_EMBEDDING_THREADS } : {}),
    head: config.ROUTER_HEAD === 'on',
    headWaitMs: config.ROUTER_HEAD_WAIT_MS,
    ...(config.EMBEDDINGS_MODEL
      ? {
          openai: {
            model: config.EMBEDDINGS_MODEL,
            ...(config.EMBEDDINGS_BASE_URL ? { baseURL: config.EMBEDDINGS_BASE_URL } : {}),
            ...(config.EMBEDDINGS_API_KEY ? { apiKey: config.EMBEDDINGS_API_KEY } : {}),
          },
        }
      : {}),
  };
}

/** The `llm` judge needs a chat model of its own or the LLM's. */
export function checkJudgeModel(env: RouterEnv, ctx: z.RefinementCtx): void {
  if (env.ROUTER_JUDGE === 'llm' && !env.ROUTER_JUDGE_MODEL && !env.LLM_MODEL) {
    ctx.addIssue({
      code: 'custom',
      path: ['ROUTER_JUDGE'],
      message: 'llm needs a chat model: set LLM_MODEL or ROUTER_JUDGE_MODEL',
    });
  }
}
