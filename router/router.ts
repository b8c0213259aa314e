/**
 * The intent router (docs/routing.md, "How a decision is made"): explicit target → eligibility → rules → semantic similarity →
 * threshold → LLM fallback → ranking, then parameter extraction. Every stage leaves its mark in the explanation.
 */
import type { AgentWithInstances } from '../catalogue/agent-queries';
import type { PartialCaller } from '../rules/api-key';
import type { HeartbeatPolicy } from '../rules/liveness';
import type { SessionStore } from '../store/routing-sessions';
import type { CapabilityStats } from '../store/routing-stats';
import { candidatesOf, cardsFingerprint, humanName, type CapabilityCandidate } from './candidates';
import { cardExamples, type CardExamples } from './card-examples';
import { containsCjk } from './words';
import { allowAll, eligibility, type AclCheck, type Eligibility, type EligibilityContext } from './eligibility';
import { type Embedder, extractParameters, missingMessage, missingRequired } from './extraction';
import { validParameters } from './parameter-check';
import type { LlmAssistant } from './llm';
import type { MatcherFactory, MatchScore } from './matcher';
import { TenantMatchers, type MatcherChoice, type RouterStatus } from './tenant-matchers';
import {
  decideByHead,
  DEFAULT_HEAD_SETTINGS,
  type CrossedBorder,
  groupScores,
  type HeadVerdict,
  operatingPointOf,
  resolveThresholds,
  type HeadSettings,
  type ScoredGroup,
  type ThresholdSource,
} from './head/decide';
import type { HeadPrediction } from './head/head';

/** The thresholds a head decision used, and where they came from. */
type HeadThresholds = ReturnType<typeof resolveThresholds>;
import { DEFAULT_WEIGHTS, rank, type RankBreakdown, type RankingWeights } from './ranking';
import { MAX_RULE_BONUS, prepareIntent, ruleMatch } from './tag-keywords';
import { lessonsFingerprint, NO_LESSONS, withLessons, type Lessons } from './lessons';
import { bestBy } from './select';
import type { BoundedJudge, FillOutcome } from './judge/bounded-judge';
import { type CodePreference, preferCodeTaker } from './head/code-takers';
import { isObject } from './params/fill-schema';
import { groundedFields } from './params/grounded';
import type { JudgeStatus } from './judge/judge-auto';
import type { WarmUpStatus } from './judge/warm-up';
import { reviewVerdict, type JudgeExplanation } from './judge/judge-stage';
import type { RouteRequest } from './route-request';

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
  decided_by: 'explicit' | 'match' | 'head' | 'judge' | 'session' | 'llm' | 'none';
  /**
   * When a trained head decided: the catalogue revision it was trained on (a previous one while the current
   * trains), the thresholds of the best group's language direction and where they come from (fitted on the
   * catalogue, configured, or Router 2.0's fixed ones), the probability of "none", the verdict.
   */
  head?: {
    revision: string;
    accept: number;
    escalate: number;
    thresholds: ThresholdSource;
    none: number;
    verdict: string;
    best: number;
    cross_lingual: boolean;
    score: number;
    crossed?: CrossedBorder;
    /** A code of the request that the head's best capability does not take and a near runner-up does (code-takers.ts). */
    code_taker?: CodePreference;
  };
  candidates: CandidateExplanation[];
  ranking: RankBreakdown[];
  llm?: { asked: boolean; chose?: string | null; error?: string };
  /** When the judge read the request (ROUTER_JUDGE): why, its P(yes) and whether it changed the head's verdict. */
  judge?: JudgeExplanation;
  /**
   * How the parameters were found: `heuristic` rules, the `llm` (LLM_MODEL) or the local judge's `model` filling
   * required fields the rules left empty (`filled`: its outcome and time; values the request does not state dropped).
   */
  extraction?: {
    method: 'heuristic' | 'llm' | 'model' | 'given';
    extracted: string[];
    missing: string[];
    filled?: FillExplanation;
  };
  timings_ms: { total: number; match: number };
}

export interface FillExplanation {
  outcome: 'filled' | 'busy' | 'timeout' | 'error';
  ms?: number;
  /** The fields the model gave that the request states. */
  fields?: string[];
}

export interface RoutedTarget {
  agent_id: string;
  capability: string;
  instance_id: string;
}

