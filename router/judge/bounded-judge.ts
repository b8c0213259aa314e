/**
 * The judge with its cost bounded (docs/routing.md, "The judge"):
 *   - it reads when it is free, not by quota: one judgement at a time, and only as many waiting as it can answer
 *     within the timeout at its recent pace; past that the least uncertain request is shed (judge-line.ts) and the
 *     head decides it alone (`busy`). Sequential traffic is always read;
 *   - a timeout: a caller waits at most `timeoutMs` (in line and reading); then the head's verdict stands, and a
 *     judgement already running finishes into the cache for the next time;
 *   - a cache of answers by (catalogue revision, capability, request), LRU-bounded; a hit takes no turn.
 */
import { LruCache } from '../../util/lru';
import { JudgeLine } from './judge-line';
import type { JudgeProvider, JudgeQuestion } from './question';

export interface JudgeBounds {
  timeoutMs: number;
  cacheSize?: number;
}

export type JudgeOutcome =
  | { kind: 'answered'; yes: number; cached: boolean; ms: number }
  | { kind: 'abstained'; ms: number }
  /** The judge had no room for it in time: the head decides alone. */
  | { kind: 'busy' }
  | { kind: 'timeout'; ms: number }
  | { kind: 'error'; message: string; ms: number };

const DEFAULT_CACHE_SIZE = 5_000;

export class BoundedJudge {
  private readonly cache: LruCache<string, number | null>;
  private readonly line: JudgeLine;

  constructor(
    readonly provider: JudgeProvider,
    private readonly bounds: JudgeBounds,
  ) {
    this.cache = new LruCache(bounds.cacheSize ?? DEFAULT_CACHE_SIZE);
    this.line = new JudgeLine(bounds.timeoutMs);
  }

  get name(): string {
    return this.provider.name;
  }

  /** Requests waiting for the judge now, and how many may (for the router's status). */
  load(): { waiting: number; capacity: number } {
    return { waiting: this.line.length, capacity: this.line.capacity() };
  }

  /**
   * The judge's reading of `question`. `certainty`: how far the head's verdict is from its threshold (the least
   * uncertain requests are shed first when the judge is busy).
   */
  async ask(question: JudgeQuestion, revision: string, certainty = 0): Promise<JudgeOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const key = `${revision}\n${question.candidate.key}\n${question.intent}`;
    const known = this.cache.get(key);
    if (known !== undefined) return known === null ? { kind: 'abstained', ms: elapsed() } : { kind: 'answered', yes: known, cached: true, ms: elapsed() };

    const deadline = started + this.bounds.timeoutMs;
    const judgement = this.line.turn(certainty).then(async (admitted): Promise<number | null | undefined | 'busy'> => {
      if (!admitted) return 'busy';
      // Its caller has stopped waiting: not worth the model's time.
      if (performance.now() >= deadline) {
        this.line.done();
        return undefined;
      }
      const reading = performance.now();
      try {
        const yes = await this.provider.judge(question);
        this.cache.set(key, yes ?? null);
        return yes ?? null;
      } finally {
        this.line.done(performance.now() - reading);
      }
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.bounds.timeoutMs);
    });
    try {
      const result = await Promise.race([judgement, timeout]);
      if (result === 'busy') return { kind: 'busy' };
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
