/** bench:routing's parameter figure as a caller of POST /v1/route gets it: of the requests routed right, and of all. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routedParameters, type Decided } from '../../bench/routing/routing-live';
import type { RouteDecision, RouteExplanation } from '../../router/router';

const explanation = {
  provider: 'test',
  threshold: 0,
  decided_by: 'head',
  candidates: [],
  ranking: [],
  timings_ms: { total: 1, match: 1 },
} as RouteExplanation;
const target = (capability: string) => ({ agent_id: 'orders', capability, instance_id: 'i1' });

function row(expected: string | null, params: Record<string, unknown> | undefined, decision: RouteDecision): Decided {
  return { request: { text: 'x', expected, kind: 'in_scope', ...(params ? { params } : {}) }, decision, ms: 1 };
}

describe('bench routed parameters', () => {
  it('routedParameters - exact only with the same fields and values; refusals and wrong targets count against all labelled', () => {
    const rows = [
      row(
        'orders/track',
        { order_id: '123' },
        { kind: 'routed', target: target('track'), params: { order_id: '123' }, explanation },
      ),
      row(
        'orders/track',
        { order_id: '123' },
        { kind: 'input_required', target: target('track'), params: { order_id: '124' }, missing: [], explanation },
      ),
      row(
        'orders/track',
        { order_id: '123' },
        { kind: 'routed', target: target('track'), params: { order_id: '123', extra: 1 }, explanation },
      ),
      row(
        'orders/track',
        { order_id: '123' },
        { kind: 'routed', target: target('cancel'), params: { order_id: '123' }, explanation },
      ),
      row('orders/track', { order_id: '123' }, { kind: 'refused', code: 'no_match', message: 'no', explanation }),
      // Not labelled with parameters, or not in scope: not counted.
      row('orders/track', undefined, { kind: 'routed', target: target('track'), params: {}, explanation }),
      row(null, undefined, { kind: 'refused', code: 'no_match', message: 'no', explanation }),
    ];
    assert.deepEqual(routedParameters(rows), {
      labelled: 5,
      routed_right: 3,
      exact_of_routed_right: 0.3333,
      exact_of_labelled: 0.2,
    });
  });
});
