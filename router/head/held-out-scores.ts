/**
 * Held-out predictions (cross-validation.ts) as the router would score them: the heads that judge a text's
 * language averaged, replicas grouped, the best group's probability as the score — and what accepting it means.
 */
import type { CalibrationSample } from './calibration';
import type { HeldOutSample } from './cross-validation';
import { groupScores } from './decide';
import { averagePredictions, sameService, type HeadModel, type HeadPrediction } from './head';

export interface JudgingHead {
  model: HeadModel;
  heldOut: HeldOutSample[];
  /** The language the head's model reads (none: every language). */
  language?: 'zh' | 'en';
}

/** Capabilities whose card is in the other language than a text (Chinese or not). */
function crossLingualKeys(model: HeadModel, chinese: boolean): Set<string> {
  return new Set(model.keys.filter((_, k) => (model.chineseCard[k] === 1) !== chinese));
}

/**
 * One sample per held-out text (all heads held out the same texts in the same order). A text a card excludes
 * counts only when its own capability comes first: whether another capability should take it is not known.
 */
export function calibrationSamples(heads: readonly JudgingHead[]): CalibrationSample[] {
  const first = heads[0];
  if (!first) return [];
  const same = (a: string, b: string) => sameService(first.model, a, b);
  const crossLingual = { zh: crossLingualKeys(first.model, true), en: crossLingualKeys(first.model, false) };
  const samples: CalibrationSample[] = [];
  first.heldOut.forEach((text, i) => {
    const language = text.chinese ? 'zh' : 'en';
    const judges = heads.filter((h) => !h.language || h.language === language);
    if (judges.length === 0) return;
    const prediction = averagePredictions(
      judges.map((h): HeadPrediction => ({
        ranked: h.heldOut[i]!.ranked,
        none: h.heldOut[i]!.none,
        same,
        crossLingual: crossLingual[language],
      })),
    );
    const best = groupScores(prediction.ranked, same, prediction.crossLingual)[0];
    if (!best) return;
    const own = text.label >= 0 ? first.model.keys[text.label]! : undefined;
    const hit = own !== undefined && best.keys.includes(own);
    const outcome =
      text.kind === 'example'
        ? hit
          ? 'right'
          : 'wrong'
        : text.kind === 'none'
          ? 'out_of_scope'
          : hit
            ? 'excluded'
            : undefined;
    if (outcome)
      samples.push({
        score: best.probability,
        crossLingual: best.crossLingual === true,
        outcome,
        ...(text.card ? { card: true } : {}),
      });
  });
  return samples;
}