export type RouteDecision =
  | { kind: 'routed'; target: RoutedTarget; params: Record<string, unknown>; explanation: RouteExplanation }
  | {
      kind: 'input_required';
      target: RoutedTarget;
      params: Record<string, unknown>;
      missing: string[];
      message?: string;
      explanation: RouteExplanation;
    }
  | { kind: 'refused'; code: RefusalCode; message: string; explanation: RouteExplanation; choices?: RouteChoice[] };

export type RefusalCode =
  'no_match' | 'ambiguous' | 'no_eligible_capability' | 'unknown_agent' | 'unknown_capability' | 'intent_required';

/** For an `ambiguous` refusal: the capabilities the intent could mean, so the caller can say which. */
export interface RouteChoice {
  agent_id: string;
  capability: string;
  description: string;
  probability: number;
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
  /** Explicit thresholds on a head's probabilities (by default each catalogue's fitted ones) and the ambiguity ratio. */
  head?: HeadSettings;
  weights?: RankingWeights;
  now?: () => Date;
  /** Shown the reasons behind ACL refusals. */
  isAdmin?: (caller: PartialCaller) => boolean;
  /** Matches enum parameters by meaning when no word of the intent names a value. */
  parameterEmbedder?: Embedder;
  /** The tenant's applied lessons (requests reported misrouted): router/lessons.ts. */
  lessons?: (tenant: string) => Promise<Lessons>;
  /** Reads whether the head's choice does what the request asks, where that matters (ROUTER_JUDGE). */
  judge?: BoundedJudge;
  /** What ROUTER_JUDGE came to on this host (shown in the status; `auto`'s probe may change it). */
  judgeStatus?: () => JudgeStatus;
  /** Stops what the matchers run on (the local models' threads) when the api stops. */
  closeModels?: () => Promise<void>;
}

type EligibleAs = Eligibility & { eligible: true };
type Ineligible = Eligibility & { eligible: false };

/** A capability that can take the message, with how well it matches. */
interface RankedChoice {
  candidate: CapabilityCandidate;
  match: number;
  eligibility: EligibleAs;
}

/** Candidates listed in an explanation: enough to see the runners-up, not the whole catalogue. */
const EXPLAINED = 5;
/** The similarity of a capability the matcher found nothing in common with. */
const NO_MATCH: MatchScore = { score: 0, parts: {} };
/** Eligible capabilities the LLM fallback chooses among, best matches first. */
const LLM_SHORTLIST = 10;

export class Router {
  private readonly matchers: TenantMatchers;

  constructor(private readonly deps: RouterDeps) {
    this.matchers = new TenantMatchers(deps.matcherFactory, deps.now, (tenant, revision, candidates) =>
      deps.judge?.hold({ tenant, revision, candidates }),
    );
  }

  get threshold(): number {
    return this.deps.threshold;
  }

  /**
   * The tenant's matchers: the current catalogue's (rebuilt only when a card's text changed; unchanged texts keep
   * their cached vectors), and the previous one with a ready head while the current head trains.
   */
  private async matchersFor(tenant: string, agents: readonly AgentWithInstances[]): Promise<MatcherChoice> {
    const lessons = await this.lessonsOf(tenant);
    const revision = [cardsFingerprint(agents), lessonsFingerprint(lessons)].filter(Boolean).join('+');
    return this.matchers.choose(tenant, revision, () => withLessons(candidatesOf(agents), lessons));
  }

  private async lessonsOf(tenant: string): Promise<Lessons> {
    return (await this.deps.lessons?.(tenant)) ?? NO_LESSONS;
  }

  /**
   * Warms the tenant's matcher and waits for its head, so the first request does not pay for it: until every head
   * serves (`full`, the default: the late ones joined or gave up), or until the first ones do (`head`).
   */
  async prepare(tenant: string, until: 'head' | 'full' = 'full'): Promise<void> {
    const matcher = await (await this.matchersFor(tenant, await this.deps.agents(tenant))).current;
    await matcher.ready?.();
    if (until === 'full') await matcher.full?.();
  }

  /**
   * Stops the local models' threads, each after the batch it is on: a thread stopped inside onnxruntime's native
   * call (as `process.exit` would) takes the process down. A request still routing then fails, as at any stop.
   */
  async close(): Promise<void> {
    await this.deps.closeModels?.();
  }

