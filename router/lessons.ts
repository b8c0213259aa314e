/**
 * A tenant's lessons (requests its agents reported misrouted, applied: store/misroutes.ts) as the router reads them
 * on every request: through a short cache, so a lesson applied on one api reaches every api within `ttlMs`, and a
 * fingerprint that joins the catalogue's revision (a new lesson retrains the head like a card edit).
 */
import { createHash } from 'node:crypto';
import { LruCache } from '../util/lru';
import type { CapabilityCandidate } from './candidates';

/** Per capability key, its lessons' texts. */
export type Lessons = ReadonlyMap<string, readonly string[]>;

export const NO_LESSONS: Lessons = new Map();

export function lessonsFingerprint(lessons: Lessons): string {
  if (lessons.size === 0) return '';
  const hash = createHash('sha1');
  for (const key of [...lessons.keys()].sort())
    hash
      .update(key)
      .update('\n')
      .update(JSON.stringify(lessons.get(key)))
      .update('\n');
  return hash.digest('hex').slice(0, 16);
}

/** The candidates with their lessons attached (unchanged objects where a capability has none). */
export function withLessons(candidates: readonly CapabilityCandidate[], lessons: Lessons): CapabilityCandidate[] {
  if (lessons.size === 0) return [...candidates];
  return candidates.map((c) => (lessons.has(c.key) ? { ...c, misroutes: lessons.get(c.key)! } : c));
}

export class LessonCache {
  private readonly cache: LruCache<string, { at: number; lessons: Promise<Lessons> }>;

  constructor(
    private readonly read: (tenant: string) => Promise<Lessons>,
    private readonly ttlMs = 5_000,
    tenants = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.cache = new LruCache(tenants);
  }

  /** The tenant's lessons; on a read failure, the last ones known (or none) rather than a failed route. */
  get(tenant: string): Promise<Lessons> {
    const cached = this.cache.get(tenant);
    if (cached && this.now() - cached.at < this.ttlMs) return cached.lessons;
    const previous = cached?.lessons ?? Promise.resolve(NO_LESSONS);
    const lessons = this.read(tenant).catch(() => previous);
    this.cache.set(tenant, { at: this.now(), lessons });
    return lessons;
  }

  /** Forget the tenant's copy (after an operator's decision on this api). */
  invalidate(tenant: string): void {
    this.cache.delete(tenant);
  }
}
