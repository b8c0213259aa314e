/**
 * The judge with its cost bounded (docs/routing.md, "The judge"):
 *   - share: every request earns `share` of a judgement, a judgement spends one (a token bucket holding at most
 *     BURST), so over any long run at most that share of requests reaches the model; past it the head decides alone;
 *   - one judgement at a time per model: the others wait in line;
 *   - a timeout: a caller waits at most `timeoutMs` (in line and reading); then the head's verdict stands, and a
 *     judgement already running finishes into the cache for the next time;
 *   - a cache of answers by (catalogue revision, capability, request), LRU-bounded; a hit costs no share.
 */
import { ConcurrencyLimit } from '../../util/concurrency-limit';
import { LruCache } from '../../util/lru';
import type { JudgeProvider, JudgeQuestion } from './question';

export interface JudgeBounds {
  /** Share of requests that may be judged, 0–1. */
  share: number;
  timeoutMs: number;
  cacheSize?: number;
}

export type JudgeOutcome =
  | { kind: 'answered'; yes: number; cached: boolean; ms: number }
  | { kind: 'abstained'; ms: number }
  | { kind: 'over_share' }
  | { kind: 'timeout'; ms: number }
  | { kind: 'error'; message: string; ms: number };

/**
 * Judgements saved up over a quiet spell, to spend back to back: requests that want reading come in runs (by chance
 * in the benchmark's shuffled order; alike requests together in real traffic), and with 3 saved the bucket refused
 * reads while the long-run share wanted stayed below the bound (zh/en dev: 27.5 % wanted at share 0.3, 6 reads
 * refused; with 10, none). The long-run share is bounded the same; a caller still waits at most the timeout, in line
 * or reading.
 */
const BURST = 10;
const DEFAULT_CACHE_SIZE = 5_000;

export class BoundedJudge {
  private readonly cache: LruCache<string, number | null>;
  private credit = 1;
  /** One judgement at a time per model; the others wait in line. */
  private readonly line = new ConcurrencyLimit(1);

  constructor(
    readonly provider: JudgeProvider,
    private readonly bounds: JudgeBounds,
  ) {
    this.cache = new LruCache(bounds.cacheSize ?? DEFAULT_CACHE_SIZE);
  }

  get name(): string {
    return this.provider.name;
  }

  /** Counts a request the router decided (judged or not): each earns its share of a judgement. */
  requestSeen(): void {
    this.credit = Math.min(BURST, this.credit + this.bounds.share);
  }

  async ask(question: JudgeQuestion, revision: string): Promise<JudgeOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const key = `${revision}\n${question.candidate.key}\n${question.intent}`;
    const known = this.cache.get(key);
    if (known !== undefined) return known === null ? { kind: 'abstained', ms: elapsed() } : { kind: 'answered', yes: known, cached: true, ms: elapsed() };
    if (this.credit < 1) return { kind: 'over_share' };
    this.credit -= 1;

    const deadline = started + this.bounds.timeoutMs;
    const judgement = this.line.run(async () => {
      // Its caller has stopped waiting: not worth the model's time.
      if (performance.now() >= deadline) return undefined;
      const yes = await this.provider.judge(question);
      this.cache.set(key, yes ?? null);
      return yes ?? null;
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.bounds.timeoutMs);
    });
    try {
      const result = await Promise.race([judgement, timeout]);
      if (result === 'timeout' || result === undefined) return { kind: 'timeout', ms: elapsed() };
      return result === null ? { kind: 'abstained', ms: elapsed() } : { kind: 'answered', yes: result, cached: false, ms: elapsed() };
    } catch (error) {
      return { kind: 'error', message: (error as Error).message ?? String(error), ms: elapsed() };
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.provider.close?.() ?? Promise.resolve();
  }
}