  /**
   * The tenant's head: ready or training, on which catalogue revision, since when, with its fitted thresholds; and
   * how many examples the catalogue's cards give it to learn from.
   */
  async status(tenant: string): Promise<
    RouterStatus & {
      cards?: CardExamples;
      judge?: JudgeStatus & Partial<ReturnType<BoundedJudge['load']>> & { warm_up?: WarmUpStatus };
    }
  > {
    const agents = await this.deps.agents(tenant);
    const choice = await this.matchersFor(tenant, agents);
    const cards = cardExamples(candidatesOf(agents));
    const status = {
      ...this.matchers.status(tenant, (choice.built ?? choice.previous)?.provider ?? 'starting'),
      ...(cards ? { cards } : {}),
    };
    const warming = this.deps.judge?.warming(tenant);
    const judge = this.deps.judgeStatus && {
      ...this.deps.judgeStatus(),
      ...(this.deps.judge ? this.deps.judge.load() : {}),
      ...(warming ? { warm_up: warming } : {}),
    };
    return judge ? { ...status, judge } : status;
  }

  async route(request: RouteRequest): Promise<RouteDecision> {
    const started = performance.now();
    const agents = await this.deps.agents(request.tenant);
    // With the tenant's lessons, as its matcher (and the judge, which reads them on the card) has them.
    const all = withLessons(candidatesOf(agents), await this.lessonsOf(request.tenant));
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
    const decision = await this.decide(request, agents, all, context, explanation);
    explanation.timings_ms.total = round(performance.now() - started);
    return decision;
  }

  /** The explicit target's capability, else the head's choice, else similarity's, within the target agent if named. */
  private async decide(
    request: RouteRequest,
    agents: readonly AgentWithInstances[],
    all: CapabilityCandidate[],
    context: EligibilityContext,
    explanation: RouteExplanation,
  ): Promise<RouteDecision> {
    let pool = all;
    if (request.target) {
      pool = all.filter((c) => c.agent_id === request.target!.agent_id);
      if (pool.length === 0)
        return refuse('unknown_agent', `no agent ${request.target.agent_id} in this tenant`, explanation);
      if (request.target.capability) return this.routeToCapability(request, pool, context, explanation);
    }
    if (!request.intent?.trim())
      return refuse('intent_required', 'an intent is needed to choose a capability', explanation);
    if (request.exclude?.length) pool = pool.filter((c) => !request.exclude!.includes(c.key));

    const matchStarted = performance.now();
    const choice = await this.matchersFor(request.tenant, agents);
    const { prediction, revision, provider } = await this.headPrediction(choice, request.intent, pool);
    if (prediction) {
      explanation.provider = provider;
      explanation.timings_ms.match = round(performance.now() - matchStarted);
      return this.routeByHead(request, prediction, pool, context, explanation, revision);
    }
    const matcher = await choice.current;
    explanation.provider = matcher.provider;
    const semantic = await matcher.score(request.intent);
    explanation.timings_ms.match = round(performance.now() - matchStarted);
    return this.routeBySimilarity(request, request.intent, pool, semantic, context, explanation);
  }

  /** The request names the capability: it takes the message if it is eligible, else the request is refused. */
  private async routeToCapability(
    request: RouteRequest,
    pool: CapabilityCandidate[],
    context: EligibilityContext,
    explanation: RouteExplanation,
  ): Promise<RouteDecision> {
    const target = request.target!;
    const named = pool.find((c) => c.capability.name === target.capability);
    if (!named)
      return refuse(
        'unknown_capability',
        `agent ${target.agent_id} has no capability ${target.capability}`,
        explanation,
      );
    explanation.decided_by = 'explicit';
    const e = eligibility(named, context);
    const showReason = (ineligible: Ineligible) => this.showReason(request.caller, ineligible);
    explanation.candidates.push({
      key: named.key,
      match: 1,
      semantic: 1,
      parts: {},
      rules: [],
      eligible: e.eligible,
      ...(e.eligible ? {} : { reason: showReason(e) }),
    });
    if (!e.eligible)
      return refuse('no_eligible_capability', `${named.key} cannot take messages now (${showReason(e)})`, explanation);
    return this.withParameters(request, named, e.instance.instance_id, explanation);
  }

