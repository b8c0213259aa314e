/**
 * The similarity stage with a trained head: while a catalogue's head trains (in a worker), the plain similarity
 * matcher answers; once it is ready, `classify` gives the head's calibrated probabilities. A request that comes
 * right after a catalogue change waits a bounded time for the head, so small catalogues are always served by it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, humanName, type CapabilityCandidate } from '../candidates';
import type { LanguageModel } from '../embeddings/combined-embedder';
import type { EmbeddingProvider } from '../embeddings/provider';
import type { IntentMatcher, MatcherFactory } from '../matcher';
import type { VectorCache } from '../semantic-index';
import { containsCjk } from '../words';
import { canonicalOrder } from './canonical-order';
import { CardBorders, type Fence, type Lesson } from './card-borders';
import { exclusionClauses } from './exclusions';
import { calibrate, DEFAULT_CALIBRATION, type Calibration, type CalibrationOptions } from './calibration';
import {
  averagePredictions,
  CARD_TEXTS_UNIT,
  DEFAULT_HEAD_OPTIONS,
  predict,
  type HeadModel,
  type HeadOptions,
  type HeadTrainingInput,
} from './head';
import { trainInWorker } from './head-trainer';
import { calibrationSamples, type JudgingHead } from './held-out-scores';

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

/** What the card says the capability does not do: its own description's exclusions and its agent's. */
export function excludedTexts(candidate: CapabilityCandidate): string[] {
  return [
    ...new Set([
      ...exclusionClauses(candidate.capability.description),
      ...exclusionClauses(candidate.agent_description),
    ]),
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
}

/** Capabilities, most probable first, whose card borders are checked for a request (card-borders.ts). */
const BORDERS_CHECKED = 8;

/** Capabilities, most probable first, whose fences a request's gap is measured against (card-borders.ts, `gaps`). */
const GAP_CANDIDATES = 4;

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

/**
 * What to say when the time guard cut a training short (head.ts `timeGuardMs`): that head, and the operating point
 * fitted on it, are not the ones the catalogue alone gives. Undefined when it cut none.
 */
export function timeGuardNote(
  models: readonly LanguageModel[],
  trained: readonly JudgingHead[],
  guardMs: number,
): string | undefined {
  const cut = trained.flatMap((h, i) =>
    h.model.training.time_guard_cuts ? [`${models[i]!.provider.id} (${h.model.training.time_guard_cuts})`] : [],
  );
  if (cut.length === 0) return undefined;
  return `the ${guardMs} ms time guard cut trainings short: ${cut.join(', ')}; this head depends on the machine's load, a restart may fit another operating point`;
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

/**
 * One head per model. A model read for one language (bge-small-en) only judges requests in that language, where
 * its probabilities are averaged with the multilingual model's; the first model's head comes first.
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
    const candidates = canonicalOrder(listed);
    let heads: JudgingHead[] | undefined;
    let calibration: Calibration | undefined;
    let borders: CardBorders | undefined;
    let timeGuard: string | undefined;
    const training = (async () => {
      // Both models embed at once (the pool shares their texts out to every core), then train side by side.
      const trained: JudgingHead[] = await Promise.all(
        models.map(async (model) => {
          const input = await headInput(model.provider, candidates, generic, cache, options.head);
          if (model === models[0])
            borders = CardBorders.of(
              input,
              candidates.map(excludedTexts),
              await lessonsOf(model.provider, candidates, cache),
              counterExampleFences(input, generic.length, candidates),
            );
          const { model: head, heldOut } = await trainInWorker({ input, folds: options.folds ?? DEFAULT_FOLDS });
          options.onTrained?.(model.provider.id, candidates.length, head.training);
          return { model: head, heldOut, ...(model.language ? { language: model.language } : {}) };
        }),
      );
      calibration = calibrate(calibrationSamples(trained), { ...DEFAULT_CALIBRATION, ...options.calibration });
      timeGuard = timeGuardNote(models, trained, options.head?.timeGuardMs ?? DEFAULT_HEAD_OPTIONS.timeGuardMs);
      heads = trained;
    })();
    let failure: string | undefined;
    training.catch((error: Error) => {
      failure = error.message;
      options.onError?.(error);
    });
    // Only requests in the first `waitMs` after the catalogue changed wait for the head; later ones, while a big
    // catalogue still trains, are answered by similarity at once.
    const waitUntil = Date.now() + options.waitMs;
    const matcher: IntentMatcher = {
      provider: `${models.map((m) => m.provider.id).join('+')}+head`,
      score: (intent) => fallback.score(intent),
      async classify(intent, { wait = true } = {}) {
        if (!heads && wait && Date.now() < waitUntil)
          await Promise.race([training.catch(() => undefined), delay(waitUntil - Date.now())]);
        if (!heads) return undefined;
        const chinese = containsCjk(intent);
        const language = chinese ? 'zh' : 'en';
        const judges = heads.flatMap((h, i) =>
          !h.language || h.language === language ? [{ m: models[i]!, head: h.model }] : [],
        );
        const queries = await Promise.all(judges.map(({ m }) => m.provider.embedQuery(intent)));
        const prediction = averagePredictions(judges.map(({ head }, i) => predict(head, queries[i]!, chinese)));
        // Card borders are drawn in the first model's space (a multilingual one judges every request).
        const first = judges.findIndex(({ m }) => m === models[0]);
        const crossed =
          borders && first >= 0
            ? borders.crossed(
                queries[first]!,
                prediction.ranked.slice(0, BORDERS_CHECKED).map((r) => r.key),
              )
            : undefined;
        const gaps =
          borders && first >= 0
            ? borders.gaps(
                queries[first]!,
                prediction.ranked.slice(0, GAP_CANDIDATES).map((r) => r.key),
              )
            : undefined;
        return {
          ...prediction,
          ...(calibration ? { calibration } : {}),
          ...(crossed?.size ? { crossed } : {}),
          ...(gaps?.size ? { gaps } : {}),
        };
      },
      ready: () =>
        training.then(
          () => undefined,
          () => undefined,
        ),
      head: () =>
        heads
          ? { ...(calibration ? { calibration } : {}), ...(timeGuard ? { time_guard: timeGuard } : {}) }
          : failure === undefined
            ? undefined
            : { error: failure },
    };
    return matcher;
  };
}
