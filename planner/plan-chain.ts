/**
 * One free-text request → a proposed chain (docs/chains.md, "Planning a chain"): split it (planner/split.ts), route
 * every sub-request through the router as any intent (rules, head, judge), connect the routed steps (planner/connect.ts).
 * Steps pin the target the router chose, so what runs is what was shown. Nothing runs here.
 */
import type { PartialCaller } from '../rules/api-key';
import type { RouteRequest } from '../router/route-request';
import type { RouteDecision, RouteExplanation } from '../router/router';
import { connect, type CapabilitySchemas, type RoutedSubRequest, type Unplanned } from './connect';
import type { When } from './conditions';
import { modelSplit, type SplitModel } from './model-split';
import { splitRequest, type SubRequest } from './split';
import { isSummaryRequest } from './summary-request';

export interface PlannerDeps {
  route(request: RouteRequest): Promise<RouteDecision>;
  /** The declared `parameters` and `returns` of a capability the router chose. */
  schemas(tenant: string, agentId: string, capability: string): Promise<CapabilitySchemas>;
  /** A model that may propose the split (the local judge's); without it, only the rules split. */
  splitModel?: SplitModel;
  /** How long the model may take to propose a split before the rules' split is used. */
  modelTimeoutMs?: number;
}

export type PlannerKind = 'rules' | 'model';
const DEFAULT_MODEL_TIMEOUT_MS = 15_000;

export interface PlanAsk {
  intent: string;
  /** Values the caller gives (what an `input_required` asked for): the chain input starts with them. */
  input?: Record<string, unknown>;
  /** `model`: the model proposes the split (checked, else the rules' split is used). Default `rules`. */
  planner?: PlannerKind;
}

export interface ProposedStep {
  id: string;
  target: { agent_id: string; capability: string };
  input?: Record<string, { $ref: string }>;
  after: string[];
  when?: When;
}

/** Why a step is what it is: its words, the router's reading of them, the values it reads. */
export interface StepExplanation {
  id: string;
  /** The sub-request it came from, and its condition as said. */
  text: string;
  condition?: { text: string; otherwise: boolean };
  /** Which planner made the step: `rules` (the deterministic splitter) or `model` (a model's checked proposal). */
  planner: PlannerKind;
  /** The router accepted it outright: no ambiguity, no escalation, no refusal. */
  accepted: boolean;
  capability: string;
  score?: number;
  decided_by: RouteExplanation['decided_by'];
  verdict?: string;
  judge?: RouteExplanation['judge'];
  /** What the router extracted from the sub-request's words. */
  params: Record<string, unknown>;
  refs: Record<string, string>;
  /** Parameters read from the chain input or an earlier result, not named in the sub-request itself. */
  carried: string[];
}

export interface ChainPlan {
  /** A body `POST /v1/chains` takes as it is. */
  chain: { input?: Record<string, unknown>; steps: ProposedStep[]; summary?: { request: string } };
  steps: StepExplanation[];
  /** What could not be planned: refused sub-requests, conditions not understood, parameters missing. */
  unplanned: Unplanned[];
  /** Every step accepted by the router and nothing left unplanned: `?run=true` may start it. */
  runnable: boolean;
  /** The planner that split the request; `fallback`: why a model's split was not used. */
  planner: { used: PlannerKind; fallback?: string };
  timings_ms: { split: number; route: number; total: number };
}

/** The router took it without doubt: routed (or routed with parameters to fill), not ambiguous, not escalated. */
export function acceptedOutright(decision: RouteDecision): boolean {
  if (decision.kind === 'refused') return false;
  const { explanation } = decision;
  if (explanation.decided_by === 'llm') return false;
  return explanation.head === undefined || explanation.head.verdict === 'accept';
}

