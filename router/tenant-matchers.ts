/**
 * Each tenant's matcher, rebuilt when its cards' text changes (candidates.ts `cardsFingerprint`: liveness,
 * heartbeats and re-registering the same card do not count). While a new matcher embeds and trains its head, the
 * previous one whose head is ready keeps answering for the capabilities it knows (the router drops those no
 * longer in the catalogue): a catalogue change never hands routing to plain similarity when a head existed.
 */
import type { CapabilityCandidate } from './candidates';
import type { Calibration } from './head/calibration';
import type { HeadState, IntentMatcher, LateHeads, MatcherFactory } from './matcher';

interface Build {
  revision: string;
  capabilities: number;
  started: Date;
  matcher: Promise<IntentMatcher>;
  /** The matcher, once built (its head may still be training). */
  built?: IntentMatcher;
  /** When its head became ready (its first heads serve), and when every head did (late ones joined). */
  readyAt?: Date;
  fullAt?: Date;
  error?: string;
}

export interface HeadStatus {
  /** The catalogue revision (a hash of the cards' text) and its size. */
  revision: string;
  capabilities: number;
  /**
   * When the catalogue changed to this revision, when its head was ready (the first heads serve) and when every head
   * serves (the late ones joined; absent while they train, or when they failed or were discarded).
   */
  changed_at: string;
  ready_at?: string;
  full_at?: string;
  /** The models whose heads decide now. */
  heads?: string[];
  /** The heads that join late: training, joined, failed (with the error) or discarded (the catalogue changed). */
  late?: LateHeads;
  /** The operating point the heads that serve fitted (absent for a head whose calibration could not be fitted). */
  calibration?: Calibration;
  /** Present when the time guard cut the head's training short: it then depends on the machine's load. */
  time_guard?: string;
}

export interface RouterStatus {
  provider: string;
  /** `ready`: the current catalogue's head decides; `training`: a previous head (or similarity) decides meanwhile; `none`: no head (BM25, or ROUTER_HEAD=off); `failed`: training failed, similarity decides. */
  state: 'ready' | 'training' | 'none' | 'failed';
  /** The head that decides now. */
  serving?: HeadStatus;
  /** The head being trained for the current catalogue, while it trains. */
  training?: HeadStatus;
  error?: string;
}

/** The matchers a request may use: the current catalogue's, and a previous one whose head is ready. */
export interface MatcherChoice {
  current: Promise<IntentMatcher>;
  /** The current matcher if built. */
  built?: IntentMatcher;
  /** A previous catalogue's matcher with a ready head, while the current one's head is not ready. */
  previous?: IntentMatcher;
  revision: string;
  previousRevision?: string;
}

function status(build: Build, head?: HeadState): HeadStatus {
  return {
    revision: build.revision,
    capabilities: build.capabilities,
    changed_at: build.started.toISOString(),
    ...(build.readyAt ? { ready_at: build.readyAt.toISOString() } : {}),
    ...(build.fullAt ? { full_at: build.fullAt.toISOString() } : {}),
    ...(head?.heads ? { heads: head.heads } : {}),
    ...(head?.late ? { late: head.late } : {}),
    ...(head?.calibration ? { calibration: head.calibration } : {}),
    ...(head?.time_guard ? { time_guard: head.time_guard } : {}),
  };
}

/** A catalogue's head began to serve (the judge then holds its cards: judge/warm-up.ts). */
export type OnServing = (tenant: string, revision: string, candidates: readonly CapabilityCandidate[]) => void;

export class TenantMatchers {
  private readonly latest = new Map<string, Build>();
  /** Per tenant, the newest build whose head is ready. */
  private readonly serving = new Map<string, Build>();

  constructor(
    private readonly factory: MatcherFactory,
    private readonly now: () => Date = () => new Date(),
    private readonly onServing: OnServing = () => {},
  ) {}

  /** The tenant's matchers for a catalogue of this revision, starting a build when the revision is new. */
  choose(tenant: string, revision: string, candidates: () => CapabilityCandidate[]): MatcherChoice {
    let build = this.latest.get(tenant);
    if (!build || build.revision !== revision) build = this.start(tenant, revision, candidates());
    const serving = this.serving.get(tenant);
    const previous = serving && serving !== build ? serving : undefined;
    return {
      current: build.matcher,
      ...(build.built ? { built: build.built } : {}),
      ...(previous?.built ? { previous: previous.built, previousRevision: previous.revision } : {}),
      revision,
    };
  }

  private start(tenant: string, revision: string, candidates: CapabilityCandidate[]): Build {
    const build: Build = {
      revision,
      capabilities: candidates.length,
      started: this.now(),
      matcher: this.factory(candidates),
    };
    // The catalogue moved on: the previous revision's late heads would never serve it.
    this.latest.get(tenant)?.matcher.then(
      (stale) => stale.retire?.(),
      () => undefined,
    );
    this.latest.set(tenant, build);
    build.matcher.then(
      async (matcher) => {
        build.built = matcher;
        await matcher.ready?.();
        const head = matcher.head?.();
        if (!head || head.error) return;
        build.readyAt = this.now();
        // A newer revision may have become ready meanwhile: only the newer one serves.
        const serving = this.serving.get(tenant);
        if (!serving || serving.started <= build.started) {
          this.serving.set(tenant, build);
          this.onServing(tenant, revision, candidates);
        }
        await matcher.full?.();
        const late = matcher.head?.()?.late;
        if (!late || late.state === 'joined') build.fullAt = this.now();
      },
      (error: Error) => {
        build.error = error.message;
        // A failed build is forgotten, so the next request tries again.
        if (this.latest.get(tenant) === build) this.latest.delete(tenant);
      },
    );
    return build;
  }

  /** What decides for the tenant now, and what trains. */
  status(tenant: string, provider: string): RouterStatus {
    const build = this.latest.get(tenant);
    const serving = this.serving.get(tenant);
    const servingStatus = serving ? { serving: status(serving, serving.built?.head?.()) } : {};
    if (!build) return { provider, state: serving ? 'ready' : 'none', ...servingStatus };
    if (serving === build) return { provider, state: 'ready', ...servingStatus };
    const failed = build.built?.head?.()?.error ?? build.error;
    if (failed) return { provider, state: 'failed', ...servingStatus, error: failed };
    if (build.built && !build.built.classify) return { provider, state: 'none' };
    return { provider, state: 'training', ...servingStatus, training: status(build) };
  }
}
