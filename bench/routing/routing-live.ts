/**
 * The routing benchmark through the api's path: a Router built as `createRouter` builds it (default settings: the
 * provider's similarity threshold, each head's own fitted thresholds, no LLM), over a catalogue that changes as a
 * user's would — registered, then a card edited, then every instance gone offline — with requests sent right
 * after each change. Decisions are judged as a caller gets them (routed or `input_required` = accepted).
 */
import type { AgentWithInstances } from '../../catalogue/agent-queries';
import type { HeadSettings } from '../../router/head/decide';
import type { BoundedJudge } from '../../router/judge/bounded-judge';
import { candidatesOf } from '../../router/candidates';
import type { MatcherFactory } from '../../router/matcher';
import { Router, type RouteDecision } from '../../router/router';
import type { LabelledRequest } from '../lib/routing-data';
import { sameParameters } from './routing-eval';
import { laterClock, sameValue } from '../params/params-eval';
import { extractParametersSync } from '../../router/extraction';
import { percentile } from '../lib/stats';

/** The tenant's agents as the api's catalogue copy would hand them out: replaced whole on every change. */
export class LiveCatalogue {
  constructor(public agents: AgentWithInstances[]) {}

  /** A card edited: `agentIndex`'s first capability gets a longer description (a new revision). */
  editCard(agentIndex: number, addition: string): void {
    this.agents = this.agents.map((entry, i) => {
      if (i !== agentIndex) return entry;
      const [first, ...rest] = entry.agent.capabilities;
      const capabilities = [{ ...first!, description: `${first!.description} ${addition}` }, ...rest];
      return { ...entry, agent: { ...entry.agent, revision: entry.agent.revision + 1, capabilities } };
    });
  }

  /** Every instance marked offline by the sweeper (liveness only: no card changes). */
  allOffline(): void {
    this.agents = this.agents.map((entry) => ({
      ...entry,
      instances: entry.instances.map((i) => ({ ...i, liveness: 'offline' as const })),
    }));
  }
}

/**
 * Brings a matcher factory to where an api that has been up a while is: models loaded, the generic out-of-scope text
 * embedded (at start), a first tiny head trained — so the time to a catalogue's head is the catalogue's own.
 */
export async function warmUp(factory: MatcherFactory, agents: readonly AgentWithInstances[]): Promise<void> {
  const matcher = await factory(candidatesOf(agents).slice(0, 1));
  await matcher.ready?.();
  await matcher.full?.();
}

export function apiRouter(
  catalogue: LiveCatalogue,
  matcherFactory: MatcherFactory,
  settings: { threshold: number; head: HeadSettings },
  judge?: BoundedJudge,
): Router {
  return new Router({
    ...(judge ? { judge } : {}),
    agents: async () => catalogue.agents,
    matcherFactory,
    // Offline instances stay eligible here (a long TTL), so the benchmark measures the decision, not liveness.
    heartbeat: { intervalMs: 10_000, ttlMs: 3_600_000, graceWindows: 1 },
    openCircuits: async () => new Set(),
    stats: async () => new Map(),
    ...settings,
  });
}

export interface Decided {
  request: LabelledRequest;
  decision: RouteDecision;
  ms: number;
  /** Fields whose value for this request changes with the clock ("明天"): never labelled, so not scored (markClockFields). */
  clockFields?: string[];
}

/**
 * Marks each labelled in-scope request's clock-dependent fields, by the rule of bench:params (params-eval.ts): the
 * expected capability's parameters read at two clocks, and the fields that differ. The labels never hold such a
 * value (no labeller knows when a request is sent), so a decision's value for one is not scored.
 */
export function markClockFields(rows: Decided[], agents: readonly AgentWithInstances[]): void {
  const schemas = new Map(
    candidatesOf(agents)
      .filter((c) => c.capability.parameters_json)
      .map((c) => [c.key, JSON.parse(c.capability.parameters_json!) as unknown]),
  );
  const now = new Date();
  for (const d of rows) {
    const schema = d.request.expected ? schemas.get(d.request.expected) : undefined;
    if (!schema || !d.request.params) continue;
    const at = extractParametersSync(d.request.text, schema, { now });
    const later = extractParametersSync(d.request.text, schema, { now: laterClock(now) });
    d.clockFields = Object.keys(at).filter((k) => !sameValue(at[k], later[k]));
  }
}

export async function decideAll(
  router: Router,
  requests: readonly LabelledRequest[],
  onProgress?: (done: number) => void,
): Promise<Decided[]> {
  const out: Decided[] = [];
  for (const request of requests) {
    const started = performance.now();
    const decision = await router.route({ tenant: 'bench', caller: { tenant: 'bench' }, intent: request.text });
    out.push({ request, decision, ms: performance.now() - started });
    if (onProgress && out.length % 100 === 0) onProgress(out.length);
  }
  return out;
}

const accepted = (d: Decided) => d.decision.kind !== 'refused';
/** The capability a decision routed to (`agent_id/capability`), or null when refused. */
export const chosen = (d: Decided) =>
  d.decision.kind === 'refused' ? null : `${d.decision.target.agent_id}/${d.decision.target.capability}`;
/** The best capability before any threshold (the explanation's first candidate). */
const top = (d: Decided) => chosen(d) ?? d.decision.explanation.candidates[0]?.key ?? null;
const isExpected = (d: Decided, key: string | null) =>
  key !== null && (key === d.request.expected || (d.request.acceptable ?? []).includes(key));
const round = (n: number) => Math.round(n * 10_000) / 10_000;
const share = (rows: Decided[], test: (d: Decided) => boolean) =>
  rows.length ? round(rows.filter(test).length / rows.length) : null;

