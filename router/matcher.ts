/**
 * The similarity stage behind one face: a semantic index over an embedding model, or BM25 when no model is
 * available. Both give each capability a score in about [0, 1].
 */
import { describe, type CapabilityCandidate } from './candidates';
import type { EmbeddingProvider } from './embeddings/provider';
import type { Calibration } from './head/calibration';
import type { HeadPrediction } from './head/head';
import { LexicalIndex } from './lexical-index';
import { SemanticIndex, VectorCache } from './semantic-index';

export interface MatchScore {
  score: number;
  /** Parts of the score, for the explanation. */
  parts: Record<string, number>;
}

export interface IntentMatcher {
  /** `local:<model>`, `openai:<model>` or `lexical`. */
  readonly provider: string;
  score(intent: string): Promise<Map<string, MatchScore>>;
  /**
   * A trained head's probabilities per capability (and for "none"), when this matcher has one ready; undefined
   * otherwise, and then `score` decides. Right after the catalogue changed it waits a bounded time for the head,
   * unless `wait` is false (a previous head can answer meanwhile).
   */
  classify?(intent: string, options?: { wait?: boolean }): Promise<HeadPrediction | undefined>;
  /** Settles when the head has trained (or failed to): its first heads serve. */
  ready?(): Promise<void>;
  /** Settles when every head serves: the late ones joined (or failed, or were discarded). */
  full?(): Promise<void>;
  /** The catalogue moved on: work not done yet for this one (late heads) is dropped; what serves keeps serving. */
  retire?(): void;
  /** The head once trained or failed; undefined while its first heads train. */
  head?(): HeadState | undefined;
}

/** A catalogue's heads past the first ones (head-matcher.ts `FIRST_HEADS`), which join once trained. */
export interface LateHeads {
  models: string[];
  /** `discarded`: the catalogue changed before they joined. */
  state: 'training' | 'joined' | 'failed' | 'discarded';
  error?: string;
}

export interface HeadState {
  /** The fitted operating point of the heads that serve. */
  calibration?: Calibration;
  error?: string;
  /** A note when the time guard cut a training short (head.ts `timeGuardMs`). */
  time_guard?: string;
  /** The models whose heads decide now. */
  heads?: string[];
  late?: LateHeads;
}

export type MatcherFactory = (candidates: readonly CapabilityCandidate[]) => Promise<IntentMatcher>;

export function lexicalMatcherFactory(): MatcherFactory {
  return async (candidates) => {
    const index = new LexicalIndex(
      candidates.map((c) => ({
        key: c.key,
        text: [describe(c), c.capability.tags.join(' '), ...c.capability.examples].join('\n'),
      })),
    );
    return {
      provider: 'lexical',
      async score(intent) {
        const out = new Map<string, MatchScore>();
        for (const [key, score] of index.score(intent)) out.set(key, { score, parts: { bm25: score } });
        return out;
      },
    };
  };
}

export function semanticMatcherFactory(embedder: EmbeddingProvider, cache = new VectorCache()): MatcherFactory {
  return async (candidates) => {
    const index = await SemanticIndex.build(embedder, candidates, cache);
    return {
      provider: embedder.id,
      async score(intent) {
        const out = new Map<string, MatchScore>();
        for (const [key, s] of await index.score(intent)) {
          out.set(key, { score: s.score, parts: { prototype: s.prototype, nearest: s.nearest } });
        }
        return out;
      },
    };
  };
}

/**
 * Semantic and lexical scores blended: the model carries meaning across wording, BM25 carries rare exact terms
 * (product words, ids, jargon) that a small model blurs. `lexicalWeight` of the lexical score, the rest semantic.
 */
export function hybridMatcherFactory(
  semantic: MatcherFactory,
  lexical: MatcherFactory,
  lexicalWeight: number,
): MatcherFactory {
  return async (candidates) => {
    const [s, l] = await Promise.all([semantic(candidates), lexical(candidates)]);
    return {
      provider: `${s.provider}+bm25`,
      async score(intent) {
        const [semanticScores, lexicalScores] = await Promise.all([s.score(intent), l.score(intent)]);
        const out = new Map<string, MatchScore>();
        for (const [key, m] of semanticScores) {
          const bm25 = lexicalScores.get(key)?.score ?? 0;
          out.set(key, { score: (1 - lexicalWeight) * m.score + lexicalWeight * bm25, parts: { ...m.parts, bm25 } });
        }
        return out;
      },
    };
  };
}