  /**
   * The candidates scored by similarity and rules: the best that passes the threshold and is eligible (ranked), else
   * the LLM's choice from the eligible shortlist, else a refusal saying why.
   */
  private async routeBySimilarity(
    request: RouteRequest,
    intent: string,
    pool: CapabilityCandidate[],
    semantic: Map<string, MatchScore>,
    context: EligibilityContext,
    explanation: RouteExplanation,
  ): Promise<RouteDecision> {
    const showReason = (e: Ineligible) => this.showReason(request.caller, e);
    const keep = Math.max(EXPLAINED, this.deps.llm ? LLM_SHORTLIST * 4 : 0);
    const scored = this.scoreCandidates(intent, pool, semantic, keep);
    // Eligibility only where it can matter: what passes the threshold, what the explanation lists, and the
    // shortlist the LLM may choose from. With thousands of capabilities, checking all would dominate the decision.
    const passing = scored.filter((s) => s.match >= this.deps.threshold).length;
    const withEligibility = scored
      .slice(0, Math.max(passing, keep))
      .map((s) => ({ ...s, eligibility: eligibility(s.candidate, context) }));
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
      const fromLlm = await this.askLlm(
        intent,
        withEligibility
          .filter((s) => s.eligibility.eligible)
          .slice(0, LLM_SHORTLIST)
          .map((s) => s.candidate),
        explanation,
      );
      if (fromLlm) {
        const e = withEligibility.find((s) => s.candidate.key === fromLlm.key)!.eligibility as EligibleAs;
        explanation.decided_by = 'llm';
        return this.withParameters(request, fromLlm, e.instance.instance_id, explanation);
      }
      if (above.length > 0) {
        return refuse(
          'no_eligible_capability',
          `${above[0]!.candidate.key} matches but cannot take messages now (${showReason(above[0]!.eligibility as Ineligible)})`,
          explanation,
        );
      }
      return refuse(
        'no_match',
        `no capability matches the intent well enough (best ${round(scored[0]?.match ?? 0)} < threshold ${this.deps.threshold})`,
        explanation,
      );
    }

