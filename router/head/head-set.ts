/**
 * The heads that decide a catalogue's requests together, with the operating point fitted over all of them. A set is
 * replaced whole when a catalogue's late heads join (head-matcher.ts), so a decision reads one set throughout: never
 * one set's heads with another's calibration.
 */
import type { LanguageModel } from '../embeddings/combined-embedder';
import { containsCjk } from '../words';
import { calibrate, DEFAULT_CALIBRATION, type Calibration, type CalibrationOptions } from './calibration';
import type { CardBorders } from './card-borders';
import { averagePredictions, predict, type HeadPrediction } from './head';
import { calibrationSamples, type JudgingHead } from './held-out-scores';

/** One model's trained head. */
export interface ModelHead {
  model: LanguageModel;
  head: JudgingHead;
}

export interface HeadSet {
  /** The heads, the first model's first: card borders are drawn in its space. */
  heads: ModelHead[];
  calibration: Calibration;
  /** Set when the time guard cut a training short (head.ts `timeGuardMs`). */
  timeGuard?: string;
  /** `<model>+…+head`: the heads that decide, for the explanation. */
  provider: string;
}

/** Capabilities, most probable first, whose card borders are checked for a request (card-borders.ts). */
const BORDERS_CHECKED = 8;

/** Capabilities, most probable first, whose fences a request's gap is measured against (card-borders.ts, `gaps`). */
const GAP_CANDIDATES = 4;

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

/** The heads as one set, calibrated on their held-out predictions together. */
export function headSet(
  heads: ModelHead[],
  options: { calibration?: Partial<CalibrationOptions>; guardMs: number },
): HeadSet {
  const trained = heads.map((h) => h.head);
  const models = heads.map((h) => h.model);
  const timeGuard = timeGuardNote(models, trained, options.guardMs);
  return {
    heads,
    calibration: calibrate(calibrationSamples(trained), { ...DEFAULT_CALIBRATION, ...options.calibration }),
    ...(timeGuard ? { timeGuard } : {}),
    provider: `${models.map((m) => m.provider.id).join('+')}+head`,
  };
}

/**
 * The set's prediction for a request: the heads that read its language (a model read for one language judges only
 * requests in it) averaged; card borders and gaps in the first model's space (a multilingual one judges every request).
 */
export async function classifyWith(
  set: HeadSet,
  borders: CardBorders | undefined,
  intent: string,
): Promise<HeadPrediction> {
  const chinese = containsCjk(intent);
  const language = chinese ? 'zh' : 'en';
  const judges = set.heads.filter(({ head }) => !head.language || head.language === language);
  const queries = await Promise.all(judges.map(({ model }) => model.provider.embedQuery(intent)));
  const prediction = averagePredictions(judges.map(({ head }, i) => predict(head.model, queries[i]!, chinese)));
  const first = judges.findIndex((j) => j === set.heads[0]);
  const firstQuery = first >= 0 ? queries[first]! : undefined;
  const crossed =
    borders && firstQuery
      ? borders.crossed(
          firstQuery,
          prediction.ranked.slice(0, BORDERS_CHECKED).map((r) => r.key),
          intent,
        )
      : undefined;
  const gaps =
    borders && firstQuery
      ? borders.gaps(
          firstQuery,
          prediction.ranked.slice(0, GAP_CANDIDATES).map((r) => r.key),
        )
      : undefined;
  return {
    ...prediction,
    calibration: set.calibration,
    provider: set.provider,
    ...(crossed?.size ? { crossed } : {}),
    ...(gaps?.size ? { gaps } : {}),
  };
}
