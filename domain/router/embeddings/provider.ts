/** What the router needs from an embedding model: unit-length vectors for texts, in order. */
export interface EmbeddingProvider {
  /** Names the model, so cached capability vectors are never mixed across models. */
  readonly id: string;
  /** Embeds capability-side text (descriptions, examples). */
  embedDocuments(texts: string[]): Promise<Float32Array[]>;
  /** Embeds a caller's intent; some models want a query prefix here. */
  embedQuery(text: string): Promise<Float32Array>;
}

export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

/** Cosine similarity of two unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
