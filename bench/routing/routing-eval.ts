/** Runs a labelled data set through the router and scores it. Shared by bench:routing and fit-threshold. */
import type { AgentWithInstances } from '../../catalogue/agent-queries';
import { extractParameters } from '../../router/extraction';
import type { HeadSettings } from '../../router/head/decide';
import type { MatcherFactory } from '../../router/matcher';
import { Router } from '../../router/router';
import { fitThreshold, type FitOptions, type ScoredSample } from '../../router/threshold';
import type { LabelledRequest } from '../lib/routing-data';
import { percentile } from '../lib/stats';

export interface RoutedSample {
  request: LabelledRequest;
  /** The router's first choice before any threshold, and its match score. */
  top: string | null;
  score: number;
  /** Whether a trained head decided (its score is a probability) rather than plain similarity. */
  by_head: boolean;
  decision_ms: number;
}

/** Head thresholds that never refuse and never ask: every request's best capability and its probability can be read. */
const NEVER_REFUSE: HeadSettings = { accept: 0, escalate: 0, ambiguity: Number.POSITIVE_INFINITY };

/** A router over a fixed catalogue; by default it never refuses, so each request's best match and score can be read. */
export function scoringRouter(
  agents: AgentWithInstances[],
  matcherFactory: MatcherFactory,
  threshold = Number.NEGATIVE_INFINITY,
  head: HeadSettings = NEVER_REFUSE,
): Router {
  return new Router({
    agents: async () => agents,
    matcherFactory,
    heartbeat: { intervalMs: 10_000, ttlMs: 3_600_000, graceWindows: 1 },
    openCircuits: async () => new Set(),
    stats: async () => new Map(),
    threshold,
    head,
  });
}

export async function routeAll(
  router: Router,
  requests: LabelledRequest[],
  onProgress?: (done: number) => void,
): Promise<RoutedSample[]> {
  const out: RoutedSample[] = [];
  for (const request of requests) {
    const decision = await router.route({ tenant: 'bench', caller: { tenant: 'bench' }, intent: request.text });
    const first = decision.explanation.candidates[0];
    const top =
      decision.kind === 'refused' ? (first?.key ?? null) : `${decision.target.agent_id}/${decision.target.capability}`;
    // A head's score is its best group's probability as the thresholds see it; similarity's, the best match.
    const head = decision.explanation.head;
    const score = head ? head.score : (first?.match ?? 0);
    out.push({ request, top, score, by_head: head !== undefined, decision_ms: decision.explanation.timings_ms.total });
    if (onProgress && out.length % 200 === 0) onProgress(out.length);
  }
  return out;
}

export function isRight(sample: RoutedSample): boolean {
  const { expected, acceptable } = sample.request;
  return expected !== null && (sample.top === expected || (acceptable ?? []).includes(sample.top ?? ''));
}

export function toScored(samples: RoutedSample[]): ScoredSample[] {
  return samples.map((s) => ({ score: s.score, inScope: s.request.expected !== null, correct: isRight(s) }));
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;

/** Each sample's threshold: one for all, or (cross-validation) the one fitted on the folds it was not in. */
type ThresholdOf = number | ((sample: RoutedSample) => number);

export function report(samples: RoutedSample[], threshold: ThresholdOf) {
  const thresholdOf = typeof threshold === 'number' ? () => threshold : threshold;
  const accepted = (s: RoutedSample) => s.score >= thresholdOf(s);
  const inScope = samples.filter((s) => s.request.expected !== null);
  const outOfScope = samples.filter((s) => s.request.expected === null);
  const agentOf = (key: string | null) => key?.split('/')[0];
  const agentRight = inScope.filter((s) => accepted(s) && agentOf(s.top) === agentOf(s.request.expected)).length;
  const times = samples.map((s) => s.decision_ms).sort((a, b) => a - b);
  const kinds = [...new Set(samples.map((s) => s.request.kind))];
  const perKind = Object.fromEntries(
    kinds.map((kind) => {
      const rows = samples.filter((s) => s.request.kind === kind);
      const positive = rows.filter((s) => s.request.expected !== null);
      const value = positive.length
        ? positive.filter((s) => isRight(s) && accepted(s)).length / positive.length
        : rows.filter((s) => !accepted(s)).length / rows.length;
      return [kind, { n: rows.length, [positive.length ? 'accuracy' : 'refused']: round(value) }];
    }),
  );
  return {
    ...(typeof threshold === 'number' ? { threshold } : {}),
    n: samples.length,
    in_scope_accuracy: round(inScope.filter((s) => isRight(s) && accepted(s)).length / Math.max(1, inScope.length)),
    in_scope_accuracy_without_threshold: round(inScope.filter(isRight).length / Math.max(1, inScope.length)),
    oos_recall: round(outOfScope.filter((s) => !accepted(s)).length / Math.max(1, outOfScope.length)),
    agent_accuracy: round(agentRight / Math.max(1, inScope.length)),
    per_kind: perKind,
    p50_decision_ms: round(percentile(times, 50)),
    p95_decision_ms: round(percentile(times, 95)),
  };
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Exactly the labelled parameters: the same fields, each with the same value, nothing extra. */
export function sameParameters(got: Record<string, unknown>, want: Record<string, unknown>): boolean {
  return (
    Object.keys(want).length === Object.keys(got).length && Object.entries(want).every(([k, v]) => sameValue(got[k], v))
  );
}

/** Heuristic extraction on the expected capability, against the labelled parameters. */
export async function parameterReport(requests: LabelledRequest[], agents: AgentWithInstances[]) {
  const schemas = new Map<string, unknown>();
  for (const { agent } of agents) {
    for (const c of agent.capabilities)
      if (c.parameters_json) schemas.set(`${agent._id}/${c.name}`, JSON.parse(c.parameters_json));
  }
  const labelled = requests.filter((r) => r.expected && r.params && Object.keys(r.params).length > 0);
  let exact = 0;
  let fields = 0;
  let fieldsRight = 0;
  let extraWrong = 0;
  for (const r of labelled) {
    const got = await extractParameters(r.text, schemas.get(r.expected!));
    const want = r.params!;
    for (const [k, v] of Object.entries(want)) {
      fields++;
      if (sameValue(got[k], v)) fieldsRight++;
    }
    for (const [k, v] of Object.entries(got)) if (!(k in want) || !sameValue(want[k], v)) extraWrong++;
    if (sameParameters(got, want)) exact++;
  }
  return {
    requests_with_params: labelled.length,
    exact_match: round(exact / Math.max(1, labelled.length)),
    field_recall: round(fieldsRight / Math.max(1, fields)),
    wrong_or_extra_fields: extraWrong,
  };
}

/**
 * k-fold cross-validation of the refusal threshold on a set without a held-out split: each request is judged with
 * the threshold fitted on the other folds, so no figure comes from a threshold fitted on the request it reports.
 * Folds are fixed by position (every k-th request), so the same data give the same folds.
 */
export function crossValidate(samples: RoutedSample[], options: FitOptions = {}, folds = 5) {
  const foldOf = new Map(samples.map((s, i) => [s, i % folds]));
  const thresholds = Array.from(
    { length: folds },
    (_, f) => fitThreshold(toScored(samples.filter((s) => foldOf.get(s) !== f)), options).threshold,
  );
  return { folds, thresholds, ...report(samples, (s) => thresholds[foldOf.get(s)!]!) };
}