    explanation.decided_by = 'match';
    return this.chooseRanked(
      request,
      eligibleAbove.map((s) => ({ candidate: s.candidate, match: s.match, eligibility: s.eligibility as EligibleAs })),
      context,
      explanation,
    );
  }

  /**
   * Semantic score plus rule bonus, best first. Rules add at most MAX_RULE_BONUS: further below the threshold nothing
   * can pass, so of those only the best `keep` are scored (for the explanation and the LLM's shortlist). Keeps
   * thousands of capabilities cheap.
   */
  private scoreCandidates(
    intentText: string,
    pool: CapabilityCandidate[],
    semantic: Map<string, MatchScore>,
    keep: number,
  ) {
    const intent = prepareIntent(intentText);
    const semanticOf = (c: CapabilityCandidate) => semantic.get(c.key)?.score ?? 0;
    const floor = this.deps.threshold - MAX_RULE_BONUS;
    const contenders = pool.filter((c) => semanticOf(c) >= floor);
    const rest =
      contenders.length >= keep
        ? []
        : bestBy(
            pool.filter((c) => semanticOf(c) < floor),
            keep - contenders.length,
            semanticOf,
          );
    const scored = [...contenders, ...rest].map((candidate) => {
      const s = semantic.get(candidate.key) ?? NO_MATCH;
      const rules = ruleMatch(candidate, intent);
      return { candidate, semantic: s, rules, match: s.score + rules.bonus };
    });
    scored.sort((a, b) => b.match - a.match || (a.candidate.key < b.candidate.key ? -1 : 1));
    return scored;
  }

  /**
   * The head's prediction, if a head is ready. Right after a catalogue change, a previous catalogue's head answers at
   * once what it accepts; what it would not accept (it may be for a capability it never saw) waits for the current
   * matcher's new texts to be embedded and briefly (ROUTER_HEAD_WAIT_MS after the change) for its head, like any
   * request right after a tenant's first catalogue, and keeps the previous head's answer if the current one is
   * still training then. Undefined: no head is ready (similarity decides).
   */
  private async headPrediction(
    choice: MatcherChoice,
    intent: string,
    pool: readonly CapabilityCandidate[],
  ): Promise<{ prediction?: HeadPrediction; revision: string; provider: string }> {
    if (choice.previous) {
      const prediction = await choice.previous.classify?.(intent);
      const previous = {
        prediction,
        revision: choice.previousRevision!,
        provider: prediction?.provider ?? choice.previous.provider,
      };
      if (previous.prediction && this.verdictOf(previous.prediction, pool).kind === 'accept') return previous;
      const current = await choice.current;
      const fresh = await current.classify?.(intent);
      return fresh
        ? { prediction: fresh, revision: choice.revision, provider: fresh.provider ?? current.provider }
        : previous;
    }
    const current = await choice.current;
    const prediction = await current.classify?.(intent);
    return {
      ...(prediction ? { prediction } : {}),
      revision: choice.revision,
      provider: prediction?.provider ?? current.provider,
    };
  }

  /** The head's verdict on a prediction, among the capabilities in `pool`, with the thresholds in force. */
  private verdictOf(prediction: HeadPrediction, pool: readonly CapabilityCandidate[]) {
    const inPool = new Set(pool.map((c) => c.key));
    const groups = groupScores(
      prediction.ranked.filter((s) => inPool.has(s.key)),
      prediction.same,
      prediction.crossLingual,
    );
    return decideByHead(
      groups,
      resolveThresholds(prediction.calibration, this.deps.head ?? DEFAULT_HEAD_SETTINGS, this.deps.llm !== undefined),
      prediction.crossed,
    );
  }

  /**
   * Among capabilities that match well enough and can take the message: the ranking's first (match blended with
   * success, latency and load), or the session's capability while it stays eligible and matches about as well.
   */
  private async chooseRanked(
    request: RouteRequest,
    choices: RankedChoice[],
    context: EligibilityContext,
    explanation: RouteExplanation,
  ): Promise<RouteDecision> {
    const stats = await this.deps.stats();
    const weights = this.deps.weights ?? DEFAULT_WEIGHTS;
    const ranked = rank(
      choices.map(({ candidate, match, eligibility: e }) => ({
        key: candidate.key,
        match,
        stats: stats.get(candidate.key),
        busy: e.busy,
        in_flight: e.in_flight,
        ...(e.capacity === undefined ? {} : { capacity: e.capacity }),
      })),
      weights,
    );
    explanation.ranking = ranked.slice(0, EXPLAINED).map(roundBreakdown);
    let chosen = choices.find((c) => c.candidate.key === ranked[0]!.key)!;
    let instanceId = chosen.eligibility.instance.instance_id;
    const sticky = request.session_id ? await this.deps.sessions?.get(request.tenant, request.session_id) : undefined;
    if (sticky) {
      const same = choices.find(
        (c) => c.candidate.key === sticky.key && c.match >= ranked[0]!.match - weights.matchMargin,
      );
      if (same) {
        chosen = same;
        instanceId = isEligibleInstance(same.candidate, sticky.instance_id, context)
          ? sticky.instance_id
          : same.eligibility.instance.instance_id;
        explanation.decided_by = 'session';
      }
    }
    if (request.session_id)
      await this.deps.sessions?.set(request.tenant, request.session_id, {
        key: chosen.candidate.key,
        instance_id: instanceId,
      });
    return this.withParameters(request, chosen.candidate, instanceId, explanation);
  }

  /** The decision from a trained head's probabilities (head/decide.ts), then eligibility, ranking and parameters. */
  private async routeByHead(
    request: RouteRequest,
    prediction: HeadPrediction,
    pool: CapabilityCandidate[],
    context: EligibilityContext,
    explanation: RouteExplanation,
    revision: string,
  ): Promise<RouteDecision> {
    const thresholds = resolveThresholds(
      prediction.calibration,
      this.deps.head ?? DEFAULT_HEAD_SETTINGS,
      this.deps.llm !== undefined,
    );
    const inPool = new Map(pool.map((c) => [c.key, c]));
    const { ranked, preferred } = preferCodeTaker(
      prediction.ranked.filter((s) => inPool.has(s.key)),
      (key) => inPool.get(key),
      request.intent!,
    );
    const groups = groupScores(ranked, prediction.same, prediction.crossLingual);
    const headVerdict = decideByHead(groups, thresholds, prediction.crossed);
    explanation.decided_by = 'head';
    const verdict = await this.judged(
      request,
      { headVerdict, groups, thresholds, inPool, revision, prediction },
      explanation,
    );
    explainHead(explanation, { revision, groups, thresholds, headVerdict, none: prediction.none, preferred });
    const choices = new HeadChoices(inPool, ranked, context);
    explanation.candidates = ranked.slice(0, EXPLAINED).map((s) => {
      const e = choices.eligibilityOf(s.key);
      return {
        ...probabilityCandidate(s.key, s.probability, e.eligible),
        ...(e.eligible ? {} : { reason: this.showReason(request.caller, e) }),
      };
    });
    if (verdict.kind === 'accept') return this.acceptByHead(request, verdict.group, choices, context, explanation);
    if (verdict.kind === 'refuse') return refuseByHead(verdict, explanation);
    return this.escalateByHead(request, verdict, choices, inPool, explanation);
  }

  /** The head's verdict, as the judge (ROUTER_JUDGE) left it after reading the request where that matters. */
  private async judged(
    request: RouteRequest,
    head: {
      headVerdict: HeadVerdict;
      groups: ScoredGroup[];
      thresholds: HeadThresholds;
      inPool: Map<string, CapabilityCandidate>;
      revision: string;
      prediction: HeadPrediction;
    },
    explanation: RouteExplanation,
  ): Promise<HeadVerdict> {
    if (!this.deps.judge) return head.headVerdict;
    const reviewed = await reviewVerdict(this.deps.judge, {
      intent: request.intent!,
      verdict: head.headVerdict,
      groups: head.groups,
      thresholds: head.thresholds,
      candidate: (key) => head.inPool.get(key)!,
      revision: head.revision,
      ...(head.prediction.gaps ? { gaps: head.prediction.gaps } : {}),
    });
    if (reviewed.explanation) explanation.judge = reviewed.explanation;
    if (reviewed.explanation?.outcome === 'overruled') explanation.decided_by = 'judge';
    return reviewed.verdict;
  }

  /** The accepted group's eligible capabilities, ranked; none eligible: refused saying why. */
  private acceptByHead(
    request: RouteRequest,
    group: ScoredGroup,
    choices: HeadChoices,
    context: EligibilityContext,
    explanation: RouteExplanation,
  ): Promise<RouteDecision> | RouteDecision {
    const eligible = choices.eligibleIn([group]);
    if (eligible.length > 0) return this.chooseRanked(request, eligible, context, explanation);
    const first = group.keys[0]!;
    const why = this.showReason(request.caller, choices.eligibilityOf(first) as Ineligible);
    return refuse('no_eligible_capability', `${first} matches but cannot take messages now (${why})`, explanation);
  }

  /** Between the thresholds: the LLM chooses among the best groups when there is one; else ask which, or refuse. */
  private async escalateByHead(
    request: RouteRequest,
    verdict: Extract<HeadVerdict, { kind: 'ambiguous' | 'escalate' }>,
    choices: HeadChoices,
    inPool: Map<string, CapabilityCandidate>,
    explanation: RouteExplanation,
  ): Promise<RouteDecision> {
    const eligible = choices.eligibleIn(verdict.groups).map((c) => c.candidate);
    const fromLlm = await this.askLlm(request.intent!, eligible, explanation);
    if (fromLlm) {
      explanation.decided_by = 'llm';
      const e = choices.eligibilityOf(fromLlm.key) as EligibleAs;
      return this.withParameters(request, fromLlm, e.instance.instance_id, explanation);
    }
    if (explanation.llm?.asked && !explanation.llm.error)
      return refuse('no_match', 'the LLM judged that no capability covers the intent', explanation);
    if (verdict.kind === 'ambiguous') {
      const firsts = verdict.groups.map((g) => inPool.get(g.keys[0]!)!);
      const asked = verdict.groups.map((g, i) => routeChoice(firsts[i]!, g.probability));
      return refuse('ambiguous', ambiguityQuestion(request.intent!, firsts), explanation, asked);
    }
    return refuse(
      'no_match',
      `not confident enough to choose (best probability ${explanation.head!.best} < ${explanation.head!.accept}) and the LLM could not decide`,
      explanation,
    );
  }

  private showReason(caller: PartialCaller, e: Ineligible): string {
    return e.reason === 'not_permitted' && !this.deps.isAdmin?.(caller)
      ? 'not_permitted'
      : e.detail
        ? `${e.reason}: ${e.detail}`
        : e.reason;
  }

  private async askLlm(
    intent: string,
    shortlist: CapabilityCandidate[],
    explanation: RouteExplanation,
  ): Promise<CapabilityCandidate | undefined> {
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

  private async withParameters(
    request: RouteRequest,
    candidate: CapabilityCandidate,
    instanceId: string,
    explanation: RouteExplanation,
  ): Promise<RouteDecision> {
    const target = { agent_id: candidate.agent_id, capability: candidate.capability.name, instance_id: instanceId };
    const schema = candidate.capability.parameters_json
      ? (JSON.parse(candidate.capability.parameters_json) as unknown)
      : undefined;
    const given = request.params ?? {};
    let extracted: Record<string, unknown> = {};
    let method: NonNullable<RouteExplanation['extraction']>['method'] = 'given';
    let filled: FillExplanation | undefined;
    if (schema && request.intent) {
      method = 'heuristic';
      const now = this.deps.now?.() ?? new Date();
      const embed = this.deps.parameterEmbedder;
      extracted = await extractParameters(request.intent, schema, { now, ...(embed ? { embed } : {}) });
      extracted = validParameters(candidate.capability.parameters_json!, extracted);
      const wanted = topLevel(missingRequired(schema, { ...extracted, ...given }));
      if (wanted.length > 0 && this.deps.llm) {
        try {
          extracted = withFilled(
            extracted,
            groundedFields(await this.deps.llm.extractParameters(request.intent, schema), schema, request.intent),
          );
          method = 'llm';
        } catch {
          // the heuristic result stands
        }
      } else if (wanted.length > 0 && this.deps.judge?.fills) {
        const outcome = await this.deps.judge.fill({
          intent: request.intent,
          candidate,
          schema,
          fields: wanted,
          today: now.toISOString().slice(0, 10),
        });
        filled = fillExplanation(outcome);
        if (outcome.kind === 'filled') {
          const stated = groundedFields(outcome.fields, schema, request.intent);
          filled.fields = Object.keys(stated);
          extracted = withFilled(extracted, stated);
          method = 'model';
        }
      }
    }
    // The rules' values were checked above; what a model added is checked here.
    if (method === 'llm' || method === 'model')
      extracted = validParameters(candidate.capability.parameters_json!, extracted);
    const params = { ...extracted, ...given };
    const missing = schema ? missingRequired(schema, params) : [];
    explanation.extraction = { method, extracted: Object.keys(extracted), missing, ...(filled ? { filled } : {}) };
    if (missing.length > 0)
      return {
        kind: 'input_required',
        target,
        params,
        missing,
        message: missingMessage(missing, schema, request.intent ?? ''),
        explanation,
      };
    return { kind: 'routed', target, params, explanation };
  }
}

