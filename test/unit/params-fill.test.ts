/** Filling required parameters with a model: the grammar's schema (fill-schema.ts) and what is kept of the answer (grounded.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filledFields, fillSchema, withoutNulls } from '../../router/params/fill-schema';
import { comparable, groundedFields } from '../../router/params/grounded';

const schema = {
  type: 'object',
  properties: {
    order_id: { type: 'string', pattern: '^\\d{8,20}$', description: 'order number' },
    new_address: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        detail: { type: 'string' },
        receiver_phone: { type: 'string', pattern: '^1\\d{10}$' },
      },
      required: ['city', 'detail'],
    },
    invoice_type: { type: 'string', enum: ['e_normal', 'paper_special'] },
    pickup_date: { type: 'string', format: 'date' },
    weight_kg: { type: 'number', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['order_id', 'new_address'],
  anyOf: [{ required: ['order_id'] }],
  additionalProperties: false,
};

describe('fill schema', () => {
  it('fillSchema - only the wanted fields, each nullable; patterns, bounds and anyOf left to the check afterwards', () => {
    const asked = fillSchema(schema, [
      'order_id',
      'new_address',
      'invoice_type',
      'pickup_date',
      'weight_kg',
      'tags',
      'not_a_field',
    ]);
    assert.deepEqual(Object.keys(asked.properties as object), [
      'order_id',
      'new_address',
      'invoice_type',
      'pickup_date',
      'weight_kg',
      'tags',
    ]);
    const p = asked.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(p.order_id, { type: ['string', 'null'], maxLength: 200, description: 'order number' });
    assert.deepEqual(p.invoice_type, { enum: ['e_normal', 'paper_special', null] });
    assert.deepEqual(p.pickup_date, { type: ['string', 'null'], format: 'date' });
    assert.deepEqual(p.weight_kg, { type: ['number', 'null'] });
    // Objects and arrays take null as a second branch (the grammar's type lists are for scalars only).
    const address = p.new_address!.oneOf as Record<string, unknown>[];
    assert.deepEqual(address[1], { type: 'null' });
    assert.deepEqual(address[0], {
      type: 'object',
      properties: {
        city: { type: ['string', 'null'], maxLength: 200 },
        detail: { type: ['string', 'null'], maxLength: 200 },
        receiver_phone: { type: ['string', 'null'], maxLength: 200 },
      },
      additionalProperties: false,
    });
    assert.deepEqual((p.tags!.oneOf as unknown[])[0], { type: 'array', items: { type: 'string', maxLength: 200 } });
    assert.equal(asked.additionalProperties, false);
    assert.equal(JSON.stringify(asked).includes('pattern'), false);
    assert.equal(JSON.stringify(asked).includes('anyOf'), false);
  });

  it('withoutNulls / filledFields - what the model left null or empty is gone, at every level; unasked fields too', () => {
    assert.equal(withoutNulls(null), undefined);
    assert.deepEqual(withoutNulls({ a: null, b: { c: null, d: 'x' }, e: [null, ''], f: 0, g: false }), {
      b: { d: 'x' },
      f: 0,
      g: false,
    });
    assert.deepEqual(
      filledFields({ order_id: '123', new_address: { city: null }, other: 'x' }, ['order_id', 'new_address']),
      { order_id: '123' },
    );
    assert.deepEqual(filledFields('not an object', ['order_id']), {});
  });
});

describe('grounded fields', () => {
  const request =
    '订单 2024090433445566 换个送货地址，送到成都市武侯区天府大道中段1268号，大概 3 公斤，发票开 e_normal';

  it('groundedFields - a value the request states is kept, an invented one is dropped, in nested objects too', () => {
    const filled = {
      order_id: '2024090433445566',
      new_address: {
        province: '四川省',
        city: '成都市',
        district: '武侯区',
        detail: '天府大道中段1268号',
        receiver_name: '张三',
        receiver_phone: '13800138000',
      },
      weight_kg: 3,
    };
    assert.deepEqual(groundedFields(filled, schema, request), {
      order_id: '2024090433445566',
      new_address: { city: '成都市', district: '武侯区', detail: '天府大道中段1268号' },
      weight_kg: 3,
    });
  });

  it('groundedFields - enum, const and formatted values are readings, kept for the schema check; a field of nothing stated goes', () => {
    const filled = {
      invoice_type: 'paper_special',
      pickup_date: '2026-12-06',
      new_address: { receiver_name: '李四' },
      weight_kg: 12,
    };
    assert.deepEqual(groundedFields(filled, schema, request), {
      invoice_type: 'paper_special',
      pickup_date: '2026-12-06',
    });
  });

  it('comparable - case, spaces, separators and full-width forms do not hide a stated value', () => {
    assert.deepEqual(groundedFields({ order_id: 'Order 2024-0904' }, schema, 'ORDER ２０２４ ０９０４ please'), {
      order_id: 'Order 2024-0904',
    });
    assert.equal(comparable('８８ Nanjing Road, Huangpu'), '88nanjingroadhuangpu');
  });
});
