/** The parameter check's compiled schemas: a bounded cache, and a repeated `$id` still validates. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compiledSchemas, invalidProperties, schemaIssues, validParameters } from '../../router/parameter-check';

describe('parameter check', () => {
  it('parameter check - two different schemas with the same $id both validate', () => {
    const first = JSON.stringify({
      $id: 'https://example.test/params',
      type: 'object',
      properties: { n: { type: 'integer' } },
    });
    const second = JSON.stringify({
      $id: 'https://example.test/params',
      type: 'object',
      properties: { s: { type: 'string' } },
    });
    assert.deepEqual(invalidProperties(first, { n: 'x' }), ['n']);
    assert.deepEqual(invalidProperties(second, { s: 1 }), ['s'], 'the second schema is not silently skipped');
    assert.deepEqual(invalidProperties(first, { n: 'y' }), ['n']);
  });

  it('parameter check - the cache of compiled schemas stays bounded', () => {
    for (let i = 0; i < compiledSchemas.capacity + 50; i++) {
      invalidProperties(JSON.stringify({ type: 'object', properties: { [`p${i}`]: { type: 'integer' } } }), {});
    }
    assert.equal(compiledSchemas.size, compiledSchemas.capacity);
    const last = JSON.stringify({
      type: 'object',
      properties: { [`p${compiledSchemas.capacity + 49}`]: { type: 'integer' } },
    });
    assert.ok(compiledSchemas.has(last), 'the most recent schema is kept');
  });

  const addressSchema = JSON.stringify({
    type: 'object',
    required: ['order_id', 'new_address'],
    properties: {
      order_id: { type: 'string', pattern: '^\\d{8,20}$' },
      new_address: {
        type: 'object',
        required: ['province', 'city', 'detail', 'receiver_phone'],
        additionalProperties: false,
        properties: {
          province: { type: 'string' },
          city: { type: 'string' },
          detail: { type: 'string', minLength: 4 },
          receiver_phone: { type: 'string', pattern: '^1[3-9]\\d{9}$' },
        },
      },
    },
  });

  it('parameter check - an object missing required fields is kept as read: the caller is asked for the rest', () => {
    const params = { order_id: '2024090312', new_address: { city: '杭州市', detail: '文一西路969号' } };
    assert.deepEqual(validParameters(addressSchema, params), params);
    assert.deepEqual(
      invalidProperties(addressSchema, params),
      ['new_address'],
      "a caller's arguments are still judged whole",
    );
  });

  it('parameter check - a nested value the schema rejects goes alone; its object stays', () => {
    const params = {
      order_id: '2024090312',
      new_address: { city: '杭州市', detail: '文一西路969号', receiver_phone: '12345' },
    };
    assert.deepEqual(validParameters(addressSchema, params), {
      order_id: '2024090312',
      new_address: { city: '杭州市', detail: '文一西路969号' },
    });
  });

  it('parameter check - a top-level value that fails, an object left empty and an unknown nested field are dropped', () => {
    const params = { order_id: 'abc', new_address: { detail: 'x', note: 'ring twice' } };
    assert.deepEqual(validParameters(addressSchema, params), {});
    const valid = {
      order_id: '2024090312',
      new_address: { province: '浙江省', city: '杭州市', detail: '文一西路969号', receiver_phone: '13705718888' },
    };
    assert.equal(validParameters(addressSchema, valid), valid, 'valid parameters come back untouched');
  });

  it('parameter check - schema issues name where and what, a missing field by its own path', () => {
    const params = { order_id: 'abc', new_address: { city: '杭州市', detail: 'x' } };
    const issues = schemaIssues(addressSchema, params);
    assert.deepEqual(issues.map((i) => i.location).sort(), [
      'params.new_address.detail',
      'params.new_address.province',
      'params.new_address.receiver_phone',
      'params.order_id',
    ]);
    assert.ok(issues.every((i) => i.message.length > 0));
    assert.deepEqual(
      schemaIssues(addressSchema, {
        order_id: '2024090312',
        new_address: { province: '浙江省', city: '杭州市', detail: '文一西路969号', receiver_phone: '13705718888' },
      }),
      [],
    );
  });
});
