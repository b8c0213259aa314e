/**
 * Semantic similarity of an intent to each capability. A capability is represented by the vectors of its
 * description and examples; its score blends the similarity to their mean (a prototype, robust to one odd
 * example) with the similarity to the nearest one (keeps a distinctive example's reach). Vectors are cached by
 * model and text, so only a changed capability is embedded again.
 */
import { createHash } from 'node:crypto';
import { describe, type CapabilityCandidate } from './candidates';
import { dot, dotAt, normalize, type EmbeddingProvider } from './embeddings/provider';
import { bestBy } from './select';

/** Weight of the prototype in the blend; the nearest example gets the rest. Measured on CLINC150 val and zh dev. */
export const PROTOTYPE_WEIGHT = 0.5;

export interface SemanticScore {
  score: number;
  prototype: number;
  nearest: number;
}

/** Vectors by model and text, shared by every index built on the same provider. */
export class VectorCache {
  private readonly vectors = new Map<string, Float32Array>();

  constructor(private readonly maxEntries = 200_000) {}

  private static key(providerId: string, text: string): string {
    return createHash('sha1').update(providerId).update('\0').update(text).digest('base64');
  }

  get size(): number {
    return this.vectors.size;
  }

  /** The provider with its document vectors kept here (queries are not cached). */
  through(provider: EmbeddingProvider): EmbeddingProvider {
    return {
      id: provider.id,
      embedDocuments: (texts) => this.embed(provider, texts),
      embedQuery: (text) => provider.embedQuery(text),
    };
  }

  async embed(provider: EmbeddingProvider, texts: string[]): Promise<Float32Array[]> {
    const keys = texts.map((t) => VectorCache.key(provider.id, t));
    const missing = [...new Set(texts.filter((_, i) => !this.vectors.has(keys[i]!)))];
    if (missing.length > 0) {
      const computed = await provider.embedDocuments(missing);
      if (this.vectors.size + missing.length > this.maxEntries) this.vectors.clear();
      missing.forEach((text, i) => this.vectors.set(VectorCache.key(provider.id, text), computed[i]!));
    }
    return keys.map((k, i) => this.vectors.get(k) ?? this.vectors.get(VectorCache.key(provider.id, texts[i]!))!);
  }
}

export function capabilityTexts(candidate: CapabilityCandidate): string[] {
  return [describe(candidate), ...candidate.capability.examples];
}

function mean(vectors: Float32Array[]): Float32Array {
  const sum = new Float32Array(vectors[0]!.length);
  for (const v of vectors) for (let i = 0; i < v.length; i++) sum[i]! += v[i]!;
  return normalize(sum);
}

/** Capabilities whose nearest example is looked at: the best by prototype. The rest are scored by prototype alone. */
export const SHORTLIST = 64;

export class SemanticIndex {
  private constructor(
    readonly provider: EmbeddingProvider,
    private readonly keys: string[],
    /** Row i: capability i's prototype. One flat array, so scoring thousands of capabilities stays fast. */
    private readonly prototypes: Float32Array,
    private readonly vectors: Float32Array[][],
    private readonly dims: number,
  ) {}

  static async build(
    provider: EmbeddingProvider,
    candidates: readonly CapabilityCandidate[],
    cache: VectorCache,
  ): Promise<SemanticIndex> {
    const texts = candidates.map(capabilityTexts);
    const flat = await cache.embed(provider, texts.flat());
    const dims = flat[0]?.length ?? 0;
    const prototypes = new Float32Array(candidates.length * dims);
    const vectors: Float32Array[][] = [];
    let offset = 0;
    candidates.forEach((_, i) => {
      const own = flat.slice(offset, offset + texts[i]!.length);
      offset += own.length;
      prototypes.set(mean(own), i * dims);
      vectors.push(own);
    });
    return new SemanticIndex(
      provider,
      candidates.map((c) => c.key),
      prototypes,
      vectors,
      dims,
    );
  }

  async score(intent: string): Promise<Map<string, SemanticScore>> {
    return this.scoreVector(await this.provider.embedQuery(intent));
  }

  scoreVector(query: Float32Array): Map<string, SemanticScore> {
    const n = this.keys.length;
    const d = this.dims;
    const prototype = new Float32Array(n);
    for (let i = 0; i < n; i++) prototype[i] = dotAt(query, this.prototypes, i * d);
    const shortlist = new Set(bestBy([...prototype.keys()], SHORTLIST, (i) => prototype[i]!));
    const scores = new Map<string, SemanticScore>();
    for (let i = 0; i < n; i++) {
      const p = prototype[i]!;
      let nearest = p;
      if (shortlist.has(i)) {
        nearest = -1;
        for (const v of this.vectors[i]!) nearest = Math.max(nearest, dot(query, v));
      }
      scores.set(this.keys[i]!, {
        score: PROTOTYPE_WEIGHT * p + (1 - PROTOTYPE_WEIGHT) * nearest,
        prototype: p,
        nearest,
      });
    }
    return scores;
  }
}
