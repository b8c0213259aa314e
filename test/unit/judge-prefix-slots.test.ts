/**
 * The local judge's card prefixes (router/judge/prefix-slots.ts, prefix-pool.ts): which sequence reads a prompt,
 * what is kept and erased, which prefix is evicted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PrefixPool, type LlamaSequence } from '../../router/judge/prefix-pool';
import { chooseSlot, commonPrefixLength, type SlotState, type Token } from '../../router/judge/prefix-slots';

/** System prompt 1 2 3, then a card (agent 10, capability 20 or 21 …), then the request. */
const SYSTEM = [1, 2, 3];
const card = (capability: number) => [...SYSTEM, 10, capability, capability, capability];
const prompt = (capability: number, ...request: Token[]) => [...card(capability), ...request, 99];
const PREFIX = card(0).length;
const slot = (held: Token[], lastUsed: number): SlotState => ({ held, lastUsed });

describe('judge prefix slots', () => {
  it('commonPrefixLength - counts the leading tokens two lists share', () => {
    assert.equal(commonPrefixLength([1, 2, 3], [1, 2, 4, 5]), 2);
    assert.equal(commonPrefixLength([], [1]), 0);
    assert.equal(commonPrefixLength([1, 2], [1, 2]), 2);
  });

  it("chooseSlot - a sequence holding the card's prefix is reused: only the request is evaluated", () => {
    const slots = [slot(card(20), 5), slot(card(21), 9), slot([], 0)];
    assert.deepEqual(chooseSlot(slots, prompt(21, 7, 8), PREFIX), { index: 1, keep: PREFIX, hit: true });
  });

  it('chooseSlot - of several holding the prefix, the one sharing the most tokens', () => {
    const slots = [slot(card(20), 9), slot([...card(20), 7], 1)];
    assert.deepEqual(chooseSlot(slots, prompt(20, 7, 8), PREFIX), { index: 1, keep: PREFIX + 1, hit: true });
  });

  it('chooseSlot - a miss takes an empty sequence before evicting one, keeping the system prompt it shares', () => {
    const slots = [slot(card(20), 1), slot([], 0), slot(card(21), 2)];
    assert.deepEqual(chooseSlot(slots, prompt(22, 7), PREFIX), { index: 1, keep: 0, hit: false });
    const full = [slot(card(20), 3), slot(card(21), 1), slot(card(23), 2)];
    assert.deepEqual(chooseSlot(full, prompt(22, 7), PREFIX), { index: 1, keep: SYSTEM.length + 1, hit: false });
  });

  it('chooseSlot - another card of the same agent (a few shared tokens) is no hit: the least recently used is evicted', () => {
    const slots = [slot(card(20), 9), slot(card(30), 1)];
    // card(20) shares system + agent token with card(21); it is the most recently used and stays.
    assert.equal(chooseSlot(slots, prompt(21, 7), PREFIX).index, 1);
  });

  it('chooseSlot - at least the last token is evaluated, even when a sequence holds the whole prompt', () => {
    const whole = prompt(20, 7);
    assert.deepEqual(chooseSlot([slot(whole, 1)], whole, PREFIX), { index: 0, keep: whole.length - 1, hit: true });
  });

  it('chooseSlot - no sequence or an empty prompt is an error', () => {
    assert.throws(() => chooseSlot([], [1], 1), RangeError);
    assert.throws(() => chooseSlot([slot([], 0)], [], 1), RangeError);
  });
});

/** A sequence that records what it was asked to evaluate and erase, holding tokens as the runtime does. */
function fakeSequence(log: string[], name: string): LlamaSequence {
  let tokens: Token[] = [];
  return {
    get contextTokens() {
      return tokens;
    },
    get nextTokenIndex() {
      return tokens.length;
    },
    async eraseContextTokenRanges(ranges) {
      for (const { start, end } of ranges) {
        log.push(`${name} erase ${start}-${end}`);
        tokens = [...tokens.slice(0, start), ...tokens.slice(end)];
      }
    },
    async controlledEvaluate(input) {
      const evaluated = input.map((item) => (Array.isArray(item) ? item[0] : item));
      log.push(`${name} evaluate ${evaluated.length}`);
      tokens = [...tokens, ...evaluated];
      return input.map((item) => (Array.isArray(item) ? { next: { probabilities: new Map([[1, 1]]) } } : undefined));
    },
  };
}

describe('judge prefix pool', () => {
  it("PrefixPool - a miss evaluates the whole prompt, a hit only the request; afterwards only the card's prefix is held", async () => {
    const log: string[] = [];
    const sequences = [fakeSequence(log, 'a'), fakeSequence(log, 'b')];
    const pool = new PrefixPool(sequences, 512);
    const first = await pool.read(prompt(20, 7, 8), PREFIX);
    assert.deepEqual([first.hit, first.evaluated], [false, PREFIX + 3]);
    assert.deepEqual(sequences[0]!.contextTokens, card(20), 'the request tail is erased');
    const second = await pool.read(prompt(20, 5), PREFIX);
    assert.deepEqual([second.hit, second.evaluated], [true, 2]);
    assert.ok(second.probabilities);
    assert.deepEqual(log, [
      'a evaluate 10',
      `a erase ${PREFIX}-${PREFIX + 3}`,
      'a evaluate 2',
      `a erase ${PREFIX}-${PREFIX + 2}`,
    ]);
  });

  it('PrefixPool - with every sequence taken, a new card evicts the least recently used one, keeping what it shares', async () => {
    const log: string[] = [];
    const sequences = [fakeSequence(log, 'a'), fakeSequence(log, 'b')];
    const pool = new PrefixPool(sequences, 512);
    await pool.read(prompt(20, 7), PREFIX);
    await pool.read(prompt(30, 7), PREFIX);
    await pool.read(prompt(20, 8), PREFIX); // card 20 used again: card 30 is now the least recent
    log.length = 0;
    const read = await pool.read(prompt(40, 7), PREFIX);
    assert.equal(read.hit, false);
    assert.deepEqual(sequences[0]!.contextTokens, card(20));
    assert.deepEqual(sequences[1]!.contextTokens, card(40));
    assert.equal(
      log[0],
      `b erase ${SYSTEM.length + 1}-${PREFIX}`,
      'card 30 erased after the system prompt and the agent it shares',
    );
  });

  it('PrefixPool - fits only prompts shorter than a sequence', () => {
    const pool = new PrefixPool([fakeSequence([], 'a')], 4);
    assert.equal(pool.fits([1, 2, 3]), true);
    assert.equal(pool.fits([1, 2, 3, 4]), false);
  });
});
