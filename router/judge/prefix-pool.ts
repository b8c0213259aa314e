/**
 * The local judge's sequences, each keeping one card's prompt prefix evaluated between judgements (prefix-slots.ts
 * chooses which one reads a prompt). One prompt at a time: the caller (local-judge.ts) serialises them.
 */
import { chooseSlot, commonPrefixLength, type Token } from './prefix-slots';

/** The part of a node-llama-cpp context sequence used here. */
export interface LlamaSequence {
  readonly contextTokens: readonly Token[];
  readonly nextTokenIndex: number;
  eraseContextTokenRanges(ranges: { start: number; end: number }[]): Promise<void>;
  controlledEvaluate(
    input: (Token | [Token, { generateNext: { probabilities: true } }])[],
  ): Promise<({ next: { probabilities?: Map<Token, number> } } | undefined)[]>;
}

export interface PoolRead {
  /** The next token's probabilities after the prompt; undefined when the runtime gave none. */
  probabilities?: Map<Token, number>;
  hit: boolean;
  /** Prompt tokens evaluated (the others were held). */
  evaluated: number;
}

export class PrefixPool {
  private readonly lastUsed: number[];
  private clock = 0;

  /** `capacity`: tokens each sequence holds at most (the context's size per sequence). */
  constructor(
    private readonly sequences: readonly LlamaSequence[],
    readonly capacity: number,
  ) {
    this.lastUsed = sequences.map(() => 0);
  }

  fits(prompt: readonly Token[]): boolean {
    return prompt.length < this.capacity;
  }

  get size(): number {
    return this.sequences.length;
  }

  /** Whether a sequence holds `prefix` evaluated. */
  holds(prefix: readonly Token[]): boolean {
    return this.sequences.some((s) => commonPrefixLength(s.contextTokens, prefix) >= prefix.length);
  }

  /**
   * Evaluates up to `most` more tokens of a card's prefix ahead of its first judgement (a step of the catalogue's
   * warm-up, warm-up.ts): first into the sequence that holds it (its last token is evaluated again), else an empty or
   * the least recently used one; then, given that sequence's `index`, on from where it stopped.
   */
  async hold(prefix: readonly Token[], most: number, index?: number): Promise<{ index: number; done: boolean }> {
    let keep: number;
    if (index === undefined) {
      const slots = this.sequences.map((s, i) => ({ held: s.contextTokens, lastUsed: this.lastUsed[i]! }));
      ({ index, keep } = chooseSlot(slots, prefix, prefix.length));
    } else keep = commonPrefixLength(this.sequences[index]!.contextTokens, prefix);
    const sequence = this.sequences[index]!;
    this.lastUsed[index] = ++this.clock;
    await eraseFrom(sequence, keep);
    const end = Math.min(prefix.length, keep + Math.max(1, most));
    if (end > keep) await sequence.controlledEvaluate(prefix.slice(keep, end));
    return { index, done: end === prefix.length };
  }

  /** Reads the prompt's next-token probabilities; afterwards its sequence holds the prompt's first `prefixLength` tokens. */
  async read(prompt: readonly Token[], prefixLength: number): Promise<PoolRead> {
    const slots = this.sequences.map((s, i) => ({ held: s.contextTokens, lastUsed: this.lastUsed[i]! }));
    const { index, keep, hit } = chooseSlot(slots, prompt, prefixLength);
    const sequence = this.sequences[index]!;
    this.lastUsed[index] = ++this.clock;
    await eraseFrom(sequence, keep);
    const rest = prompt.slice(keep);
    const last: [Token, { generateNext: { probabilities: true } }] = [
      rest[rest.length - 1]!,
      { generateNext: { probabilities: true } },
    ];
    try {
      const output = await sequence.controlledEvaluate([...rest.slice(0, -1), last]);
      const probabilities = output[output.length - 1]?.next.probabilities;
      return { ...(probabilities ? { probabilities } : {}), hit, evaluated: rest.length };
    } finally {
      // Only the card's prefix stays: the next request differs.
      await eraseFrom(sequence, prefixLength);
    }
  }
}

async function eraseFrom(sequence: LlamaSequence, start: number): Promise<void> {
  if (start < sequence.nextTokenIndex)
    await sequence.eraseContextTokenRanges([{ start, end: sequence.nextTokenIndex }]);
}
