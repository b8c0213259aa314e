/** Ajv instances retired after a bounded number of compiles: validators keep working, `$id`s may repeat. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import { RotatingAjv } from '../../util/rotating-ajv';

describe('rotating ajv', () => {
  it('rotating ajv - a fresh instance every N compiles; validators of retired instances still validate', () => {
    let made = 0;
    const ajv = new RotatingAjv(() => ((made += 1), new Ajv2020({ strict: false })), 3);
    const validators = Array.from({ length: 7 }, (_, i) =>
      ajv.compile({ $id: 'same-id', type: 'object', properties: { n: { const: i } } }),
    );
    assert.equal(made, 3);
    validators.forEach((validate, i) => {
      assert.equal(validate({ n: i }), true);
      assert.equal(validate({ n: i + 1 }), false);
    });
  });

  it('rotating ajv - meta-schema problems are listed; a schema that does not compile throws', () => {
    const ajv = new RotatingAjv(() => new Ajv2020({ strict: false }));
    assert.deepEqual(ajv.schemaErrors({ type: 'object' }), []);
    assert.ok(ajv.schemaErrors({ type: 'no-such-type' }).length > 0);
    assert.throws(() => ajv.compile({ $ref: '#/$defs/missing' }));
  });
});
