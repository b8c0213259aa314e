/**
 * BM25 over the capabilities' own words (name, description, tags, examples): the matcher that needs no model.
 * Each capability is one document; scores are divided by the query's best possible score, so they land in [0, 1]
 * like cosine similarities and one threshold scale serves both.
 */
import { terms } from './text';

const K1 = 1.2;
const B = 0.75;

export interface LexicalDocument {
  key: string;
  text: string;
}

export class LexicalIndex {
  private readonly termFrequencies: Map<string, number>[] = [];
  private readonly lengths: number[] = [];
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;

  constructor(private readonly documents: readonly LexicalDocument[]) {
    for (const doc of documents) {
      const counts = new Map<string, number>();
      const docTerms = terms(doc.text);
      for (const term of docTerms) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const term of counts.keys()) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      this.termFrequencies.push(counts);
      this.lengths.push(docTerms.length);
    }
    this.averageLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, documents.length);
  }

  private idf(term: string): number {
    const n = this.documents.length;
    const df = this.documentFrequency.get(term) ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Score per document key, in [0, 1]; documents sharing no term with the query are left out. */
  score(query: string): Map<string, number> {
    const queryTerms = [...new Set(terms(query))].filter((t) => this.documentFrequency.has(t));
    const scores = new Map<string, number>();
    if (queryTerms.length === 0) return scores;
    // The best a document could do: every query term present, saturated.
    const ceiling = queryTerms.reduce((sum, t) => sum + this.idf(t) * (K1 + 1), 0);
    this.documents.forEach((doc, i) => {
      const tf = this.termFrequencies[i]!;
      const norm = K1 * (1 - B + (B * this.lengths[i]!) / (this.averageLength || 1));
      let sum = 0;
      for (const term of queryTerms) {
        const f = tf.get(term);
        if (f) sum += (this.idf(term) * f * (K1 + 1)) / (f + norm);
      }
      if (sum > 0) scores.set(doc.key, sum / ceiling);
    });
    return scores;
  }
}
