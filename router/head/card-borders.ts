/**
 * What a card says its capability does not do, used at decision time: a request nearer (cosine, in the first
 * model's space) to one of the card's exclusion clauses than to every one of the capability's own texts (its
 * examples, name, description and tags) falls outside the card's border, whatever the head's probability. Near
 * misses — undo what a capability only creates, change what it only reads — score like right answers for the head;
 * the clause that names them is often the nearest text. No threshold: nearer is nearer (zh/en dev: 9 of the 40
 * near misses caught, 1 of 235 right answers lost; docs/routing.md).
 */
import type { HeadTrainingInput } from './head';

interface Border {
  /** The capability's own texts' vectors. */
  own: Float32Array[];
  excluded: Float32Array[];
  /** The exclusion clauses, in the order of `excluded`. */
  clauses: string[];
}

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

export class CardBorders {
  private constructor(private readonly borders: ReadonlyMap<string, Border>) {}

  /** The borders of the capabilities that state exclusions, from a head's training input and the clauses' texts. */
  static of(input: HeadTrainingInput, clauses: readonly (readonly string[])[]): CardBorders {
    const borders = new Map<string, Border>();
    input.classes.forEach((c, i) => {
      if (c.excluded?.length) borders.set(c.key, { own: c.vectors, excluded: c.excluded, clauses: [...clauses[i]!] });
    });
    return new CardBorders(borders);
  }

  /** For each of `keys` whose card excludes the request (query vector of the same model): the clause it falls under. */
  crossed(query: Float32Array, keys: readonly string[]): Map<string, string> {
    const crossed = new Map<string, string>();
    for (const key of keys) {
      const border = this.borders.get(key);
      if (!border || crossed.has(key)) continue;
      const clause = nearest(query, border.excluded);
      if (clause.similarity > nearest(query, border.own).similarity) crossed.set(key, border.clauses[clause.index]!);
    }
    return crossed;
  }
}