async function routeOne(
  deps: PlannerDeps,
  caller: PartialCaller,
  sub: SubRequest,
): Promise<{ routed: RoutedSubRequest; decision: RouteDecision }> {
  const decision = await deps.route({ tenant: caller.tenant, caller, intent: sub.text });
  if (decision.kind === 'refused')
    return {
      decision,
      routed: { sub, params: {}, schemas: {}, refusal: { code: decision.code, message: decision.message } },
    };
  const target = { agent_id: decision.target.agent_id, capability: decision.target.capability };
  const schemas = await deps.schemas(caller.tenant, target.agent_id, target.capability);
  return { decision, routed: { sub, target, params: decision.params, schemas } };
}

export async function planChain(deps: PlannerDeps, caller: PartialCaller, ask: PlanAsk): Promise<ChainPlan> {
  const started = performance.now();
  const { subs: said, planner } = await splitWith(deps, ask);
  const { subs, summary } = summaryOf(said);
  const split = performance.now();
  const routed = await Promise.all(subs.map((sub) => routeOne(deps, caller, sub)));
  const done = performance.now();
  const connected = connect(
    routed.map((r) => r.routed),
    ask.input ?? {},
  );
  const steps: ProposedStep[] = connected.steps.map((s) => ({
    id: s.id,
    target: s.target,
    ...(Object.keys(s.input).length > 0 ? { input: s.input } : {}),
    after: s.after,
    ...(s.when ? { when: s.when } : {}),
  }));
  const explained: StepExplanation[] = connected.steps.map((s) => {
    const { decision, routed: part } = routed[s.part]!;
    const explanation = decision.explanation;
    return {
      id: s.id,
      text: part.sub.text,
      ...(part.sub.condition ? { condition: part.sub.condition } : {}),
      planner: planner.used,
      accepted: acceptedOutright(decision),
      capability: `${s.target.agent_id}/${s.target.capability}`,
      ...(scoreOf(explanation, s.target) === undefined ? {} : { score: scoreOf(explanation, s.target)! }),
      decided_by: explanation.decided_by,
      ...(explanation.head ? { verdict: explanation.head.verdict } : {}),
      ...(explanation.judge ? { judge: explanation.judge } : {}),
      params: part.params,
      refs: s.refs,
      carried: s.carried,
    };
  });
  const runnable = steps.length > 0 && connected.unplanned.length === 0 && explained.every((s) => s.accepted);
  return {
    chain: {
      ...(Object.keys(connected.input).length > 0 ? { input: connected.input } : {}),
      steps,
      ...(summary ? { summary } : {}),
    },
    steps: explained,
    unplanned: connected.unplanned,
    runnable,
    planner,
    timings_ms: {
      split: round(split - started),
      route: round(done - split),
      total: round(performance.now() - started),
    },
  };
}

/** A last clause that only asks to be told how it went is the chain's summary ask, not a step (planner/summary-request.ts). */
function summaryOf(subs: SubRequest[]): { subs: SubRequest[]; summary?: { request: string } } {
  const last = subs[subs.length - 1];
  if (subs.length < 2 || !last || last.condition || !isSummaryRequest(last.text)) return { subs };
  return { subs: subs.slice(0, -1), summary: { request: last.text } };
}

/** The model's split when asked for and usable, else the rules'. */
async function splitWith(
  deps: PlannerDeps,
  ask: PlanAsk,
): Promise<{ subs: SubRequest[]; planner: ChainPlan['planner'] }> {
  if (ask.planner !== 'model') return { subs: splitRequest(ask.intent), planner: { used: 'rules' } };
  if (!deps.splitModel)
    return {
      subs: splitRequest(ask.intent),
      planner: { used: 'rules', fallback: 'no model is configured (ROUTER_JUDGE=local)' },
    };
  const proposed = await modelSplit(deps.splitModel, ask.intent, deps.modelTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS);
  if (proposed.ok) return { subs: proposed.subs, planner: { used: 'model' } };
  return { subs: splitRequest(ask.intent), planner: { used: 'rules', fallback: proposed.why } };
}

function scoreOf(explanation: RouteExplanation, target: { agent_id: string; capability: string }): number | undefined {
  return (
    explanation.head?.score ??
    explanation.candidates.find((c) => c.key === `${target.agent_id}/${target.capability}`)?.match
  );
}

const round = (ms: number) => Math.round(ms * 10) / 10;
