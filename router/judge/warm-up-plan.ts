/**
 * What the local judge holds ahead of time for a catalogue (docs/routing.md, "How the local judge's prompts are
 * cached"). Pure functions.
 *   - slots: as many card prefixes as the catalogue has cards, in steps of SLOT_STEP (a card more or less does not
 *     rebuild the slots, which drops every prefix they hold), at least MIN_SLOTS and at most MAX_SLOTS;
 *   - cards: those whose prefix leaves room for a request in a slot, the ones held already first (they cost one
 *     token and keep what traffic has warmed), then the others in the catalogue's order, as many as there are slots.
 *     A catalogue larger than the slots is held in part: its first cards.
 */

/**
 * A slot costs SLOT_TOKENS × 28 KiB = 14 MiB (local-judge.ts): 16 slots 224 MiB, 64 slots 896 MiB, 160 slots 2.2 GiB.
 * MAX_SLOTS holds a catalogue of CLINC150's size whole (150 cards): with 64 of its cards held, the readings of the
 * others (cold, ~2.5 s) kept its judged p95 above 2 s (docs/benchmarks.md).
 */
export const MIN_SLOTS = 16;
export const MAX_SLOTS = 160;
export const SLOT_STEP = 8;
/** Tokens left in a slot for the request and the question (20–80 on the zh dev set). */
export const REQUEST_ROOM = 96;

/** The slots for a catalogue of `cards` capabilities. */
export function slotsFor(cards: number, bounds = { min: MIN_SLOTS, max: MAX_SLOTS }): number {
  const stepped = Math.ceil(Math.max(0, cards) / SLOT_STEP) * SLOT_STEP;
  return Math.min(bounds.max, Math.max(bounds.min, stepped));
}

export interface CardPrefix {
  /** Tokens of the card's prefix. */
  tokens: number;
  /** A slot holds it now. */
  held: boolean;
}

/** Indexes of the cards to hold, in the order to hold them. `slotTokens`: the tokens a slot holds. */
export function cardsToWarm(cards: readonly CardPrefix[], slots: number, slotTokens: number): number[] {
  const fitting = cards.map((card, index) => ({ ...card, index })).filter((c) => c.tokens + REQUEST_ROOM < slotTokens);
  const ordered = [...fitting.filter((c) => c.held), ...fitting.filter((c) => !c.held)];
  return ordered.slice(0, Math.max(0, slots)).map((c) => c.index);
}