/** Accepted-and-right for requests some capability should take; refused for the others; per kind and overall. */
export function decisionReport(rows: Decided[]) {
  const inScope = rows.filter((d) => d.request.expected !== null);
  const negatives = rows.filter((d) => d.request.expected === null);
  const kinds = [...new Set(rows.map((d) => d.request.kind))];
  const times = rows.map((d) => d.ms).sort((a, b) => a - b);
  const decidedBy: Record<string, number> = {};
  for (const d of rows)
    decidedBy[d.decision.explanation.decided_by] = (decidedBy[d.decision.explanation.decided_by] ?? 0) + 1;
  const refusals: Record<string, number> = {};
  for (const d of rows)
    if (d.decision.kind === 'refused') refusals[d.decision.code] = (refusals[d.decision.code] ?? 0) + 1;
  return {
    n: rows.length,
    raw_top1: share(inScope, (d) => isExpected(d, top(d))),
    in_scope_accepted_and_right: share(inScope, (d) => accepted(d) && isExpected(d, chosen(d))),
    in_scope_accepted_wrong: share(inScope, (d) => accepted(d) && !isExpected(d, chosen(d))),
    negatives_refused: share(negatives, (d) => !accepted(d)),
    per_kind: Object.fromEntries(
      kinds.map((kind) => {
        const of = rows.filter((d) => d.request.kind === kind);
        const positive = of.some((d) => d.request.expected !== null);
        return [
          kind,
          positive
            ? { n: of.length, accepted_and_right: share(of, (d) => accepted(d) && isExpected(d, chosen(d))) }
            : { n: of.length, refused: share(of, (d) => !accepted(d)) },
        ];
      }),
    ),
    decided_by: decidedBy,
    refusals,
    p50_decision_ms: round(percentile(times, 50)),
    p95_decision_ms: round(percentile(times, 95)),
    routed_parameters: routedParameters(rows),
    ...(rows.some((d) => d.decision.explanation.judge) ? { judge: judgeReport(rows) } : {}),
  };
}

/**
 * Parameters as a caller of `POST /v1/route` gets them (the decision's `params`, routed or `input_required`), on the
 * in-scope requests labelled with parameters: exactly right of those routed to the expected capability, and of all
 * of them (a refusal or a wrong capability counts as wrong).
 */
export function routedParameters(rows: Decided[]) {
  const labelled = rows.filter(
    (d) => d.request.expected !== null && d.request.params && Object.keys(d.request.params).length > 0,
  );
  const routedRight = labelled.filter((d) => accepted(d) && isExpected(d, chosen(d)));
  const exact = routedRight.filter(
    (d) => d.decision.kind !== 'refused' && sameParameters(scoredParameters(d), d.request.params!),
  );
  // The figure as first measured, when a clock-dependent value counted as a wrong extra field: kept to compare.
  const strict = routedRight.filter(
    (d) => d.decision.kind !== 'refused' && sameParameters(d.decision.params, d.request.params!),
  );
  return {
    labelled: labelled.length,
    routed_right: routedRight.length,
    exact_of_routed_right: routedRight.length ? round(exact.length / routedRight.length) : null,
    exact_of_labelled: labelled.length ? round(exact.length / labelled.length) : null,
    clock_fields_scored_strictly: {
      exact_of_routed_right: routedRight.length ? round(strict.length / routedRight.length) : null,
      exact_of_labelled: labelled.length ? round(strict.length / labelled.length) : null,
    },
  };
}

/** The decision's parameters but for the clock-dependent fields the labels lack. */
function scoredParameters(d: Decided): Record<string, unknown> {
  if (d.decision.kind === 'refused') return {};
  const unscored = (d.clockFields ?? []).filter((k) => !(k in d.request.params!));
  return Object.fromEntries(Object.entries(d.decision.params).filter(([k]) => !unscored.includes(k)));
}

/**
 * What the judge did: the share of requests it read (a model call, not a cached answer), its outcomes, the decision
 * time of the requests it read, and per request the head's and the judge's numbers (to fit decision.ts's constants).
 */
export function judgeReport(rows: Decided[]) {
  const asked = rows.filter((d) => d.decision.explanation.judge);
  const read = asked.filter(
    (d) => d.decision.explanation.judge!.p_yes !== undefined && !d.decision.explanation.judge!.cached,
  );
  const times = read.map((d) => d.ms).sort((a, b) => a - b);
  const outcomes: Record<string, number> = {};
  for (const d of asked) {
    const key = `${d.decision.explanation.judge!.reason}:${d.decision.explanation.judge!.outcome}`;
    outcomes[key] = (outcomes[key] ?? 0) + 1;
  }
  return {
    share_read: share(rows, (d) => read.includes(d)),
    share_wanted: share(rows, (d) => asked.includes(d)),
    outcomes,
    p50_judged_decision_ms: read.length ? Math.round(percentile(times, 50)) : null,
    p95_judged_decision_ms: read.length ? Math.round(percentile(times, 95)) : null,
    rows: asked.map((d) => {
      const { head, judge } = d.decision.explanation;
      return {
        text: d.request.text,
        kind: d.request.kind,
        expected: d.request.expected,
        capability: judge!.capability,
        right: isExpected(d, judge!.capability),
        verdict: head?.verdict,
        best: head?.best,
        accept: head?.accept,
        reason: judge!.reason,
        p_yes: judge!.p_yes ?? null,
        outcome: judge!.outcome,
        ms: Math.round(d.ms),
      };
    }),
  };
}

/** The catalogue revisions whose head decided the rows (a previous one while the current head trains). */
export function headRevisions(rows: Decided[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of rows) {
    const revision = d.decision.explanation.head?.revision ?? `(${d.decision.explanation.decided_by})`;
    out[revision] = (out[revision] ?? 0) + 1;
  }
  return out;
}
