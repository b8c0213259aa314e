/**
 * Which of the local judge's sequences reads a prompt (docs/routing.md, "The judge"). Pure functions.
 *
 * Every prompt is the system prompt, then one capability's card, then the request and the question; the tokens up
 * to the request (the card's *prefix*) are the same for every judgement of that capability. Each sequence keeps one
 * such prefix evaluated, so a judgement of a capability whose prefix is held evaluates only the request's tokens.
 *   - hit: a sequence holds the whole prefix: the one sharing the most tokens with the prompt;
 *   - miss: an empty sequence, else the least recently used one (its prefix is evicted); what it shares with the
 *     prompt (at least the system prompt) is kept;
 * a sequence that merely shares the first words of another card of the same agent is no hit: reusing it would evict
 * a card more often judged to save a few tokens. At least one token is always evaluated, the last, whose next-token
 * probabilities are the answer.
 */

export type Token = number;

export interface SlotState {
  /** The tokens the sequence holds evaluated. */
  held: readonly Token[];
  /** When it last read a prompt (a counter); 0 when never. */
  lastUsed: number;
}

export interface SlotChoice {
  index: number;
  /** Tokens of the prompt already evaluated there: what follows them in the sequence is erased, the rest evaluated. */
  keep: number;
  hit: boolean;
}

export function commonPrefixLength(a: readonly Token[], b: readonly Token[]): number {
  const limit = Math.min(a.length, b.length);
  let common = 0;
  while (common < limit && a[common] === b[common]) common++;
  return common;
}

/** The sequence to read `prompt` in, whose first `prefixLength` tokens are its card's prefix. */
export function chooseSlot(slots: readonly SlotState[], prompt: readonly Token[], prefixLength: number): SlotChoice {
  if (slots.length === 0) throw new RangeError('no sequence to choose from');
  if (prompt.length === 0) throw new RangeError('an empty prompt');
  const shared = slots.map((slot) => Math.min(commonPrefixLength(slot.held, prompt), prompt.length - 1));
  let best = -1;
  for (let i = 0; i < slots.length; i++) {
    if (shared[i]! >= Math.min(prefixLength, prompt.length - 1) && (best < 0 || shared[i]! > shared[best]!)) best = i;
  }
  if (best >= 0) return { index: best, keep: shared[best]!, hit: true };
  const empty = slots.findIndex((slot) => slot.held.length === 0);
  const index = empty >= 0 ? empty : leastRecentlyUsed(slots);
  return { index, keep: shared[index]!, hit: false };
}

function leastRecentlyUsed(slots: readonly SlotState[]): number {
  let oldest = 0;
  for (let i = 1; i < slots.length; i++) if (slots[i]!.lastUsed < slots[oldest]!.lastUsed) oldest = i;
  return oldest;
}
