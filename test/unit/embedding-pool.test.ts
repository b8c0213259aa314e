/**
 * The local models run in worker threads (router/embeddings/embedding-pool.ts): the vectors are those the model gives
 * in the api's own thread, in the texts' order, whatever worker embedded them; a failed job fails alone.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { chunksByLength, EmbeddingPool } from '../../router/embeddings/embedding-pool';
import { KNOWN_MODELS, locateModel } from '../../router/embeddings/model-files';
import { OnnxEmbedder } from '../../router/embeddings/onnx-embedder';
import { dot } from '../../router/embeddings/provider';

describe('embedding pool - chunks', () => {
  it('embedding pool - chunks hold every text once, in order of length', () => {
    const texts = ['ccc', 'a', 'bbbbbb', 'dd', '', 'eeeee', 'f'];
    const chunks = chunksByLength(texts, 3);
    assert.deepEqual(
      chunks.map((c) => c.length),
      [3, 3, 1],
    );
    assert.deepEqual([...chunks.flat()].sort(), [...texts.keys()].sort());
    const lengths = chunks.flat().map((i) => texts[i]!.length);
    assert.deepEqual(
      lengths,
      [...lengths].sort((a, b) => a - b),
    );
  });
});

const e5 = KNOWN_MODELS['multilingual-e5-small']!;
const bge = KNOWN_MODELS['bge-small-en-v1.5-q']!;
const e5Files = locateModel(e5.id);
const bgeFiles = locateModel(bge.id);

describe(
  'embedding pool - models in worker threads',
  { skip: e5Files && bgeFiles ? false : 'models not obtained (npm run models)' },
  () => {
    let pool: EmbeddingPool;
    before(async () => {
      pool = await EmbeddingPool.start(
        [
          { spec: e5, files: e5Files! },
          { spec: bge, files: bgeFiles! },
        ],
        { workers: 3, threads: 1 },
      );
    });
    after(() => pool.close());

    it('embedding pool - two models at once, shared out to three workers: the same vectors as in this thread, in order', async () => {
      // Lengths vary, so chunks (sorted by length) differ from the input order and go to different workers.
      const texts = Array.from(
        { length: 53 },
        (_, i) => `${'很长的请求 '.repeat(i % 7)}request ${i} ${'word '.repeat((i * 5) % 11)}`,
      );
      const [pooledE5, pooledBge, query] = await Promise.all([
        pool.provider(e5).embedDocuments(texts),
        pool.provider(bge).embedDocuments(texts),
        pool.provider(e5).embedQuery(texts[3]!),
      ]);
      const inThisThread = {
        [e5.id]: await OnnxEmbedder.load(e5, e5Files!),
        [bge.id]: await OnnxEmbedder.load(bge, bgeFiles!),
      };
      for (const [spec, pooled] of [
        [e5, pooledE5],
        [bge, pooledBge],
      ] as const) {
        // Each text alone here (a text's vector does not depend on its batch: test/unit/onnx-embedder.test.ts).
        const embedder = inThisThread[spec.id]!;
        const alone: Float32Array[] = [];
        for (const [i, text] of texts.entries()) alone[i] = (await embedder.embedDocuments([text]))[0]!;
        assert.equal(pooled.length, texts.length);
        pooled.forEach((vector, i) =>
          assert.ok(dot(vector, alone[i]!) > 0.99999, `${spec.id} text ${i}: ${dot(vector, alone[i]!)}`),
        );
      }
      const direct = await inThisThread[e5.id]!.embedQuery(texts[3]!);
      assert.ok(dot(query, direct) > 0.99999);
    });

    it('embedding pool - a job that fails fails alone; the pool goes on', async () => {
      await assert.rejects(
        pool.provider({ ...e5, id: 'no-such-model' }).embedQuery('hello'),
        /no-such-model is not loaded/,
      );
      const [vector] = await pool.provider(e5).embedDocuments(['hello']);
      assert.equal(vector!.length, 384);
    });

    it('embedding pool - a worker that exits fails the job it held, and a new worker takes its place', async () => {
      type Entry = { worker: import('node:worker_threads').Worker; busy?: unknown };
      const workers = (pool as unknown as { workers: Entry[] }).workers;
      const texts = Array.from({ length: 40 }, (_, i) => `text ${i} for a worker that will exit`);
      const job = pool.provider(e5).embedDocuments(texts);
      const lost = workers.find((w) => w.busy)!;
      const batchDone = once(lost.worker, 'message');
      // The exit as the pool sees it. (Terminating a thread inside onnxruntime's native call aborts the process, which
      // is why close() waits for the batch; here the thread is stopped once its batch is done.)
      lost.worker.emit('exit', 1);
      await assert.rejects(job, /exited with code 1/);
      await batchDone;
      await lost.worker.terminate();
      const deadline = Date.now() + 30_000;
      while (workers.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.equal(workers.length, 3);
      assert.ok(!workers.includes(lost));
      assert.equal((await pool.provider(e5).embedDocuments(texts)).length, texts.length);
    });

    it('embedding pool - close lets a batch in progress finish before stopping its worker, and fails what waits', async () => {
      const own = await EmbeddingPool.start([{ spec: e5, files: e5Files! }], { workers: 1, threads: 1 });
      const texts = Array.from({ length: 24 }, (_, i) => `a text to embed while the pool closes ${i}`);
      const failed = assert.rejects(own.provider(e5).embedDocuments(texts), /closed/);
      await new Promise((r) => setTimeout(r, 20));
      await own.close();
      await failed;
      await assert.rejects(own.provider(e5).embedQuery('after close'), /closed/);
    });

    it('embedding pool - the api thread stays free while a catalogue is embedded', async () => {
      const texts = Array.from({ length: 160 }, (_, i) => `a capability example number ${i} with some words`);
      let ticks = 0;
      const timer = setInterval(() => ticks++, 5);
      const started = performance.now();
      await pool.provider(e5).embedDocuments(texts);
      clearInterval(timer);
      const expected = (performance.now() - started) / 5;
      // In this thread onnxruntime would block the loop for the whole run (a tick or two in all).
      assert.ok(ticks >= expected / 4, `${ticks} timer ticks in ${Math.round(expected * 5)} ms`);
    });
  },
);
