/** A code in the request that only some capabilities take settles it between the head's best few (code-takers.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CapabilityCandidate } from '../../router/candidates';
import { preferCodeTaker } from '../../router/head/code-takers';
import { testCandidate } from '../helpers/candidate';

function card(key: string, properties: Record<string, unknown>): CapabilityCandidate {
  return testCandidate(key, { parameters_json: JSON.stringify({ type: 'object', properties }) });
}

const order = { type: 'string', pattern: '^\\d{8,20}$' };
const refundId = { type: 'string', pattern: '^RF\\d{10,20}$' };
const cards = new Map(
  [
    card('refund/request_refund', { order_id: order, amount: { type: 'number' } }),
    card('refund/query_refund_status', { refund_id: refundId, order_id: order }),
    card('refund/explain_policy', {}),
    card('hr/leave', { employee_id: { type: 'string', pattern: '^E\\d{5,8}$' } }),
  ].map((c) => [c.key, c]),
);
const lookup = (key: string) => cards.get(key);
const ranked = (...keys: string[]) => keys.map((key, i) => ({ key, probability: [0.6, 0.25, 0.1, 0.05][i]! }));

describe('code takers', () => {
  it('preferCodeTaker - the runner-up that takes the code takes the best place and its probability', () => {
    const { ranked: out, preferred } = preferCodeTaker(
      ranked('refund/request_refund', 'refund/query_refund_status', 'refund/explain_policy'),
      lookup,
      '退款RF2025030112345到哪一步了',
    );
    assert.deepEqual(out, [
      { key: 'refund/query_refund_status', probability: 0.6 },
      { key: 'refund/request_refund', probability: 0.25 },
      { key: 'refund/explain_policy', probability: 0.1 },
    ]);
    assert.deepEqual(preferred, {
      code: 'RF2025030112345',
      from: 'refund/request_refund',
      to: 'refund/query_refund_status',
    });
  });

  it('preferCodeTaker - typed in lower case, the code is read in the capitals its pattern asks for', () => {
    const { preferred } = preferCodeTaker(
      ranked('refund/request_refund', 'refund/query_refund_status'),
      lookup,
      'where is refund rf2025030112345',
    );
    assert.equal(preferred?.to, 'refund/query_refund_status');
  });

  it('preferCodeTaker - unchanged when the best takes the code, when no code begins with a letter, or the taker is far down', () => {
    const order1 = ranked('refund/query_refund_status', 'refund/request_refund');
    assert.deepEqual(preferCodeTaker(order1, lookup, 'RF2025030112345 到哪了'), { ranked: order1 });
    const order2 = ranked('refund/request_refund', 'refund/query_refund_status');
    assert.deepEqual(
      preferCodeTaker(order2, lookup, '订单2024090112345退款'),
      { ranked: order2 },
      'an order number is any number: no capability owns it',
    );
    const far = ranked('refund/request_refund', 'refund/explain_policy', 'hr/leave', 'refund/query_refund_status');
    assert.deepEqual(preferCodeTaker(far, lookup, 'RF2025030112345'), { ranked: far }, 'only among the best three');
    assert.deepEqual(preferCodeTaker([], lookup, 'RF2025030112345'), { ranked: [] });
  });
});
