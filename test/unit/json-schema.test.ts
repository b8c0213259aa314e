import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkJsonSchema, MAX_SCHEMA_DEPTH } from '../../catalogue/json-schema';

describe('json schema', () => {
  it('json schema - accepts ordinary and recursive draft 2020-12 schemas', () => {
    assert.deepEqual(
      checkJsonSchema({ type: 'object', required: ['amount'], properties: { amount: { type: 'number', minimum: 0 } } }),
      [],
    );
    assert.deepEqual(
      checkJsonSchema({
        $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } },
        $ref: '#/$defs/node',
      }),
      [],
    );
    assert.deepEqual(
      checkJsonSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string', format: 'date' }),
      [],
    );
  });

  it('json schema - names the path of an invalid keyword', () => {
    const problems = checkJsonSchema({ type: 'object', properties: { amount: { type: 'numbr' } } });
    assert.ok(problems.length > 0);
    assert.ok(problems.every((p) => p.pointer === '/properties/amount/type'));
    assert.equal(checkJsonSchema({ type: 'object', required: 'amount' })[0]?.pointer, '/required');
  });

  it('json schema - refuses unresolvable references', () => {
    assert.match(checkJsonSchema({ $ref: '#/$defs/missing' })[0]!.message, /can't resolve reference/);
  });

  it('json schema - refuses non-objects, oversized and over-deep schemas', () => {
    assert.match(checkJsonSchema([])[0]!.message, /must be an object/);
    assert.match(checkJsonSchema({ description: 'x'.repeat(70_000) })[0]!.message, /larger than/);
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < MAX_SCHEMA_DEPTH + 2; i++) deep = { type: 'object', properties: { a: deep } };
    assert.match(checkJsonSchema(deep)[0]!.message, /nests deeper/);
  });

  it('json schema - the same $id may be registered by two agents', () => {
    assert.deepEqual(checkJsonSchema({ $id: 'https://example.com/refund', type: 'object' }), []);
    assert.deepEqual(checkJsonSchema({ $id: 'https://example.com/refund', type: 'object' }), []);
  });
});
