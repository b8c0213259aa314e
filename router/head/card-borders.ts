/**
 * What a card says its capability does not do, used at decision time: a request nearer (cosine, in the first
 * model's space) to one of the card's exclusion clauses than to every one of the capability's own texts (its
 * examples, name, description and tags) falls outside the card's border, whatever the head's probability. Near
 * misses — undo what a capability only creates, change what it only reads — score like right answers for the head;
 * the clause that names them is often the nearest text. No threshold: nearer is nearer (docs/routing.md). A request
 * an agent reported misrouted to the capability (a lesson, store/misroutes.ts) draws a border only around nearly
 * the same request (LESSON_SIMILARITY).
 * Nearer is not the only signal: a request that falls just inside a border scores like a right answer too. The
 * **gap** to the nearest fence (`gaps`) tells the judge which accepted requests to read: those whose nearest stated
 * exclusion, counter-example or lesson among the best capabilities' cards is about as near as the chosen
 * capability's own texts (router/judge/decision.ts, NEAR_BORDER).
 */
import { containsCjk } from '../words';
import { namedFence, contentWords, type FenceWords } from './fence-words';
import type { Crossing, HeadTrainingInput, NearestFence } from './head';

interface Border {
  /** The capability's own texts' vectors. */
  own: Float32Array[];
  excluded: Float32Array[];
  /** The exclusion clauses, in the order of `excluded`. */
  clauses: string[];
  /** Every text that fences the card in, for `gaps`: its exclusion clauses, counter-examples and lessons. */
  fences: WrittenFence[];
  /** Requests reported misrouted to the capability and applied as lessons, with their vectors. */
  lessons: Lesson[];
}

export interface Lesson {
  text: string;
  vector: Float32Array;
}

/** A text that says what a card does not take (an exclusion clause, a counter-example, a lesson), with its vector. */
export type Fence = Lesson;

/** A fence and whether it is written in Chinese (fences are weighed against own texts of their language). */
interface WrittenFence extends Fence {
  chinese: boolean;
}

/**
 * A lesson draws a border only around requests nearly the same as the one reported (cosine in the first model's
 * space, multilingual-e5-small): a reported request is phrased like a user's, so "nearer to it than to the card's
 * own texts" would also catch the capability's own requests in the same words (zh/en dev: lessons from half the
 * misroutes drawn like clauses lost 4 points of in-scope on the other half, and caught none of its misroutes).
 */
export const LESSON_SIMILARITY = 0.97;

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

function nearest(query: Float32Array, vectors: readonly Float32Array[]): { index: number; similarity: number } {
  let best = { index: -1, similarity: Number.NEGATIVE_INFINITY };
  vectors.forEach((v, index) => {
    const similarity = dot(query, v);
    if (similarity > best.similarity) best = { index, similarity };
  });
  return best;
}

/**
 * A capability's own texts in the language most of them are written in (a card's few texts in another language are
 * mostly short tags), against which fences in that language are weighed.
 */
interface OwnTexts {
  chinese: boolean;
  vectors: Float32Array[];
}

function ownTexts(vectors: readonly Float32Array[], chinese: readonly boolean[]): OwnTexts {
  const zh = chinese.filter(Boolean).length * 2 > chinese.length;
  return { chinese: zh, vectors: vectors.filter((_, i) => chinese[i] === zh) };
}

export class CardBorders {
  private constructor(
    private readonly borders: ReadonlyMap<string, Border>,
    /** Every capability's own texts' vectors (a request's gap is measured from its chosen capability's). */
    private readonly own: ReadonlyMap<string, OwnTexts>,
    /** Words only the cards' exclusions use (fence-words.ts). */
    private readonly words: FenceWords,
  ) {}

