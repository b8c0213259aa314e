/** The parameter check's compiled schemas: a bounded cache, and a repeated `$id` still validates. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compiledSchemas, invalidProperties } from '../../router/parameter-check';

describe('parameter check', () => {
  it('parameter check - two different schemas with the same $id both validate', () => {
    const first = JSON.stringify({ $id: 'https://example.test/params', type: 'object', properties: { n: { type: 'integer' } } });
    const second = JSON.stringify({ $id: 'https://example.test/params', type: 'object', properties: { s: { type: 'string' } } });
    assert.deepEqual(invalidProperties(first, { n: 'x' }), ['n']);
    assert.deepEqual(invalidProperties(second, { s: 1 }), ['s'], 'the second schema is not silently skipped');
    assert.deepEqual(invalidProperties(first, { n: 'y' }), ['n']);
  });

  it('parameter check - the cache of compiled schemas stays bounded', () => {
    for (let i = 0; i < compiledSchemas.capacity + 50; i++) {
      invalidProperties(JSON.stringify({ type: 'object', properties: { [`p${i}`]: { type: 'integer' } } }), {});
    }
    assert.equal(compiledSchemas.size, compiledSchemas.capacity);
    const last = JSON.stringify({ type: 'object', properties: { [`p${compiledSchemas.capacity + 49}`]: { type: 'integer' } } });
    assert.ok(compiledSchemas.has(last), 'the most recent schema is kept');
  });
});
