/**
 * The judge with its cost bounded (docs/routing.md, "The judge"):
 *   - it reads when it is free, not by quota: one judgement at a time, and only as many waiting as it can answer
 *     within the timeout at its recent pace; past that the least uncertain request is shed (judge-line.ts) and the
 *     head decides it alone (`busy`). Sequential traffic is always read;
 *   - a timeout: a caller waits at most `timeoutMs` (in line and reading); then the head's verdict stands, and a
 *     judgement already running finishes into the cache for the next time;
 *   - a cache of answers by (catalogue revision, capability, request), LRU-bounded; a hit takes no turn.
 * Filling parameters (the local model, `fill`) takes its turns on the same line, with a timeout of its own; its
 * generation is stopped when its caller stops waiting. A served catalogue's cards are held ahead of their
 * judgements while the judge is on (`hold`: the local judge's warm-up, warm-up.ts), off this line.
 */
import { LruCache } from '../../util/lru';
import { JudgeLine } from './judge-line';
import type { FillRequest } from '../params/fill-prompt';
import type { JudgeProvider, JudgeQuestion } from './question';
import type { JudgeCatalogue, WarmUpStatus } from './warm-up';

export interface JudgeBounds {
  timeoutMs: number;
  /** How long a caller waits for parameters to be filled (in line and generating); default: no filling. */
  fillTimeoutMs?: number;
  cacheSize?: number;
  /** Starts switched off (`auto`, until its probe: judge-probe.ts). */
  startsOff?: boolean;
}

export type FillOutcome =
  | { kind: 'filled'; fields: Record<string, unknown>; ms: number }
  | { kind: 'busy' }
  | { kind: 'timeout'; ms: number }
  | { kind: 'error'; message: string; ms: number };

export type JudgeOutcome =
  | { kind: 'answered'; yes: number; cached: boolean; ms: number }
  | { kind: 'abstained'; ms: number }
  /** The judge had no room for it in time: the head decides alone. */
  | { kind: 'busy' }
  | { kind: 'timeout'; ms: number }
  | { kind: 'error'; message: string; ms: number }
  /** The judge is switched off (ROUTER_JUDGE=auto while it probes the host, or after the host failed the probe). */
  | { kind: 'off' };

const DEFAULT_CACHE_SIZE = 5_000;

export class BoundedJudge {
  private readonly cache: LruCache<string, number | null>;
  private readonly line: JudgeLine;
  private on: boolean;
  /** The newest catalogue served, held once the judge is on. */
  private catalogue?: JudgeCatalogue;

  constructor(
    readonly provider: JudgeProvider,
    private readonly bounds: JudgeBounds,
  ) {
    this.cache = new LruCache(bounds.cacheSize ?? DEFAULT_CACHE_SIZE);
    this.line = new JudgeLine(bounds.timeoutMs);
    this.on = !bounds.startsOff;
  }

  /** Switched off, it reads nothing and fills nothing: the head decides alone, as without a judge. */
  switchOn(on: boolean): void {
    const switchedOn = on && !this.on;
    this.on = on;
    if (switchedOn && this.catalogue) void this.provider.hold?.(this.catalogue);
  }

  /**
   * A tenant's catalogue is served: the judge holds its cards before anyone asks (where its provider can). Off (`auto`
   * still probing), it waits until the judge is switched on: the warm-up would slow the timed probe.
   */
  hold(catalogue: JudgeCatalogue): void {
    this.catalogue = catalogue;
    if (this.on) void this.provider.hold?.(catalogue);
  }

  /** The warm-up of the tenant's catalogue, if it is the newest one held (the status shows no other tenant's). */
  warming(tenant: string): WarmUpStatus | undefined {
    const status = this.provider.warming?.();
    return status?.tenant === tenant ? status : undefined;
  }

  get isOn(): boolean {
    return this.on;
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
    if (!this.on) return { kind: 'off' };
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const key = `${revision}\n${question.candidate.key}\n${question.intent}`;
    const known = this.cache.get(key);
    if (known !== undefined)
      return known === null
        ? { kind: 'abstained', ms: elapsed() }
        : { kind: 'answered', yes: known, cached: true, ms: elapsed() };

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
      return result === null
        ? { kind: 'abstained', ms: elapsed() }
        : { kind: 'answered', yes: result, cached: false, ms: elapsed() };
    } catch (error) {
      return { kind: 'error', message: (error as Error).message ?? String(error), ms: elapsed() };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether it fills parameters (a provider that generates, and a fill timeout set). */
  get fills(): boolean {
    return this.on && Boolean(this.provider.fill && this.bounds.fillTimeoutMs);
  }

  /**
   * The request's values of `request.fields`, generated by the model. It waits its turn like a judgement of the
   * greatest uncertainty (a caller would otherwise be asked for the values); past `fillTimeoutMs` the generation is
   * stopped and the heuristic extraction stands.
   */
  async fill(request: FillRequest): Promise<FillOutcome> {
    const fill = this.provider.fill?.bind(this.provider);
    const timeoutMs = this.bounds.fillTimeoutMs;
    if (!fill || !timeoutMs || !this.on) return { kind: 'busy' };
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      if (!(await this.line.turn(0))) return { kind: 'busy' };
      try {
        if (abort.signal.aborted) return { kind: 'timeout', ms: elapsed() };
        const fields = await fill(request, abort.signal);
        return { kind: 'filled', fields, ms: elapsed() };
      } finally {
        // Not counted in the line's pace: a generation is several judgements long, and rare.
        this.line.done();
      }
    } catch (error) {
      if (abort.signal.aborted) return { kind: 'timeout', ms: elapsed() };
      return { kind: 'error', message: (error as Error).message ?? String(error), ms: elapsed() };
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.provider.close?.() ?? Promise.resolve();
  }
}