/** Eligibility of the head's capabilities, each judged once, and the eligible ones of chosen groups. */
class HeadChoices {
  private readonly judged = new Map<string, Eligibility>();
  private readonly probability: Map<string, number>;

  constructor(
    private readonly inPool: Map<string, CapabilityCandidate>,
    ranked: readonly { key: string; probability: number }[],
    private readonly context: EligibilityContext,
  ) {
    this.probability = new Map(ranked.map((s) => [s.key, s.probability]));
  }

  eligibilityOf(key: string): Eligibility {
    let e = this.judged.get(key);
    if (!e) this.judged.set(key, (e = eligibility(this.inPool.get(key)!, this.context)));
    return e;
  }

  eligibleIn(among: readonly ScoredGroup[]): RankedChoice[] {
    return among
      .flatMap((g) => g.keys)
      .flatMap((key) => {
        const e = this.eligibilityOf(key);
        return e.eligible
          ? [{ candidate: this.inPool.get(key)!, match: this.probability.get(key)!, eligibility: e }]
          : [];
      });
  }
}

/** The explanation's `head`: the revision that decided, the thresholds used and the verdict. */
function explainHead(
  explanation: RouteExplanation,
  head: {
    revision: string;
    groups: readonly ScoredGroup[];
    thresholds: HeadThresholds;
    headVerdict: HeadVerdict;
    none: number;
    preferred: CodePreference | undefined;
  },
): void {
  const { groups, thresholds, headVerdict } = head;
  const point = groups[0] ? operatingPointOf(groups[0], thresholds) : thresholds.sameLanguage;
  explanation.threshold = round(point.accept);
  const best = round(groups[0]?.probability ?? 0);
  explanation.head = {
    revision: head.revision,
    accept: round(point.accept),
    escalate: round(point.escalate),
    thresholds: thresholds.source,
    none: round(head.none),
    verdict: headVerdict.kind,
    best,
    cross_lingual: groups[0]?.crossLingual === true,
    score: best,
    ...(headVerdict.kind === 'refuse' && headVerdict.crossed ? { crossed: headVerdict.crossed } : {}),
    ...(head.preferred ? { code_taker: head.preferred } : {}),
  };
}

