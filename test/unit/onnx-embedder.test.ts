/**
 * A text's vector does not depend on the texts embedded with it (router/embeddings/onnx-embedder.ts): a model that
 * quantises its activations per run embeds one text at a time, so a card's vectors are the same however the
 * catalogue was registered, and the same as the request's vector for the same words.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KNOWN_MODELS, locateModel } from '../../router/embeddings/model-files';
import { OnnxEmbedder } from '../../router/embeddings/onnx-embedder';

const texts = [
  'refund order 1042',
  'what will the weather be like in Shanghai tomorrow afternoon, and should I bring an umbrella',
  '订单2024090112现在啥状态了',
  'hi',
];

function largestDifference(a: Float32Array, b: Float32Array): number {
  return Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));
}

for (const id of ['bge-small-en-v1.5-q', 'multilingual-e5-small', 'use-multilingual-v3-q']) {
  const spec = KNOWN_MODELS[id]!;
  const files = locateModel(id);
  describe(`onnx embedder - ${id}`, { skip: files ? false : `model not obtained (npm run models -- ${id})` }, () => {
    it(`onnx embedder - ${id}: a text's vector is the same alone, in any batch, and as a request`, async () => {
      const embedder = await OnnxEmbedder.load(spec, files!);
      const together = await embedder.embedDocuments(texts);
      const reversed = (await embedder.embedDocuments([...texts].reverse())).reverse();
      for (const [i, text] of texts.entries()) {
        const [alone] = await embedder.embedDocuments([text]);
        assert.ok(
          largestDifference(together[i]!, alone!) < 1e-4,
          `${text}: batched vs alone ${largestDifference(together[i]!, alone!)}`,
        );
        assert.ok(largestDifference(together[i]!, reversed[i]!) < 1e-4, `${text}: two batchings`);
        if (spec.queryPrefix === spec.documentPrefix)
          assert.ok(largestDifference(together[i]!, await embedder.embedQuery(text)) < 1e-4, `${text}: as a request`);
      }
    });
  });
}
