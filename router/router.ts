/**
 * The intent router (ARCHITECTURE.md "Router"): explicit target → eligibility → rules → semantic similarity →
 * threshold → LLM fallback → ranking, then parameter extraction. Every stage leaves its mark in the explanation.
 */
import type { AgentWithInstances } from '../catalogue/agent-queries';
import type { HeartbeatPolicy } from '../rules/liveness';
import { candidatesOf, cardsFingerprint, type CapabilityCandidate } from './candidates';
import { allowAll, eligibility, type AclCheck, type Caller, type Eligibility } from './eligibility';
import { extractParameters, missingRequired } from './extraction';
import { invalidProperties } from './parameter-check';
import type { LlmAssistant } from './llm';
import type { IntentMatcher, MatcherFactory, MatchScore } from './matcher';
import { DEFAULT_WEIGHTS, rank, type CapabilityStats, type RankBreakdown, type RankingWeights } from './ranking';
import { MAX_RULE_BONUS, prepareIntent, ruleMatch } from './rules';
import { bestBy } from './select';

export interface RouteRequest {
  tenant: string;
  caller: Caller;
  intent?: string;
  /** A named agent (and maybe capability): skips matching when both are given, narrows it when only the agent is. */
  target?: { agent_id: string; capability?: string };
  /** Same session → same agent and instance while it stays eligible and matches about as well. */
  session_id?: string;
  /** Parameters the caller already gave; extraction fills only what is missing. */
  params?: Record<string, unknown>;
}

export interface CandidateExplanation {
  key: string;
  match: number;
  semantic: number;
  parts: Record<string, number>;
  rules: string[];
  eligible: boolean;
  /** Why it cannot take the message; ACL reasons only when the caller may see them. */
  reason?: string;
}

export interface RouteExplanation {
  provider: string;
  threshold: number;
  decided_by: 'explicit' | 'match' | 'session' | 'llm' | 'none';
  candidates: CandidateExplanation[];
  ranking: RankBreakdown[];
  llm?: { asked: boolean; chose?: string | null; error?: string };
  extraction?: { method: 'heuristic' | 'llm' | 'given'; extracted: string[]; missing: string[] };
  timings_ms: { total: number; match: number };
}

export interface RoutedTarget {
  agent_id: string;
  capability: string;
  instance_id: string;
}

export type RouteDecision =
  | { kind: 'routed'; target: RoutedTarget; params: Record<string, unknown>; explanation: RouteExplanation }
  | { kind: 'input_required'; target: RoutedTarget; params: Record<string, unknown>; missing: string[]; explanation: RouteExplanation }
  | { kind: 'refused'; code: RefusalCode; message: string; explanation: RouteExplanation };

export type RefusalCode = 'no_match' | 'no_eligible_capability' | 'unknown_agent' | 'unknown_capability' | 'intent_required';

export interface SessionStore {
  get(tenant: string, sessionId: string): Promise<{ key: string; instance_id: string } | undefined>;
  set(tenant: string, sessionId: string, value: { key: string; instance_id: string }): Promise<void>;
}

export interface RouterDeps {
  /** The tenant's agents as of now (an in-memory catalogue copy in production). */
  agents(tenant: string): Promise<readonly AgentWithInstances[]>;
  matcherFactory: MatcherFactory;
  heartbeat: HeartbeatPolicy;
  openCircuits(): Promise<ReadonlySet<string>>;
  stats(): Promise<ReadonlyMap<string, CapabilityStats>>;
  sessions?: SessionStore;
  acl?: AclCheck;
  llm?: LlmAssistant;
  threshold: number;
  weights?: RankingWeights;
  now?: () => Date;
  /** Shown the reasons behind ACL refusals. */
  isAdmin?: (caller: Caller) => boolean;
}

/** Candidates listed in an explanation: enough to see the runners-up, not the whole catalogue. */
const EXPLAINED = 5;
/** The similarity of a capability the matcher found nothing in common with. */
const NO_MATCH: MatchScore = { score: 0, parts: {} };
/** Eligible capabilities the LLM fallback chooses among, best matches first. */
const LLM_SHORTLIST = 10;

export class Router {
  private matchers = new Map<string, { fingerprint: string; matcher: Promise<IntentMatcher> }>();

  constructor(private readonly deps: RouterDeps) {}

  get threshold(): number {
    return this.deps.threshold;
  }

  /**
   * The tenant's matcher, rebuilt only when an agent's card changed or agents came or went (heartbeats do not
   * count); unchanged capabilities keep their cached vectors.
   */
  private matcherFor(tenant: string, agents: readonly AgentWithInstances[]): Promise<IntentMatcher> {
    const fingerprint = cardsFingerprint(agents);
    const cached = this.matchers.get(tenant);
    if (cached && cached.fingerprint === fingerprint) return cached.matcher;
    const matcher = this.deps.matcherFactory(candidatesOf(agents));
    this.matchers.set(tenant, { fingerprint, matcher });
    matcher.catch(() => this.matchers.delete(tenant));
    return matcher;
  }

