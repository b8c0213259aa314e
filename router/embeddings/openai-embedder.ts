/** Embeddings from any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio) through the `openai` SDK. */
import OpenAI from 'openai';
import { normalize, type EmbeddingProvider } from './provider';

export interface OpenAiEmbedderOptions {
  model: string;
  baseURL?: string;
  apiKey?: string;
  /** Texts per request. */
  batch?: number;
  timeoutMs?: number;
}

export class OpenAiEmbedder implements EmbeddingProvider {
  readonly id: string;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.id = `openai:${options.baseURL ?? 'default'}:${options.model}`;
    this.client = new OpenAI({
      apiKey: options.apiKey ?? 'unused', // local servers (Ollama, vLLM) accept any key
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      timeout: options.timeoutMs ?? 30_000,
      maxRetries: 2,
    });
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    const batch = this.options.batch ?? 64;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batch) {
      // Floats, not the SDK's default base64: not every OpenAI-compatible server (Ollama, vLLM) speaks base64.
      const response = await this.client.embeddings.create({
        model: this.options.model,
        input: texts.slice(i, i + batch),
        encoding_format: 'float',
      });
      const ordered = [...response.data].sort((a, b) => a.index - b.index);
      out.push(...ordered.map((d) => normalize(Float32Array.from(d.embedding))));
    }
    return out;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [vector] = await this.embedDocuments([text]);
    return vector!;
  }
}
