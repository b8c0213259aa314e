/**
 * The local judge holds a catalogue's cards before anyone asks (docs/routing.md, "How the local judge's prompts are
 * cached"): when a tenant's catalogue is served, its card prefixes are evaluated into the slots in the background,
 * one card a step at the lowest priority (priority-line.ts: a live judgement waits for the step in progress at most).
 * Which cards and how many slots: warm-up-plan.ts. A newer catalogue stops the warm-up of the one before at its
 * next step. A step is no judgement: it is not seen by the judge's line, its pace or the router's stats.
 */
import type { CapabilityCandidate } from '../candidates';
import type { Token } from './prefix-slots';
import { cardsToWarm } from './warm-up-plan';

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
  /** Evaluates the prefix into a slot (a held one is kept, else the least recently used one is replaced). */
  hold(prefix: readonly Token[]): Promise<void>;
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
    for (const prefix of prefixes) {
      if (replaced()) return;
      await this.target.idle(() => (replaced() ? Promise.resolve() : this.target.hold(prefix)));
    }
    if (!replaced()) run.state = 'done';
  }
}