  /** Warms the tenant's matcher, so the first request does not pay for embedding the catalogue. */
  async prepare(tenant: string): Promise<void> {
    await this.matcherFor(tenant, await this.deps.agents(tenant));
  }

  async route(request: RouteRequest): Promise<RouteDecision> {
    const started = performance.now();
    const agents = await this.deps.agents(request.tenant);
    const all = candidatesOf(agents);
    const context = {
      now: this.deps.now?.() ?? new Date(),
      heartbeat: this.deps.heartbeat,
      openCircuits: await this.deps.openCircuits(),
      caller: request.caller,
      acl: this.deps.acl ?? allowAll,
    };
    const explanation: RouteExplanation = {
      provider: 'none',
      threshold: this.deps.threshold,
      decided_by: 'none',
      candidates: [],
      ranking: [],
      timings_ms: { total: 0, match: 0 },
    };
    const finish = <T extends RouteDecision>(decision: T): T => {
      explanation.timings_ms.total = round(performance.now() - started);
      return decision;
    };
    const showReason = (e: Eligibility & { eligible: false }) =>
      e.reason === 'not_permitted' && !this.deps.isAdmin?.(request.caller) ? 'not_permitted' : e.detail ? `${e.reason}: ${e.detail}` : e.reason;

    let pool = all;
    if (request.target) {
      pool = all.filter((c) => c.agent_id === request.target!.agent_id);
      if (pool.length === 0) return finish(refuse('unknown_agent', `no agent ${request.target.agent_id} in this tenant`, explanation));
      if (request.target.capability) {
        const named = pool.find((c) => c.capability.name === request.target!.capability);
        if (!named) return finish(refuse('unknown_capability', `agent ${request.target.agent_id} has no capability ${request.target.capability}`, explanation));
        explanation.decided_by = 'explicit';
        const e = eligibility(named, context);
        explanation.candidates.push({ key: named.key, match: 1, semantic: 1, parts: {}, rules: [], eligible: e.eligible, ...(e.eligible ? {} : { reason: showReason(e) }) });
        if (!e.eligible) return finish(refuse('no_eligible_capability', `${named.key} cannot take messages now (${showReason(e)})`, explanation));
        return finish(await this.withParameters(request, named, e.instance.instance_id, explanation));
      }
    }
    if (!request.intent?.trim()) return finish(refuse('intent_required', 'an intent is needed to choose a capability', explanation));

    const matchStarted = performance.now();
    const matcher = await this.matcherFor(request.tenant, agents);
    explanation.provider = matcher.provider;
    const semantic = await matcher.score(request.intent);
    explanation.timings_ms.match = round(performance.now() - matchStarted);
    const intent = prepareIntent(request.intent);
    // Rules add at most MAX_RULE_BONUS: further below the threshold nothing can pass, so of those only the best few
    // are scored (for the explanation and the LLM's shortlist). Keeps thousands of capabilities cheap.
    const keep = Math.max(EXPLAINED, this.deps.llm ? LLM_SHORTLIST * 4 : 0);
    const semanticOf = (c: CapabilityCandidate) => semantic.get(c.key)?.score ?? 0;
    const floor = this.deps.threshold - MAX_RULE_BONUS;
    const contenders = pool.filter((c) => semanticOf(c) >= floor);
    const rest = contenders.length >= keep ? [] : bestBy(pool.filter((c) => semanticOf(c) < floor), keep - contenders.length, semanticOf);
    const scored = [...contenders, ...rest].map((candidate) => {
      const s = semantic.get(candidate.key) ?? NO_MATCH;
      const rules = ruleMatch(candidate, intent);
      return { candidate, semantic: s, rules, match: s.score + rules.bonus };
    });
    scored.sort((a, b) => b.match - a.match || (a.candidate.key < b.candidate.key ? -1 : 1));
    // Eligibility only where it can matter: what passes the threshold, what the explanation lists, and the
    // shortlist the LLM may choose from. With thousands of capabilities, checking all would dominate the decision.
    const passing = scored.filter((s) => s.match >= this.deps.threshold).length;
    const withEligibility = scored.slice(0, Math.max(passing, keep)).map((s) => ({ ...s, eligibility: eligibility(s.candidate, context) }));
    explanation.candidates = withEligibility.slice(0, EXPLAINED).map((s) => ({
      key: s.candidate.key,
      match: round(s.match),
      semantic: round(s.semantic.score),
      parts: Object.fromEntries(Object.entries(s.semantic.parts).map(([k, v]) => [k, round(v)])),
      rules: s.rules.matched,
      eligible: s.eligibility.eligible,
      ...(s.eligibility.eligible ? {} : { reason: showReason(s.eligibility) }),
    }));

    const above = withEligibility.filter((s) => s.match >= this.deps.threshold);
    const eligibleAbove = above.filter((s) => s.eligibility.eligible);
    if (eligibleAbove.length === 0) {
      const fromLlm = await this.askLlm(request.intent, withEligibility.filter((s) => s.eligibility.eligible).slice(0, LLM_SHORTLIST).map((s) => s.candidate), explanation);
      if (fromLlm) {
        const e = withEligibility.find((s) => s.candidate.key === fromLlm.key)!.eligibility as Eligibility & { eligible: true };
        explanation.decided_by = 'llm';
        return finish(await this.withParameters(request, fromLlm, e.instance.instance_id, explanation));
      }
      if (above.length > 0) {
        return finish(refuse('no_eligible_capability', `${above[0]!.candidate.key} matches but cannot take messages now (${showReason(above[0]!.eligibility as Eligibility & { eligible: false })})`, explanation));
      }
      return finish(refuse('no_match', `no capability matches the intent well enough (best ${round(scored[0]?.match ?? 0)} < threshold ${this.deps.threshold})`, explanation));
    }

    const stats = await this.deps.stats();
    const ranked = rank(
      eligibleAbove.map((s) => {
        const e = s.eligibility as Eligibility & { eligible: true };
        return { key: s.candidate.key, match: s.match, stats: stats.get(s.candidate.key), busy: e.busy, in_flight: e.in_flight, ...(e.capacity === undefined ? {} : { capacity: e.capacity }) };
      }),
      this.deps.weights ?? DEFAULT_WEIGHTS,
    );
    explanation.ranking = ranked.slice(0, EXPLAINED).map(roundBreakdown);
    let chosen = eligibleAbove.find((s) => s.candidate.key === ranked[0]!.key)!;
    let instanceId = (chosen.eligibility as Eligibility & { eligible: true }).instance.instance_id;
    explanation.decided_by = 'match';

    const sticky = request.session_id ? await this.deps.sessions?.get(request.tenant, request.session_id) : undefined;
    if (sticky) {
      const margin = (this.deps.weights ?? DEFAULT_WEIGHTS).matchMargin;
      const same = eligibleAbove.find((s) => s.candidate.key === sticky.key && s.match >= ranked[0]!.match - margin);
      if (same) {
        chosen = same;
        const e = same.eligibility as Eligibility & { eligible: true };
        instanceId = isEligibleInstance(same.candidate, sticky.instance_id, context) ? sticky.instance_id : e.instance.instance_id;
        explanation.decided_by = 'session';
      }
    }
    if (request.session_id) await this.deps.sessions?.set(request.tenant, request.session_id, { key: chosen.candidate.key, instance_id: instanceId });
    return finish(await this.withParameters(request, chosen.candidate, instanceId, explanation));
  }

