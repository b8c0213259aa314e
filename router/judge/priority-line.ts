/**
 * The local model's line: one use at a time, live uses (judgements, fills) before background ones (the catalogue's
 * warm-up, warm-up.ts). A live use waits for the use in progress — at most one background step — and for the live
 * uses before it, never for a background step that has not started.
 */
export type Priority = 'live' | 'idle';

export class PriorityLine {
  private busy = false;
  private readonly live: (() => void)[] = [];
  private readonly idle: (() => void)[] = [];

  async run<T>(task: () => Promise<T>, priority: Priority = 'live'): Promise<T> {
    await this.acquire(priority);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  /** Uses waiting now, by priority. */
  get waiting(): { live: number; idle: number } {
    return { live: this.live.length, idle: this.idle.length };
  }

  private async acquire(priority: Priority): Promise<void> {
    if (!this.busy) {
      this.busy = true;
      return;
    }
    await new Promise<void>((resolve) => (priority === 'live' ? this.live : this.idle).push(resolve));
  }

  private release(): void {
    const next = this.live.shift() ?? this.idle.shift();
    if (next) next();
    else this.busy = false;
  }
}
