/**
 * The judge's place in a head's decision (router.ts, routeByHead): given the head's acceptance or refusal, ask the
 * judge when it matters (decision.ts), within its bounds (bounded-judge.ts), and return the verdict to act on (the
 * head's, or the other one: a refusal of its acceptance, an acceptance of its refusal) with what happened, for the
 * explanation. Any failure to get an answer (the judge busy, a timeout, an error, no yes/no) leaves the head's verdict
 * as it was.
 */
import type { CapabilityCandidate } from '../candidates';
import { operatingPointOf, type HeadThresholds, type HeadVerdict, type ScoredGroup } from '../head/decide';
import type { BoundedJudge } from './bounded-judge';
import { combinedScore, judgedVerdict, judgeReason, nearFence, type HeadView, type JudgeReason } from './decision';
import type { NearestFence } from '../head/head';

export interface JudgeExplanation {
  judge: string;
  reason: JudgeReason;
  capability: string;
  /** Near a fence: the nearest fence text (an exclusion clause, counter-example or lesson) and its gap. */
  fence?: string;
  gap?: number;
  /** `busy`: the judge had no room for it in time (it reads when free), so the head decided alone. */
  outcome: 'agreed' | 'overruled' | 'busy' | 'timeout' | 'error' | 'abstained';
  p_yes?: number;
  score?: number;
  cached?: boolean;
  ms?: number;
  error?: string;
}

export interface JudgedVerdict {
  verdict: HeadVerdict;
  explanation?: JudgeExplanation;
}

export async function reviewVerdict(
  judge: BoundedJudge,
  input: {
    intent: string;
    verdict: HeadVerdict;
    groups: readonly ScoredGroup[];
    thresholds: HeadThresholds;
    candidate: (key: string) => CapabilityCandidate;
    revision: string;
    /** The head's nearest fences and their gaps (card-borders.ts), by capability. */
    gaps?: ReadonlyMap<string, NearestFence>;
  },
): Promise<JudgedVerdict> {
  const { verdict, groups } = input;
  const first = readable(verdict);
  if (!first) return { verdict };
  const second = groups.find((g) => g !== first);
  const top = input.candidate(first.keys[0]!);
  const nearest = input.gaps?.get(top.key);
  const view: HeadView = {
    verdict: verdict.kind,
    best: first.probability,
    accept: operatingPointOf(first, input.thresholds).accept,
    second: second?.probability ?? 0,
    gap: nearest?.gap,
    crossLingual: first.crossLingual === true,
  };
  const reason = judgeReason(view);
  if (!reason) return { verdict };
  const base = {
    judge: judge.name,
    reason,
    capability: top.key,
    ...(nearest && nearFence(view) ? { fence: nearest.fence, gap: round(nearest.gap) } : {}),
  };
  // The farther the head's verdict is from its threshold, the sooner it is shed when the judge is busy.
  const outcome = await judge.ask(
    { intent: input.intent, candidate: top },
    input.revision,
    Math.abs(view.best - view.accept),
  );
  if (outcome.kind === 'off') return { verdict };
  if (outcome.kind === 'busy') return { verdict, explanation: { ...base, outcome: 'busy' } };
  if (outcome.kind === 'timeout' || outcome.kind === 'abstained')
    return { verdict, explanation: { ...base, outcome: outcome.kind, ms: outcome.ms } };
  if (outcome.kind === 'error')
    return { verdict, explanation: { ...base, outcome: 'error', error: outcome.message, ms: outcome.ms } };
  const judged = judgedVerdict(outcome.yes, view);
  const explanation: JudgeExplanation = {
    ...base,
    outcome: 'agreed',
    p_yes: round(outcome.yes),
    score: round(combinedScore(outcome.yes, view)),
    cached: outcome.cached,
    ms: outcome.ms,
  };
  if (judged === verdict.kind) return { verdict, explanation };
  const overruled: HeadVerdict =
    judged === 'refuse' ? { kind: 'refuse', best: first } : { kind: 'accept', group: first };
  return { verdict: overruled, explanation: { ...explanation, outcome: 'overruled' } };
}

/** The group a verdict the judge may read is about: an acceptance's, or a refusal's best one (not a card's own exclusion). */
function readable(verdict: HeadVerdict): ScoredGroup | undefined {
  if (verdict.kind === 'accept') return verdict.group;
  if (verdict.kind === 'refuse' && !verdict.crossed) return verdict.best;
  return undefined;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
