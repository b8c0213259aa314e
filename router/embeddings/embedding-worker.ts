/**
 * Worker-thread entry of the embedding pool (embedding-pool.ts): loads one onnxruntime session of each local model
 * and embeds what it is sent. onnxruntime-node computes on the calling thread, so in the api's own thread a
 * catalogue's embedding would stall every request while it runs.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { OnnxEmbedder, type OnnxModelFiles, type OnnxModelSpec } from './onnx-embedder';

export interface EmbeddingWorkerData {
  models: { spec: OnnxModelSpec; files: OnnxModelFiles }[];
  /** onnxruntime threads per session. */
  threads: number;
}

export interface EmbeddingJob {
  id: number;
  model: string;
  kind: 'documents' | 'query';
  texts: string[];
}

export type EmbeddingReply =
  { id: number; vectors: Float32Array[] } | { id: number; error: string } | { loaded: true } | { loadError: string };

async function serve(): Promise<void> {
  const { models, threads } = workerData as EmbeddingWorkerData;
  const embedders = new Map<string, OnnxEmbedder>();
  try {
    for (const { spec, files } of models) embedders.set(spec.id, await OnnxEmbedder.load(spec, files, threads));
  } catch (error) {
    parentPort!.postMessage({ loadError: (error as Error).message } satisfies EmbeddingReply);
    return;
  }
  parentPort!.on('message', async (job: EmbeddingJob) => {
    try {
      const embedder = embedders.get(job.model);
      if (!embedder) throw new Error(`model ${job.model} is not loaded in the embedding worker`);
      const vectors =
        job.kind === 'query' ? [await embedder.embedQuery(job.texts[0]!)] : await embedder.embedDocuments(job.texts);
      parentPort!.postMessage(
        { id: job.id, vectors } satisfies EmbeddingReply,
        vectors.map((v) => v.buffer as ArrayBuffer),
      );
    } catch (error) {
      parentPort!.postMessage({ id: job.id, error: (error as Error).message } satisfies EmbeddingReply);
    }
  });
  parentPort!.postMessage({ loaded: true } satisfies EmbeddingReply);
}

void serve();
