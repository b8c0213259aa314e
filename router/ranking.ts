/**
 * The ranking stage: among capabilities that match well enough, the match score is blended with how the
 * capability has done (success rate as a Bayesian estimate, latency as an EWMA), how loaded it is, and a bonus
 * for the untried that fades as it gets traffic. Only near-equal matches are re-ordered: a clearly better match
 * is never beaten by a faster agent.
 */
import type { CapabilityStats } from '../store/routing-stats';

export interface RankingWeights {
  /** Matches within this distance of the best one are re-ordered by the blend. */
  matchMargin: number;
  success: number;
  latency: number;
  /** Latency at which half the latency penalty applies, in ms. */
  latencyHalfMs: number;
  load: number;
  busy: number;
  exploration: number;
  /** Deliveries after which the exploration bonus has halved. */
  explorationHalfLife: number;
}

export const DEFAULT_WEIGHTS: RankingWeights = {
  matchMargin: 0.05,
  success: 0.1,
  latency: 0.04,
  latencyHalfMs: 2_000,
  load: 0.04,
  busy: 0.03,
  exploration: 0.03,
  explorationHalfLife: 10,
};

/** Posterior mean of the success rate under a uniform Beta(1, 1) prior: a new capability starts at 0.5, not 0. */
export function successEstimate(stats: CapabilityStats | undefined): number {
  const s = stats?.successes ?? 0;
  const f = stats?.failures ?? 0;
  return (s + 1) / (s + f + 2);
}

export function explorationBonus(stats: CapabilityStats | undefined, weights: RankingWeights): number {
  const deliveries = (stats?.successes ?? 0) + (stats?.failures ?? 0);
  return weights.exploration * 0.5 ** (deliveries / weights.explorationHalfLife);
}

export function latencyPenalty(stats: CapabilityStats | undefined, weights: RankingWeights): number {
  const ms = stats?.latency_ewma_ms;
  return ms === undefined ? 0 : (weights.latency * ms) / (ms + weights.latencyHalfMs);
}

export interface RankInput {
  key: string;
  match: number;
  stats?: CapabilityStats;
  busy: boolean;
  in_flight: number;
  capacity?: number;
}

export interface RankBreakdown {
  key: string;
  match: number;
  success: number;
  latency: number;
  load: number;
  busy: number;
  exploration: number;
  total: number;
}

export function loadPenalty(input: RankInput, weights: RankingWeights): number {
  const share = input.capacity ? input.in_flight / input.capacity : input.in_flight / (input.in_flight + 10);
  return weights.load * Math.min(1, share);
}

export function breakdown(input: RankInput, weights: RankingWeights): RankBreakdown {
  const success = weights.success * (successEstimate(input.stats) - 0.5);
  const latency = -latencyPenalty(input.stats, weights);
  const load = -loadPenalty(input, weights);
  const busy = input.busy ? -weights.busy : 0;
  const exploration = explorationBonus(input.stats, weights);
  return {
    key: input.key,
    match: input.match,
    success,
    latency,
    load,
    busy,
    exploration,
    total: input.match + success + latency + load + busy + exploration,
  };
}

function byKey(a: { key: string }, b: { key: string }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * Orders candidates: those within `matchMargin` of the best match by their blended total, the rest after them by
 * match. Ties break on match, then key, so the same inputs always give the same order.
 */
export function rank(inputs: readonly RankInput[], weights: RankingWeights = DEFAULT_WEIGHTS): RankBreakdown[] {
  if (inputs.length === 0) return [];
  const best = Math.max(...inputs.map((i) => i.match));
  const rows = inputs.map((i) => breakdown(i, weights));
  const close = rows.filter((r) => r.match >= best - weights.matchMargin);
  const far = rows.filter((r) => r.match < best - weights.matchMargin);
  close.sort((a, b) => b.total - a.total || b.match - a.match || byKey(a, b));
  far.sort((a, b) => b.match - a.match || byKey(a, b));
  return [...close, ...far];
}
