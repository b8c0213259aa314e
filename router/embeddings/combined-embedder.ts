/**
 * Several models as one. A document's vector is the models' vectors side by side; a query's vector is weighted
 * per model, so the dot product is a weighted mean of the models' cosine similarities. With a Chinese and an
 * English model (no multilingual one ships in a registry package here) the query's script sets the weights:
 * the model of the query's language counts most, the other still helps with mixed and cross-lingual text.
 */
import { containsCjk } from '../words';
import type { EmbeddingProvider } from './provider';

export interface LanguageModel {
  provider: EmbeddingProvider;
  /** The language the model reads best; models without one get equal weight. */
  language?: 'zh' | 'en';
}

/** Weight of the model matching the query's script; measured on CLINC150 val (0.7–0.9 within 0.3 points). */
export const PRIMARY_WEIGHT = 0.8;

function concatenate(parts: Float32Array[], scales: number[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  parts.forEach((part, k) => {
    for (let i = 0; i < part.length; i++) out[offset + i] = part[i]! * scales[k]!;
    offset += part.length;
  });
  return out;
}

export class CombinedEmbedder implements EmbeddingProvider {
  readonly id: string;

  constructor(private readonly models: LanguageModel[]) {
    this.id = models.map((m) => m.provider.id).join('+');
  }

  /** Per-model weights for a query, summing to 1. */
  weightsFor(text: string): number[] {
    const language = containsCjk(text) ? 'zh' : 'en';
    const matching = this.models.filter((m) => m.language === language).length;
    if (!this.models.every((m) => m.language) || matching === 0 || matching === this.models.length) {
      return this.models.map(() => 1 / this.models.length);
    }
    const others = this.models.length - matching;
    return this.models.map((m) =>
      m.language === language ? PRIMARY_WEIGHT / matching : (1 - PRIMARY_WEIGHT) / others,
    );
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    const perModel = await Promise.all(this.models.map((m) => m.provider.embedDocuments(texts)));
    const scale = 1 / Math.sqrt(this.models.length);
    return texts.map((_, i) =>
      concatenate(
        perModel.map((vectors) => vectors[i]!),
        this.models.map(() => scale),
      ),
    );
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const parts = await Promise.all(this.models.map((m) => m.provider.embedQuery(text)));
    // Documents carry 1/√k per part, so √k·w here makes the dot product Σ w·cos.
    const k = Math.sqrt(this.models.length);
    return concatenate(
      parts,
      this.weightsFor(text).map((w) => w * k),
    );
  }
}
