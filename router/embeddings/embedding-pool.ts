/**
 * The local models run in worker threads, each worker holding one onnxruntime session of every model.
 * onnxruntime-node computes on the thread that calls it: run in the api's own thread, a catalogue's embedding
 * (seconds to tens of seconds) would stall every request, and one thread uses one core. Here a catalogue's texts
 * are cut into chunks of about the same length (one batch each) and shared out to every worker as each becomes
 * free, whatever model they are for, so the cores stay busy until the last text; a request's query goes before any
 * waiting chunk, so it waits for at most the chunk a worker is on. A worker that dies fails only the job it held
 * and is replaced.
 */
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../util/worker-thread';
import type { EmbeddingJob, EmbeddingReply, EmbeddingWorkerData } from './embedding-worker';
import type { OnnxModelFiles, OnnxModelSpec } from './onnx-embedder';
import type { EmbeddingProvider } from './provider';

/** Texts per job: one of the embedder's batches, so a query waits behind little (~0.05–0.15 s of one model). */
export const CHUNK = 8;

export interface EmbeddingPoolOptions {
  /** Worker threads (ROUTER_EMBEDDING_THREADS). */
  workers: number;
  /** onnxruntime threads per session (ROUTER_ONNX_THREADS). */
  threads: number;
}

interface Pending {
  job: EmbeddingJob;
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  busy?: Pending;
  /** Settles when the job it is on is answered (or the worker is lost). */
  idle?: Promise<void>;
  markIdle?: () => void;
}

/** The pool is stopping (the api is): what waited, or comes after, fails with this; the api answers 503. */
export class EmbeddingPoolClosed extends Error {
  override name = 'EmbeddingPoolClosed';
  constructor() {
    super('the embedding pool is closed');
  }
}

/** Indexes of `texts` in chunks of `size`, each chunk of texts of about the same length. */
export function chunksByLength(texts: readonly string[], size = CHUNK): number[][] {
  const order = [...texts.keys()].sort((a, b) => texts[a]!.length - texts[b]!.length);
  const chunks: number[][] = [];
  for (let i = 0; i < order.length; i += size) chunks.push(order.slice(i, i + size));
  return chunks;
}

export class EmbeddingPool {
  private readonly workers: PoolWorker[] = [];
  private readonly queries: Pending[] = [];
  private readonly chunks: Pending[] = [];
  private nextId = 0;
  private closed = false;

  private constructor(private readonly data: EmbeddingWorkerData) {}

  /** Starts the workers and waits until each has loaded every model (fails if one cannot). */
  static async start(
    models: { spec: OnnxModelSpec; files: OnnxModelFiles }[],
    options: EmbeddingPoolOptions,
  ): Promise<EmbeddingPool> {
    const pool = new EmbeddingPool({ models, threads: options.threads });
    try {
      await Promise.all(Array.from({ length: Math.max(1, options.workers) }, () => pool.addWorker()));
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  /** One model of the pool as an embedder. */
  provider(spec: OnnxModelSpec): EmbeddingProvider {
    return {
      id: spec.id,
      embedDocuments: (texts) => this.embedDocuments(spec.id, texts),
      embedQuery: async (text) =>
        (await this.submit({ model: spec.id, kind: 'query', texts: [text] }, this.queries))[0]!,
    };
  }

  /**
   * Fails what waits, lets each worker finish the batch it is on, then stops it: a worker terminated inside
   * onnxruntime's native call takes the whole process down (`terminate called after throwing Napi::Error`).
   */
  async close(): Promise<void> {
    this.closed = true;
    this.failWaiting(new EmbeddingPoolClosed());
    await Promise.all(
      this.workers.splice(0).map(async (entry) => {
        await entry.idle;
        await entry.worker.terminate();
      }),
    );
  }

  private async embedDocuments(model: string, texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = new Array(texts.length);
    await Promise.all(
      chunksByLength(texts).map(async (chunk) => {
        const vectors = await this.submit(
          { model, kind: 'documents', texts: chunk.map((i) => texts[i]!) },
          this.chunks,
        );
        chunk.forEach((i, k) => (out[i] = vectors[k]!));
      }),
    );
    return out;
  }

  private submit(job: Omit<EmbeddingJob, 'id'>, queue: Pending[]): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new EmbeddingPoolClosed());
    return new Promise((resolve, reject) => {
      queue.push({ job: { ...job, id: this.nextId++ }, resolve, reject });
      this.dispatch();
    });
  }

  /** Every idle worker takes the next job: queries first. */
  private dispatch(): void {
    for (const entry of this.workers) {
      if (entry.busy) continue;
      const next = this.queries.shift() ?? this.chunks.shift();
      if (!next) return;
      entry.busy = next;
      entry.idle = new Promise((resolve) => (entry.markIdle = resolve));
      // A busy worker keeps the process alive (someone awaits its answer); an idle one does not.
      entry.worker.ref();
      entry.worker.postMessage(next.job);
    }
  }

  private addWorker(): Promise<void> {
    return new Promise((resolve, reject) => {
      const entry: PoolWorker = { worker: startWorker(join(__dirname, 'embedding-worker'), this.data, __filename) };
      let loaded = false;
      entry.worker.on('message', (reply: EmbeddingReply) => {
        if ('loaded' in reply) {
          loaded = true;
          entry.worker.unref();
          this.workers.push(entry);
          resolve();
          this.dispatch();
        } else if ('loadError' in reply) {
          void entry.worker.terminate();
          reject(new Error(`embedding worker could not load its models: ${reply.loadError}`));
        } else this.answer(entry, reply);
      });
      entry.worker.on('error', (error) => (loaded ? this.lose(entry, error) : reject(error)));
      entry.worker.on(
        'exit',
        (code) => loaded && this.lose(entry, new Error(`embedding worker exited with code ${code}`)),
      );
    });
  }

  private answer(entry: PoolWorker, reply: Exclude<EmbeddingReply, { loaded: true } | { loadError: string }>): void {
    const pending = entry.busy;
    entry.busy = undefined;
    entry.markIdle?.();
    entry.worker.unref();
    if (pending && pending.job.id === reply.id) {
      if ('error' in reply) pending.reject(new Error(reply.error));
      else pending.resolve(reply.vectors);
    }
    this.dispatch();
  }

  /** A worker died: its job fails, a new worker takes its place. */
  private lose(entry: PoolWorker, error: Error): void {
    const index = this.workers.indexOf(entry);
    if (index < 0) return;
    this.workers.splice(index, 1);
    entry.busy?.reject(error);
    entry.busy = undefined;
    entry.markIdle?.();
    if (this.closed) return;
    this.addWorker().catch((startError: Error) => {
      // No worker can start again (the model files are gone): fail what waits rather than hang.
      if (this.workers.length === 0) this.failWaiting(startError);
    });
  }

  private failWaiting(error: Error): void {
    for (const pending of [...this.queries.splice(0), ...this.chunks.splice(0)]) pending.reject(error);
  }
}
