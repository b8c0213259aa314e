/**
 * Ajv instances used for a bounded number of compiles each. Ajv keeps the generated code of every schema it compiles
 * in the instance (its code scope), `removeSchema` or not, so one long-lived instance grows with every distinct schema
 * it ever saw: about 13 KB each (`npm run bench:soak`), without bound on an api that registers or routes for years.
 * After `compilesPerInstance` compiles a fresh instance takes over; the retired one is freed once no validator it
 * made is referenced any more (callers keep validators in bounded caches).
 */
import type Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';

export class RotatingAjv {
  private ajv: Ajv2020;
  private compiles = 0;

  constructor(
    private readonly make: () => Ajv2020,
    private readonly compilesPerInstance = 500,
  ) {
    this.ajv = make();
  }

  /** Compiles `schema` (throws as `ajv.compile` does); the instance keeps no entry for it afterwards. */
  compile(schema: object): ValidateFunction {
    if (this.compiles >= this.compilesPerInstance) {
      this.ajv = this.make();
      this.compiles = 0;
    }
    this.compiles += 1;
    try {
      return this.ajv.compile(schema);
    } finally {
      // No entry by `$id` either, so a later schema may reuse the same `$id`.
      this.ajv.removeSchema(schema);
    }
  }

  /** Problems of `schema` against its draft's meta-schema (nothing is compiled from `schema` itself). */
  schemaErrors(schema: object): ErrorObject[] {
    return this.ajv.validateSchema(schema) ? [] : [...(this.ajv.errors ?? [])];
  }
}
