/**
 * The two matrix products a head's training needs, run by onnxruntime's GEMM (already loaded for the embedding
 * models): logits X·Wᵀ and gradients Gᵀ·X. Plain JavaScript loops did the same work some 40 times slower (one
 * core, no SIMD), and training was most of the time to a ready head (CLINC150: minutes).
 */
import * as ort from 'onnxruntime-node';
import { encodeModel } from '../embeddings/onnx-proto';

/** One `Gemm` node: C = op(A)·op(B), with op a transpose where asked. */
function gemmModel(transA: 0 | 1, transB: 0 | 1): Buffer {
  return encodeModel({
    name: `gemm_${transA}${transB}`,
    nodes: [{ op: 'Gemm', inputs: ['A', 'B'], outputs: ['C'], attributes: { transA, transB } }],
    initializers: [],
    inputs: [
      { name: 'A', type: 'float', shape: transA ? ['k', 'm'] : ['m', 'k'] },
      { name: 'B', type: 'float', shape: transB ? ['n', 'k'] : ['k', 'n'] },
    ],
    outputs: [{ name: 'C', type: 'float', shape: ['m', 'n'] }],
    opsets: { '': 13 },
  });
}

export interface MatrixProducts {
  /** A (rows × inner) times Bᵀ (B: cols × inner): rows × cols. */
  timesTransposed(a: Float32Array, rows: number, inner: number, b: Float32Array, cols: number): Promise<Float32Array>;
  /** Aᵀ (A: inner × rows) times B (inner × cols): rows × cols. */
  transposedTimes(a: Float32Array, inner: number, rows: number, b: Float32Array, cols: number): Promise<Float32Array>;
}

async function create(): Promise<MatrixProducts> {
  // One thread: training runs beside the api's requests and the embedding models on a small machine.
  const options: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1 };
  const [nt, tn] = await Promise.all([
    ort.InferenceSession.create(gemmModel(0, 1), options),
    ort.InferenceSession.create(gemmModel(1, 0), options),
  ]);
  const run = async (session: ort.InferenceSession, a: ort.Tensor, b: ort.Tensor) =>
    (await session.run({ A: a, B: b })).C!.data as Float32Array;
  return {
    timesTransposed: (a, rows, inner, b, cols) =>
      run(nt, new ort.Tensor('float32', a, [rows, inner]), new ort.Tensor('float32', b, [cols, inner])),
    transposedTimes: (a, inner, rows, b, cols) =>
      run(tn, new ort.Tensor('float32', a, [inner, rows]), new ort.Tensor('float32', b, [inner, cols])),
  };
}

let shared: Promise<MatrixProducts> | undefined;

/** This thread's matrix products (the sessions are made once per thread). */
export function matrixProducts(): Promise<MatrixProducts> {
  shared ??= create();
  return shared;
}
