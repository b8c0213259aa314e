/**
 * Universal Sentence Encoder multilingual v3 as Agent-Reach runs it (router/embeddings/use-multilingual.ts: the
 * wheel's graph with its tokenizer node cut out, SentencePiece encoded in JS) against the token ids and vectors the
 * whole original graph gives under Python onnxruntime with onnxruntime-extensions (test/fixtures/use-reference.json).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { KNOWN_MODELS, locateModel } from '../../router/embeddings/model-files';
import { OnnxEmbedder } from '../../router/embeddings/onnx-embedder';
import { encodeModel, readFields, writeFields } from '../../router/embeddings/onnx-proto';
import { normalizeNmtNfkc } from '../../router/embeddings/sentencepiece-unigram';

interface ReferenceRow {
  text: string;
  ids: number[];
  vector?: number[];
}

const ID = 'use-multilingual-v3-q';
const reference = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'use-reference.json'), 'utf8')) as {
  rows: ReferenceRow[];
};
const files = locateModel(ID);

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

describe('use model - protobuf and normalisation', () => {
  it('use model - a message read as fields and written back is the same bytes', () => {
    const model = encodeModel({
      name: 'g',
      nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['y'], attributes: { k: 3, s: 'text', f: { float: 0.5 } } }],
      initializers: [{ name: 'w', type: 'float', dims: [2], data: Buffer.from(new Float32Array([1, -2]).buffer) }],
      inputs: [{ name: 'x', type: 'int32', shape: ['n'] }],
      outputs: [{ name: 'y', type: 'int32', shape: ['n'] }],
      opsets: { '': 18 },
    });
    assert.deepEqual(writeFields(readFields(model)), model);
  });

  it('use model - nmt_nfkc: widths folded, whitespace trimmed and collapsed, a "▁" before each word', () => {
    assert.equal(normalizeNmtNfkc('  Ｆｕｌｌ  ｗｉｄｔｈ\t１２３ '), '▁Full▁width▁123');
    assert.equal(normalizeNmtNfkc('退款～到账'), '▁退款～到账');
    assert.equal(normalizeNmtNfkc(' \n '), '');
  });
});

describe(ID, { skip: files ? false : `model not obtained (npm run models -- ${ID})` }, () => {
  it('use model - the JS tokenizer gives the original graph tokenizer ids on every reference text', async () => {
    const embedder = await OnnxEmbedder.load(KNOWN_MODELS[ID]!, files!);
    for (const row of reference.rows)
      assert.deepEqual(embedder.tokenize(row.text), row.ids, `ids of ${JSON.stringify(row.text)}`);
  });

  it('use model - the cut graph agrees with the whole original graph (cosine ≥ 0.999), alone and in a batch', async () => {
    const embedder = await OnnxEmbedder.load(KNOWN_MODELS[ID]!, files!);
    const rows = reference.rows.filter((r) => r.vector);
    const batched = await embedder.embedDocuments(rows.map((r) => r.text));
    for (const [i, row] of rows.entries()) {
      const alone = await embedder.embedQuery(row.text);
      assert.ok(dot(alone, row.vector!) >= 0.999, `cosine ${dot(alone, row.vector!).toFixed(6)} for ${row.text}`);
      assert.ok(
        dot(batched[i]!, row.vector!) >= 0.999,
        `batched: cosine ${dot(batched[i]!, row.vector!).toFixed(6)} for ${row.text}`,
      );
    }
  });

  it('use model - a Chinese request is nearer its English translation than an unrelated English text', async () => {
    const embedder = await OnnxEmbedder.load(KNOWN_MODELS[ID]!, files!);
    const [zh, en, other] = await embedder.embedDocuments([
      '明天北京会下雨吗',
      'will it rain in Beijing tomorrow',
      'refund my order please',
    ]);
    assert.ok(dot(zh!, en!) > dot(zh!, other!) + 0.05);
  });
});