/** A capability as the head scored it, for the explanation's candidates. */
function probabilityCandidate(key: string, probability: number, eligible: boolean): CandidateExplanation {
  const p = round(probability);
  return { key, match: p, semantic: p, parts: { probability: p }, rules: [], eligible };
}

/** The head (or the judge) refused: across a card's border, by the judge's reading, or below the threshold. */
function refuseByHead(verdict: Extract<HeadVerdict, { kind: 'refuse' }>, explanation: RouteExplanation): RouteDecision {
  if (verdict.crossed)
    return refuse(
      'no_match',
      `${verdict.crossed.key} is the nearest capability, but its card says it does not do this ("${verdict.crossed.clause}"` +
        (verdict.crossed.word ? `; the request names "${verdict.crossed.word}", which no card offers)` : ')'),
      explanation,
    );
  if (explanation.decided_by === 'judge')
    return refuse(
      'no_match',
      `the judge read that ${explanation.judge!.capability} does not do what the intent asks`,
      explanation,
    );
  return refuse(
    'no_match',
    `no capability matches the intent well enough (best probability ${explanation.head!.best} < ${explanation.head!.escalate})`,
    explanation,
  );
}

function routeChoice(c: CapabilityCandidate, probability: number): RouteChoice {
  return {
    agent_id: c.agent_id,
    capability: c.capability.name,
    description: c.capability.description,
    probability: round(probability),
  };
}

