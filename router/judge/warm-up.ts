/**
 * The local judge holds a catalogue's cards before anyone asks (docs/routing.md, "How the local judge's prompts are
 * cached"): when a tenant's catalogue is served, its card prefixes are evaluated into the slots in the background,
 * STEP_TOKENS at a time at the lowest priority (priority-line.ts: a live judgement waits for the step in progress at
 * most, a fraction of a card's prefix).
 * Which cards and how many slots: warm-up-plan.ts. A newer catalogue stops the warm-up of the one before at its
 * next step. A step is no judgement: it is not seen by the judge's line, its pace or the router's stats.
 */
import type { CapabilityCandidate } from '../candidates';
import type { Token } from './prefix-slots';
import { cardsToWarm } from './warm-up-plan';

/**
 * Tokens evaluated in one step: a sixth to a tenth of a zh card's prefix (~200–330 tokens). On this two-core box a
 * held card's judgement took a median 577 ms while the zh catalogue warmed in steps of 32 (526 ms after it, 1,144 ms
 * with steps of 64), and the warm-up as long (94 against 89 s for 36 cards): docs/routing.md.
 */
export const STEP_TOKENS = 32;

/** A catalogue to hold: a tenant's capabilities at a revision. */
export interface JudgeCatalogue {
  tenant: string;
  revision: string;
  candidates: readonly CapabilityCandidate[];
}

/** What the judge's warm-up is at, for the router's status. */
export interface WarmUpStatus {
  tenant: string;
  revision: string;
  /** `warming`: cards are being evaluated; `done`: every chosen card was; `failed`: a step failed (`error`). */
  state: 'warming' | 'done' | 'failed';
  /** The catalogue's capabilities. */
  cards: number;
  /** The cards chosen to hold (all that fit the slots), and how many of them a slot holds now. */
  chosen?: number;
  held: number;
  slots?: number;
  error?: string;
}

/** What the warm-up needs of the local judge. */
export interface WarmUpTarget {
  /** Runs a step after every live use of the model waiting. */
  idle<T>(step: () => Promise<T>): Promise<T>;
  /** Sizes the slots for a catalogue of `cards` (warm-up-plan.ts slotsFor); the slot count and tokens per slot. */
  resize(cards: number): Promise<{ slots: number; slotTokens: number }>;
  /** The tokens of the card's prefix (everything before the request). */
  prefix(candidate: CapabilityCandidate): Promise<Token[]>;
  holds(prefix: readonly Token[]): boolean;
  /**
   * Evaluates up to `most` more tokens of the prefix into a slot: the first step chooses it (the one holding the
   * prefix, else an empty or the least recently used one) and returns its index; the next steps go on there.
   */
  hold(prefix: readonly Token[], most: number, slot?: number): Promise<{ slot: number; done: boolean }>;
}

interface Run {
  catalogue: JudgeCatalogue;
  state: WarmUpStatus['state'];
  slots?: number;
  chosen?: Token[][];
  error?: string;
}

export class CatalogueWarmUp {
  private run?: Run;

  constructor(private readonly target: WarmUpTarget) {}

  /** Starts holding `catalogue`'s cards; the warm-up of an earlier catalogue stops at its next step. Resolves when done or stopped. */
  start(catalogue: JudgeCatalogue): Promise<void> {
    const run: Run = { catalogue, state: 'warming' };
    this.run = run;
    return this.warm(run).catch((error: unknown) => {
      run.state = 'failed';
      run.error = (error as Error).message ?? String(error);
    });
  }

  /** Stops the warm-up at its next step (the judge closes). */
  stop(): void {
    this.run = undefined;
  }

  status(): WarmUpStatus | undefined {
    const run = this.run;
    if (!run) return undefined;
    return {
      tenant: run.catalogue.tenant,
      revision: run.catalogue.revision,
      state: run.state,
      cards: run.catalogue.candidates.length,
      ...(run.chosen ? { chosen: run.chosen.length } : {}),
      held: run.chosen?.filter((prefix) => this.target.holds(prefix)).length ?? 0,
      ...(run.slots !== undefined ? { slots: run.slots } : {}),
      ...(run.error ? { error: run.error } : {}),
    };
  }

  private async warm(run: Run): Promise<void> {
    const replaced = () => this.run !== run;
    const { candidates } = run.catalogue;
    const prefixes = await this.target.idle(async () => {
      if (replaced()) return undefined;
      const { slots, slotTokens } = await this.target.resize(candidates.length);
      const all = await Promise.all(candidates.map((c) => this.target.prefix(c)));
      const plan = cardsToWarm(
        all.map((tokens) => ({ tokens: tokens.length, held: this.target.holds(tokens) })),
        slots,
        slotTokens,
      );
      run.slots = slots;
      return plan.map((i) => all[i]!);
    });
    if (!prefixes) return;
    run.chosen = prefixes;
    for (const prefix of prefixes) if (!(await this.holdCard(prefix, replaced))) return;
    if (!replaced()) run.state = 'done';
  }

  /** One card, a step at a time; false when the warm-up was replaced meanwhile. */
  private async holdCard(prefix: readonly Token[], replaced: () => boolean): Promise<boolean> {
    let slot: number | undefined;
    for (;;) {
      const step = await this.target.idle(async () =>
        replaced() ? undefined : this.target.hold(prefix, STEP_TOKENS, slot),
      );
      if (!step) return false;
      if (step.done) return true;
      slot = step.slot;
    }
  }
}