  /**
   * The borders of the capabilities that state exclusions or have counter-examples or lessons, from a head's
   * training input, each class's exclusion clauses (in the order of its `excluded` vectors), its lessons and its
   * counter-examples' vectors.
   */
  static of(
    input: HeadTrainingInput,
    clauses: readonly (readonly string[])[],
    lessons: readonly (readonly Lesson[])[] = [],
    counterExamples: readonly (readonly Fence[])[] = [],
    words: FenceWords = new Map(),
  ): CardBorders {
    const borders = new Map<string, Border>();
    input.classes.forEach((c, i) => {
      const learned = lessons[i] ?? [];
      const counter = counterExamples[i] ?? [];
      const excluded = c.excluded ?? [];
      const fences = [...excluded.map((vector, j) => ({ text: clauses[i]![j]!, vector })), ...counter, ...learned].map(
        (f) => ({ ...f, chinese: containsCjk(f.text) }),
      );
      if (fences.length)
        borders.set(c.key, { own: c.vectors, excluded, clauses: [...clauses[i]!], lessons: [...learned], fences });
    });
    return new CardBorders(borders, new Map(input.classes.map((c) => [c.key, ownTexts(c.vectors, c.chinese)])), words);
  }

  /**
   * How near the request is to a fence, for each of `keys` (the best capabilities): the similarity of the nearest
   * fence text (exclusion clause, counter-example or lesson) on their cards minus that of the capability's nearest
   * own text, with that fence's text — both in the language most of the capability's own texts are written in. Above
   * zero the request is nearer a fence than the capability. Like with like, because the model scores a text in the
   * request's own language higher whatever it says: a Chinese request to an English card was "near" any Chinese
   * fence on a runner-up's card (zh/en dev: "明天请一天病假，发烧了" to the English leave card, nearest fence
   * "保证坐席在预约时间外主动致电"). Empty when none of those cards has a fence in that language.
   */
  gaps(query: Float32Array, keys: readonly string[]): Map<string, NearestFence> {
    const gaps = new Map<string, NearestFence>();
    const fences = keys.flatMap((k) => this.borders.get(k)?.fences ?? []);
    if (fences.length === 0) return gaps;
    const nearestWritten = (chinese: boolean) => {
      const written = fences.filter((f) => f.chinese === chinese);
      const found = nearest(
        query,
        written.map((f) => f.vector),
      );
      return found.index >= 0 ? { similarity: found.similarity, text: written[found.index]!.text } : undefined;
    };
    const nearestFence = { zh: nearestWritten(true), other: nearestWritten(false) };
    for (const key of keys) {
      const own = this.own.get(key);
      const fence = own && (own.chinese ? nearestFence.zh : nearestFence.other);
      if (own && fence)
        gaps.set(key, { gap: fence.similarity - nearest(query, own.vectors).similarity, fence: fence.text });
    }
    return gaps;
  }

  /**
   * For each of `keys` whose border the request crosses (query vector of the same model): the clause or lesson. A
   * request also crosses a border when `intent` names a word only that card's exclusions use (fence-words.ts).
   */
  crossed(query: Float32Array, keys: readonly string[], intent?: string): Map<string, Crossing> {
    const crossed = new Map<string, Crossing>();
    const said = intent === undefined ? [] : contentWords(intent);
    for (const key of keys) {
      const border = this.borders.get(key);
      if (!border || crossed.has(key)) continue;
      const clause = nearest(query, border.excluded);
      if (clause.index >= 0 && clause.similarity > nearest(query, border.own).similarity) {
        crossed.set(key, { clause: border.clauses[clause.index]!, learned: false });
        continue;
      }
      const lesson = nearest(
        query,
        border.lessons.map((l) => l.vector),
      );
      if (lesson.index >= 0 && lesson.similarity >= LESSON_SIMILARITY) {
        crossed.set(key, { clause: border.lessons[lesson.index]!.text, learned: true });
        continue;
      }
      const named = namedFence(said, this.words.get(key));
      if (named) crossed.set(key, { clause: named.clause, learned: false, word: named.word });
    }
    return crossed;
  }
}