/** The top-level parameters named by missing paths ("new_address.province" → "new_address"), once each. */
function topLevel(paths: string[]): string[] {
  return [...new Set(paths.map((path) => path.split('.')[0]!))];
}

/** What a model filled, added to what the rules read: inside an object the rules' fields stand and the model's complete them. */
function withFilled(extracted: Record<string, unknown>, filled: Record<string, unknown>): Record<string, unknown> {
  const out = { ...extracted };
  for (const [name, value] of Object.entries(filled)) {
    const read = out[name];
    out[name] = isObject(read) && isObject(value) ? { ...value, ...read } : value;
  }
  return out;
}

function fillExplanation(outcome: FillOutcome): FillExplanation {
  return { outcome: outcome.kind, ...('ms' in outcome ? { ms: outcome.ms } : {}) };
}

function isEligibleInstance(
  candidate: CapabilityCandidate,
  instanceId: string,
  context: Parameters<typeof eligibility>[1],
): boolean {
  const only = { ...candidate, instances: candidate.instances.filter((i) => i.instance_id === instanceId) };
  return eligibility(only, context).eligible;
}

/** "Did you mean A or B?", in the caller's language. */
function ambiguityQuestion(intent: string, candidates: CapabilityCandidate[]): string {
  const names = candidates.map((c) => `${humanName(c.capability.name)} (${c.agent_name})`);
  return containsCjk(intent)
    ? `无法确定您要哪一项：${names.join(' 还是 ')}？请说明。`
    : `Not sure which you mean: ${names.join(' or ')}? Please say which.`;
}

function refuse(
  code: RefusalCode,
  message: string,
  explanation: RouteExplanation,
  choices?: RouteChoice[],
): RouteDecision {
  return { kind: 'refused', code, message, explanation, ...(choices ? { choices } : {}) };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function roundBreakdown(b: RankBreakdown): RankBreakdown {
  return {
    key: b.key,
    match: round(b.match),
    success: round(b.success),
    latency: round(b.latency),
    load: round(b.load),
    busy: round(b.busy),
    exploration: round(b.exploration),
    total: round(b.total),
  };
}