  private async askLlm(intent: string, shortlist: CapabilityCandidate[], explanation: RouteExplanation): Promise<CapabilityCandidate | undefined> {
    if (!this.deps.llm || shortlist.length === 0) return undefined;
    try {
      const key = await this.deps.llm.chooseCapability(intent, shortlist);
      explanation.llm = { asked: true, chose: key };
      return shortlist.find((c) => c.key === key);
    } catch (error) {
      explanation.llm = { asked: true, error: (error as Error).message };
      return undefined;
    }
  }

  private async withParameters(request: RouteRequest, candidate: CapabilityCandidate, instanceId: string, explanation: RouteExplanation): Promise<RouteDecision> {
    const target = { agent_id: candidate.agent_id, capability: candidate.capability.name, instance_id: instanceId };
    const schema = candidate.capability.parameters_json ? (JSON.parse(candidate.capability.parameters_json) as unknown) : undefined;
    const given = request.params ?? {};
    let extracted: Record<string, unknown> = {};
    let method: 'heuristic' | 'llm' | 'given' = 'given';
    if (schema && request.intent) {
      method = 'heuristic';
      extracted = extractParameters(request.intent, schema);
      if (this.deps.llm && missingRequired(schema, { ...extracted, ...given }).length > 0) {
        try {
          extracted = { ...extracted, ...(await this.deps.llm.extractParameters(request.intent, schema)) };
          method = 'llm';
        } catch {
          // the heuristic result stands
        }
      }
    }
    for (const bad of schema ? invalidProperties(candidate.capability.parameters_json!, extracted) : []) delete extracted[bad];
    const params = { ...extracted, ...given };
    const missing = schema ? missingRequired(schema, params) : [];
    explanation.extraction = { method, extracted: Object.keys(extracted), missing };
    if (missing.length > 0) return { kind: 'input_required', target, params, missing, explanation };
    return { kind: 'routed', target, params, explanation };
  }
}

function isEligibleInstance(candidate: CapabilityCandidate, instanceId: string, context: Parameters<typeof eligibility>[1]): boolean {
  const only = { ...candidate, instances: candidate.instances.filter((i) => i.instance_id === instanceId) };
  return eligibility(only, context).eligible;
}

function refuse(code: RefusalCode, message: string, explanation: RouteExplanation): RouteDecision {
  return { kind: 'refused', code, message, explanation };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function roundBreakdown(b: RankBreakdown): RankBreakdown {
  return { key: b.key, match: round(b.match), success: round(b.success), latency: round(b.latency), load: round(b.load), busy: round(b.busy), exploration: round(b.exploration), total: round(b.total) };
}
