/**
 * A local sentence-embedding model: an ONNX file run by onnxruntime on the CPU, with its Hugging Face
 * tokenizer.json read by a pure-JS tokenizer. No network: the files are found by model-files.ts.
 */
import { readFile } from 'node:fs/promises';
type Tokenizer = InstanceType<typeof import('@huggingface/tokenizers', { with: { 'resolution-mode': 'import' } }).Tokenizer>;
import * as ort from 'onnxruntime-node';
import { normalize, type EmbeddingProvider } from './provider';

export interface OnnxModelSpec {
  id: string;
  /** `mean` over tokens (MiniLM, E5) or the `cls` token (BGE), as each model was trained. */
  pooling: 'mean' | 'cls';
  queryPrefix?: string;
  documentPrefix?: string;
  /** Longer inputs are cut: descriptions past this carry little extra signal. */
  maxTokens: number;
}

export interface OnnxModelFiles {
  model: string;
  tokenizer: string;
}

/** Texts embedded per run: bounds memory, and amortises the call overhead. */
const BATCH = 32;

export class OnnxEmbedder implements EmbeddingProvider {
  readonly id: string;

  private constructor(
    private readonly spec: OnnxModelSpec,
    private readonly session: ort.InferenceSession,
    private readonly tokenizer: Tokenizer,
  ) {
    this.id = spec.id;
  }

  static async load(spec: OnnxModelSpec, files: OnnxModelFiles, threads = 1): Promise<OnnxEmbedder> {
    const tokenizerJson = JSON.parse(await readFile(files.tokenizer, 'utf8')) as object;
    // The package's types are ES-module only; its CommonJS build is what this import loads.
    const { Tokenizer: TokenizerClass } = await import('@huggingface/tokenizers');
    const tokenizer = new TokenizerClass(tokenizerJson, {});
    const session = await ort.InferenceSession.create(files.model, {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
    return new OnnxEmbedder(spec, session, tokenizer);
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    const prefix = this.spec.documentPrefix ?? '';
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      out.push(...(await this.run(texts.slice(i, i + BATCH).map((t) => prefix + t))));
    }
    return out;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [vector] = await this.run([(this.spec.queryPrefix ?? '') + text]);
    return vector!;
  }

  /** Token ids as the model sees them (special tokens included, not cut). */
  tokenize(text: string): number[] {
    return this.tokenizer.encode(text).ids;
  }

  private async run(texts: string[]): Promise<Float32Array[]> {
    const encoded = texts.map((t) => this.tokenize(t).slice(0, this.spec.maxTokens));
    const length = Math.max(...encoded.map((ids) => ids.length));
    const ids = new BigInt64Array(texts.length * length);
    const mask = new BigInt64Array(texts.length * length);
    encoded.forEach((row, r) => {
      row.forEach((id: number, c: number) => {
        ids[r * length + c] = BigInt(id);
        mask[r * length + c] = 1n;
      });
    });
    const shape = [texts.length, length];
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', ids, shape),
      attention_mask: new ort.Tensor('int64', mask, shape),
    };
    if (this.session.inputNames.includes('token_type_ids')) {
      feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(texts.length * length), shape);
    }
    const results = await this.session.run(feeds);
    const hidden = results[this.session.outputNames[0]!]!;
    const dims = hidden.dims[2]!;
    const data = hidden.data as Float32Array;
    return encoded.map((row, r) => normalize(this.pool(data, r, row.length, length, dims)));
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
