/**
 * The line in front of the judge's model: one judgement at a time, and only as many waiting as can still be answered
 * within the callers' timeout at the model's recent pace. While there is room, every request that wants reading is
 * read (sequential traffic always is: nobody waits). When the line is full, the least uncertain request — the head's
 * verdict farthest from its threshold — is shed: the newcomer, or one already waiting that it displaces. A shed
 * request is decided by the head alone, and its explanation says the judge was busy.
 */

/** Most requests ever kept waiting, whatever the pace (a bound on memory). */
export const MAX_WAITING = 64;

/** How much a new judgement's duration moves the pace (an exponentially weighted moving average). */
const PACE_WEIGHT = 0.2;

interface Waiting {
  /** How far the head's verdict is from its threshold: the larger, the less the judge is needed. */
  certainty: number;
  admit: (admitted: boolean) => void;
}

export class JudgeLine {
  private reading = false;
  private readonly waiting: Waiting[] = [];
  /** Recent milliseconds per judgement; undefined until one is measured. */
  private paceMs: number | undefined;

  constructor(private readonly timeoutMs: number) {}

  /**
   * How many may wait beside the one reading, so that the last is still answered within the timeout — and at
   * least one: the one reading may be a judgement whose caller already stopped waiting (it finishes into the
   * cache), and a request of sequential traffic arriving meanwhile waits for it rather than being shed.
   */
  capacity(): number {
    if (this.paceMs === undefined || this.paceMs <= 0) return MAX_WAITING;
    return Math.min(MAX_WAITING, Math.max(1, Math.floor(this.timeoutMs / this.paceMs) - 1));
  }

  /** Requests waiting now (not the one reading). */
  get length(): number {
    return this.waiting.length;
  }

  /** Resolves true when it is this request's turn to be read, false when it is shed. Call `done` after a turn. */
  turn(certainty: number): Promise<boolean> {
    if (!this.reading) {
      this.reading = true;
      return Promise.resolve(true);
    }
    if (this.waiting.length >= this.capacity()) {
      const least = this.leastUncertain();
      if (least === undefined || this.waiting[least]!.certainty <= certainty) return Promise.resolve(false);
      this.waiting.splice(least, 1)[0]!.admit(false);
    }
    return new Promise((admit) => this.waiting.push({ certainty, admit }));
  }

  /** A turn ended after `ms` of reading (undefined: nothing was read); the next in line goes. */
  done(ms?: number): void {
    if (ms !== undefined)
      this.paceMs = this.paceMs === undefined ? ms : (1 - PACE_WEIGHT) * this.paceMs + PACE_WEIGHT * ms;
    const next = this.waiting.shift();
    if (next) next.admit(true);
    else this.reading = false;
  }

  private leastUncertain(): number | undefined {
    let index: number | undefined;
    this.waiting.forEach((w, i) => {
      if (index === undefined || w.certainty > this.waiting[index]!.certainty) index = i;
    });
    return index;
  }
}
