/**
 * The similarity stage with a trained head: while a catalogue's head trains (in a worker), the plain similarity
 * matcher answers; once it is ready, `classify` gives the head's calibrated probabilities. A request that comes
 * right after a catalogue change waits a bounded time for the head, so small catalogues are always served by it.
 * The first FIRST_HEADS models' heads serve first; a further model's joins late, the whole set swapped at once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, humanName, type CapabilityCandidate } from '../candidates';
import type { LanguageModel } from '../embeddings/combined-embedder';
import type { EmbeddingProvider } from '../embeddings/provider';
import type { HeadState, IntentMatcher, LateHeads, MatcherFactory } from '../matcher';
import type { VectorCache } from '../semantic-index';
import { containsCjk } from '../words';
import { canonicalOrder } from './canonical-order';
import { CardBorders, type Fence, type Lesson } from './card-borders';
import { excludedTexts } from './exclusions';
import { fenceWordsOf } from './fence-words';
import type { CalibrationOptions } from './calibration';
import {
  CARD_TEXTS_UNIT,
  DEFAULT_HEAD_OPTIONS,
  type HeadModel,
  type HeadOptions,
  type HeadTrainingInput,
} from './head';
import { trainInWorker } from './head-trainer';
import { classifyWith, headSet, type HeadSet, type ModelHead } from './head-set';

/** Generic out-of-scope requests shipped with Agent-Reach (CC0, see the file's header). */
export function genericOutOfScope(): string[] {
  return readFileSync(join(__dirname, 'out-of-scope.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

/**
 * What a capability's class is learned from: its examples, and its card's name with its description, the name alone
 * and the tags. (The description alone is not a text of its own: it would nearly repeat the first card text, and a
 * long description is most of the embedding time of a ready head.)
 */
export function trainingTexts(candidate: CapabilityCandidate): string[] {
  const { capability } = candidate;
  return [
    ...capability.examples,
    describe(candidate),
    humanName(capability.name),
    ...(capability.tags.length ? [capability.tags.join(', ')] : []),
  ];
}

/** The capabilities' lessons (requests reported misrouted to them), embedded by `embedder` through the cache. */
async function lessonsOf(
  embedder: EmbeddingProvider,
  candidates: readonly CapabilityCandidate[],
  cache: VectorCache,
): Promise<Lesson[][]> {
  const texts = candidates.map((c) => [...(c.misroutes ?? [])]);
  const vectors = await cache.embed(embedder, texts.flat());
  let offset = 0;
  return texts.map((own) => own.map((text) => ({ text, vector: vectors[offset++]! })));
}

export interface HeadMatcherOptions {
  /** How long a request waits for a head still training before the similarity matcher answers it. */
  waitMs: number;
  head?: Partial<HeadOptions>;
  onError?: (error: Error) => void;
  /** Told once per model when its head is ready (for logs and benchmarks). */
  onTrained?: (model: string, capabilities: number, training: HeadModel['training']) => void;
  /** Cross-validation folds for the calibration (DEFAULT_FOLDS). */
  folds?: number;
  calibration?: Partial<CalibrationOptions>;
  /** Aborted when the router closes: trainings waiting are dropped, running ones end at their next step. */
  stop?: AbortSignal;
}

/**
 * Models whose heads decide first. A further model's head joins late: it embeds and trains once the first heads
 * serve, then the full set, calibrated over every head, replaces them (docs/routing.md, "Heads that join late").
 */
export const FIRST_HEADS = 2;

/** Per candidate, its counter-examples with their vectors: in a head input's "none" texts, after the `generic` ones. */
function counterExampleFences(
  input: HeadTrainingInput,
  generic: number,
  candidates: readonly CapabilityCandidate[],
): Fence[][] {
  let offset = generic;
  return candidates.map((c) =>
    (c.capability.counter_examples ?? []).map((text) => ({ text, vector: input.none[offset++]! })),
  );
}

/** Folds of the cross-validation that calibrates a head. */
export const DEFAULT_FOLDS = 4;

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}

/** What one model's head learns from: the candidates' texts and the generic out-of-scope text, embedded through the cache. */
export async function headInput(
  embedder: EmbeddingProvider,
  candidates: readonly CapabilityCandidate[],
  generic: string[],
  cache: VectorCache,
  options?: Partial<HeadOptions>,
): Promise<HeadTrainingInput> {
  const texts = candidates.map(trainingTexts);
  const excluded = candidates.map(excludedTexts);
  const none = [...generic, ...candidates.flatMap((c) => c.capability.counter_examples ?? [])];
  const flat = await cache.embed(embedder, [...texts.flat(), ...excluded.flat(), ...none]);
  let offset = 0;
  const take = (n: number) => flat.slice(offset, (offset += n));
  const vectors = texts.map((t) => take(t.length));
  const classes = candidates.map((c, i) => ({
    key: c.key,
    vectors: vectors[i]!,
    chinese: texts[i]!.map(containsCjk),
    // Card texts last in `trainingTexts`: they repeat each other, so cross-validation holds them out together.
    units: texts[i]!.map((_, j) => (j < c.capability.examples.length ? j : CARD_TEXTS_UNIT)),
    excluded: take(excluded[i]!.length),
    excludedChinese: excluded[i]!.map(containsCjk),
  }));
  return { classes, none: take(none.length), noneChinese: none.map(containsCjk), ...(options ? { options } : {}) };
}

/** What a catalogue's heads are trained with. */
interface Training {
  candidates: readonly CapabilityCandidate[];
  generic: string[];
  cache: VectorCache;
  options: HeadMatcherOptions;
  /** Aborted when the catalogue has moved on (work not started yet is dropped) or the router closes (see `stop`). */
  signal?: AbortSignal;
}

/** One model's head, with the input it learned from. */
async function trainModelHead(model: LanguageModel, t: Training): Promise<ModelHead & { input: HeadTrainingInput }> {
  t.signal?.throwIfAborted();
  const input = await headInput(model.provider, t.candidates, t.generic, t.cache, t.options.head);
  const folds = t.options.folds ?? DEFAULT_FOLDS;
  const { model: head, heldOut } = await trainInWorker({ input, folds }, t.signal);
  t.options.onTrained?.(model.provider.id, t.candidates.length, head.training);
  return { model, input, head: { model: head, heldOut, ...(model.language ? { language: model.language } : {}) } };
}

/** The models' heads side by side (the pool shares their texts out to every core; one training per core). */
function trainModelHeads(models: readonly LanguageModel[], t: Training) {
  return Promise.all(models.map((model) => trainModelHead(model, t)));
}

/** The card borders, in the first model's space (its head input holds the counter-examples' vectors). */
async function bordersOf(model: LanguageModel, input: HeadTrainingInput, t: Training): Promise<CardBorders> {
  const { candidates, generic, cache } = t;
  const lessons = await lessonsOf(model.provider, candidates, cache);
  return CardBorders.of(
    input,
    candidates.map(excludedTexts),
    lessons,
    counterExampleFences(input, generic.length, candidates),
    fenceWordsOf(candidates),
  );
}

const setOptions = (options: HeadMatcherOptions) => ({
  ...(options.calibration ? { calibration: options.calibration } : {}),
  guardMs: options.head?.timeGuardMs ?? DEFAULT_HEAD_OPTIONS.timeGuardMs,
});

/**
 * One catalogue's heads: the first models' train at once and serve; then the late ones train, and the full set
 * replaces the first in one assignment. `retire` (the catalogue moved on) drops the late heads' work not yet done and
 * never swaps their result in.
 */
class CatalogueHeads {
  serving?: HeadSet;
  borders?: CardBorders;
  failure?: string;
  late?: LateHeads;
  /** Settles when the first heads serve, or failed to. */
  readonly first: Promise<void>;
  /** Settles when every head serves, or the late ones failed or were discarded. */
  readonly full: Promise<void>;
  private readonly retired = new AbortController();

  constructor(
    private readonly models: readonly LanguageModel[],
    private readonly t: Omit<Training, 'signal'>,
  ) {
    this.first = this.trainFirst();
    this.full = this.first.then(() => this.trainLate());
  }

  retire(): void {
    this.retired.abort(new Error('the catalogue changed'));
  }

  private async trainFirst(): Promise<void> {
    try {
      const stop = this.t.options.stop;
      const trained = await trainModelHeads(this.models.slice(0, FIRST_HEADS), {
        ...this.t,
        ...(stop ? { signal: stop } : {}),
      });
      this.borders = await bordersOf(trained[0]!.model, trained[0]!.input, this.t);
      this.serving = headSet(
        trained.map(({ model, head }) => ({ model, head })),
        setOptions(this.t.options),
      );
    } catch (error) {
      this.failure = (error as Error).message;
      this.t.options.onError?.(error as Error);
    }
  }

  private async trainLate(): Promise<void> {
    const models = this.models.slice(FIRST_HEADS);
    const first = this.serving;
    if (!first || models.length === 0) return;
    const ids = models.map((m) => m.provider.id);
    this.late = { models: ids, state: 'training' };
    const stop = this.t.options.stop;
    const signal = stop ? AbortSignal.any([this.retired.signal, stop]) : this.retired.signal;
    try {
      const trained = await trainModelHeads(models, { ...this.t, signal });
      signal.throwIfAborted();
      const late = trained.map(({ model, head }) => ({ model, head }));
      this.serving = headSet([...first.heads, ...late], setOptions(this.t.options));
      this.late = { models: ids, state: 'joined' };
    } catch (error) {
      if (signal.aborted) this.late = { models: ids, state: 'discarded' };
      else {
        this.late = { models: ids, state: 'failed', error: (error as Error).message };
        this.t.options.onError?.(
          new Error(`late heads (${ids.join(', ')}) failed, the first ones serve: ${(error as Error).message}`),
        );
      }
    }
  }
}

/**
 * One head per model. A model read for one language (bge-small-en) only judges requests in that language, where
 * its probabilities are averaged with the multilingual model's; the first model's head comes first. Heads past
 * FIRST_HEADS join late.
 */
export function headMatcherFactory(
  models: LanguageModel[],
  similarity: MatcherFactory,
  cache: VectorCache,
  options: HeadMatcherOptions,
): MatcherFactory {
  const generic = genericOutOfScope();
  // The generic out-of-scope texts are the same for every catalogue: embedded once, at start, not after the first
  // registration.
  for (const model of models) cache.embed(model.provider, generic).catch((error: Error) => options.onError?.(error));
  return async (listed) => {
    const fallback = await similarity(listed);
    const heads = new CatalogueHeads(models, { candidates: canonicalOrder(listed), generic, cache, options });
    // Only requests in the first `waitMs` after the catalogue changed wait for the head; later ones, while a big
    // catalogue still trains, are answered by similarity at once.
    const waitUntil = Date.now() + options.waitMs;
    const matcher: IntentMatcher = {
      provider: `${models.map((m) => m.provider.id).join('+')}+head`,
      score: (intent) => fallback.score(intent),
      async classify(intent, { wait = true } = {}) {
        if (!heads.serving && wait && Date.now() < waitUntil)
          await Promise.race([heads.first, delay(waitUntil - Date.now())]);
        // Read once: a swap while this request is decided does not reach it.
        const set = heads.serving;
        return set ? classifyWith(set, heads.borders, intent) : undefined;
      },
      ready: () => heads.first,
      full: () => heads.full,
      retire: () => heads.retire(),
      head: () => headState(heads),
    };
    return matcher;
  };
}

/** What `IntentMatcher.head` says: the serving set, its late heads, or the failure; undefined while the first train. */
function headState(heads: CatalogueHeads): HeadState | undefined {
  const set = heads.serving;
  if (!set) return heads.failure === undefined ? undefined : { error: heads.failure };
  return {
    calibration: set.calibration,
    heads: set.heads.map((h) => h.model.provider.id),
    ...(set.timeGuard ? { time_guard: set.timeGuard } : {}),
    ...(heads.late ? { late: heads.late } : {}),
  };
}
