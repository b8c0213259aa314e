/**
 * BM25 over the capabilities' own words (name, description, tags, examples): the matcher that needs no model.
 * Each capability is one document; scores are divided by the query's best possible score, so they land in [0, 1]
 * like cosine similarities and one threshold scale serves both.
 */
import { terms } from './words';

const K1 = 1.2;
const B = 0.75;

export interface LexicalDocument {
  key: string;
  text: string;
}

export class LexicalIndex {
  /** Per term, the documents holding it and how often: a query reads only its terms' postings. */
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();
  private readonly lengths: number[] = [];
  private readonly averageLength: number;

  constructor(private readonly documents: readonly LexicalDocument[]) {
    documents.forEach((doc, i) => {
      const counts = new Map<string, number>();
      const docTerms = terms(doc.text);
      for (const term of docTerms) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const [term, tf] of counts) {
        let list = this.postings.get(term);
        if (!list) this.postings.set(term, (list = []));
        list.push({ doc: i, tf });
      }
      this.lengths.push(docTerms.length);
    });
    this.averageLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, documents.length);
  }

  private idf(term: string): number {
    const n = this.documents.length;
    const df = this.postings.get(term)?.length ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Score per document key, in [0, 1]; documents sharing no term with the query are left out. */
  score(query: string): Map<string, number> {
    const queryTerms = [...new Set(terms(query))].filter((t) => this.postings.has(t));
    const scores = new Map<string, number>();
    if (queryTerms.length === 0) return scores;
    // The best a document could do: every query term present, saturated.
    const ceiling = queryTerms.reduce((sum, t) => sum + this.idf(t) * (K1 + 1), 0);
    const sums = new Map<number, number>();
    for (const term of queryTerms) {
      const idf = this.idf(term);
      for (const { doc, tf } of this.postings.get(term)!) {
        const norm = K1 * (1 - B + (B * this.lengths[doc]!) / (this.averageLength || 1));
        sums.set(doc, (sums.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm));
      }
    }
    for (const [doc, sum] of sums) scores.set(this.documents[doc]!.key, sum / ceiling);
    return scores;
  }
}
