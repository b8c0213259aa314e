/**
 * Remembers which message ids an agent already handled, so a redelivery (same Idempotency-Key) is answered from
 * memory instead of redoing the work. The default store is a file of JSON lines that survives a restart.
 *
 * Both stores keep a window: ids older than `maxAgeMs` and the oldest beyond `maxEntries` are forgotten. The
 * default age (30 days) is the gateway's longest redelivery horizon: a message's deadline is at most 30 days away.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AgentOutcome } from '../protocol/receipt';

/** What handling a message came to: the outcome its receipt reports (protocol/receipt.ts). */
export type HandledMessage = AgentOutcome;

export interface IdempotencyStore {
  get(messageId: string): HandledMessage | undefined;
  set(messageId: string, outcome: HandledMessage): void;
}

export interface StoreWindow {
  /** @default 100000 */
  maxEntries?: number;
  /** @default 30 days */
  maxAgeMs?: number;
  /** @default Date.now */
  now?: () => number;
}

export const DEFAULT_MAX_ENTRIES = 100_000;
export const DEFAULT_MAX_AGE_MS = 30 * 24 * 3600 * 1000;

interface Entry {
  outcome: HandledMessage;
  /** When it was handled, in ms since the epoch. */
  at: number;
}

export class MemoryStore implements IdempotencyStore {
  /** In the order handled (a Map keeps insertion order), so the oldest come first. */
  protected readonly handled = new Map<string, Entry>();
  /**
   * One live iterator over `handled`: everything before it has been evicted, so it yields the oldest entry. A new
   * iterator would first walk past every slot deleted since V8 last compacted the map (up to the window's size),
   * which made a full store slower with every id.
   */
  private oldest = this.handled.entries();
  /** The oldest entry, already taken from `oldest` but kept (re-setting an id makes a new entry object, moved last). */
  private peeked: [string, Entry] | undefined;
  protected readonly maxEntries: number;
  protected readonly maxAgeMs: number;
  protected readonly now: () => number;

  constructor(window: StoreWindow = {}) {
    this.maxEntries = window.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.maxAgeMs = window.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.now = window.now ?? Date.now;
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1)
      throw new RangeError('maxEntries must be a positive integer');
    if (!(this.maxAgeMs > 0)) throw new RangeError('maxAgeMs must be positive');
  }

  get size(): number {
    return this.handled.size;
  }

  get(messageId: string) {
    const entry = this.handled.get(messageId);
    if (!entry) return undefined;
    if (this.expired(entry)) {
      this.handled.delete(messageId);
      return undefined;
    }
    return entry.outcome;
  }

  set(messageId: string, outcome: HandledMessage) {
    this.remember(messageId, { outcome, at: this.now() });
  }

  protected remember(messageId: string, entry: Entry): void {
    this.handled.delete(messageId);
    this.handled.set(messageId, entry);
    this.evict();
  }

  private expired(entry: Entry): boolean {
    return this.now() - entry.at >= this.maxAgeMs;
  }

  /** Drops the oldest entries while they are too old or too many. */
  private evict(): void {
    for (let oldest = this.nextOldest(); oldest; oldest = this.nextOldest()) {
      const [id, entry] = oldest;
      if (this.handled.size <= this.maxEntries && !this.expired(entry)) {
        this.peeked = oldest; // still wanted: looked at first next time
        return;
      }
      this.handled.delete(id);
    }
  }

  /** The oldest entry: the one looked at last time if it is still there unchanged, else the iterator's next. */
  private nextOldest(): [string, Entry] | undefined {
    const peeked = this.peeked;
    this.peeked = undefined;
    if (peeked && this.handled.get(peeked[0]) === peeked[1]) return peeked;
    let next = this.oldest.next();
    // An iterator that once reached the end stays there: start a new one.
    if (next.done) {
      this.oldest = this.handled.entries();
      next = this.oldest.next();
    }
    return next.done ? undefined : next.value;
  }
}

/**
 * Appends one line per handled message (written synchronously, before the receipt is sent). When the file holds
 * twice as many lines as the window keeps, it is rewritten with the kept ones (to a temporary file, then renamed).
 */
export class FileStore extends MemoryStore {
  private lines = 0;

  constructor(
    private readonly path: string,
    window: StoreWindow = {},
  ) {
    super(window);
    if (!existsSync(path)) return;
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const { id, at, ...outcome } = JSON.parse(line) as HandledMessage & { id: string; at?: number };
        // Lines written before the window existed carry no time: they count from now.
        this.remember(id, { outcome, at: typeof at === 'number' ? at : this.now() });
        this.lines += 1;
      } catch {
        // a torn last line after a crash: ignore it
      }
    }
    this.compactIfLarge();
  }

  /** Lines in the file now (kept entries plus forgotten or repeated ones not yet compacted away). */
  get fileLines(): number {
    return this.lines;
  }

  override set(messageId: string, outcome: HandledMessage) {
    const at = this.now();
    mkdirSync(dirname(this.path), { recursive: true });
    appendFileSync(this.path, `${JSON.stringify({ id: messageId, at, ...outcome })}\n`);
    this.lines += 1;
    this.remember(messageId, { outcome, at });
    this.compactIfLarge();
  }

  private compactIfLarge(): void {
    if (this.lines <= 2 * Math.max(this.size, 100)) return;
    const text = [...this.handled]
      .map(([id, { outcome, at }]) => `${JSON.stringify({ id, at, ...outcome })}\n`)
      .join('');
    writeFileSync(`${this.path}.tmp`, text);
    renameSync(`${this.path}.tmp`, this.path);
    this.lines = this.size;
  }
}
