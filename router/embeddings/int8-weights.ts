/**
 * A linear layer's weights in 8 bits for onnxruntime's `DynamicQuantizeMatMul` (com.microsoft): symmetric int8 per
 * output column, laid out [inputs, outputs] as the op reads B. The activations are quantised by the op itself at run
 * time (uint8, per tensor), so the product runs in onnxruntime's integer GEMM.
 */

/**
 * The largest weight magnitude. 7 bits, not 8: on x86 CPUs without VNNI onnxruntime multiplies uint8 activations by
 * int8 weights with an instruction that adds pairs of products into 16 bits, and 255 · 127 · 2 overflows that;
 * 255 · 63 · 2 does not (onnxruntime's `reduce_range` for the same reason).
 */
export const INT8_WEIGHT_LIMIT = 63;

export interface Int8Weights {
  /** int8 values, [inputs, outputs] row-major. */
  values: Buffer;
  /** One fp32 scale per output: weight ≈ value · scale. */
  scales: Buffer;
}

/** W [outputs, inputs] (row-major fp32, as y = x·Wᵀ) → int8 Wᵀ with one scale per output. */
export function quantizeInt8Columns(weights: Float32Array, outputs: number, inputs: number): Int8Weights {
  if (weights.length !== outputs * inputs)
    throw new Error(`expected ${outputs}×${inputs} weights, got ${weights.length}`);
  const values = Buffer.alloc(outputs * inputs);
  const scales = Buffer.alloc(outputs * 4);
  for (let o = 0; o < outputs; o++) {
    let largest = 0;
    for (let i = 0; i < inputs; i++) largest = Math.max(largest, Math.abs(weights[o * inputs + i]!));
    const scale = largest > 0 ? Math.fround(largest / INT8_WEIGHT_LIMIT) : 1;
    scales.writeFloatLE(scale, o * 4);
    for (let i = 0; i < inputs; i++) values.writeInt8(Math.round(weights[o * inputs + i]! / scale), i * outputs + o);
  }
  return { values, scales };
}
