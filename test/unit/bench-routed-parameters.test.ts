/** bench:routing's parameter figure as a caller of POST /v1/route gets it: of the requests routed right, and of all. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markClockFields, routedParameters, type Decided } from '../../bench/routing/routing-live';
import type { AgentWithInstances } from '../../catalogue/agent-queries';
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
      clock_fields_scored_strictly: { exact_of_routed_right: 0.3333, exact_of_labelled: 0.2 },
    });
  });

  it('markClockFields - a value that moves with the clock is not scored when the labels lack it; one that does not move is', () => {
    const agents = [
      {
        agent: {
          _id: 'logistics',
          name: 'Logistics',
          description: '',
          tags: [],
          capabilities: [
            {
              name: 'pickup',
              description: 'pickup',
              tags: [],
              examples: [],
              parameters_json: JSON.stringify({
                type: 'object',
                properties: {
                  pickup_date: { type: 'string', format: 'date' },
                  phone: { type: 'string', pattern: '^1[3-9]\\d{9}$' },
                },
              }),
            },
          ],
        },
        instances: [],
      },
    ] as unknown as AgentWithInstances[];
    const asked = (text: string, params: Record<string, unknown>, got: Record<string, unknown>): Decided => ({
      request: { text, expected: 'logistics/pickup', kind: 'in_scope', params },
      decision: {
        kind: 'routed',
        target: { agent_id: 'logistics', capability: 'pickup', instance_id: 'i1' },
        params: got,
        explanation,
      },
      ms: 1,
    });
    const rows = [
      asked(
        '明天来取件，电话13800001111',
        { phone: '13800001111' },
        { phone: '13800001111', pickup_date: '2030-01-02' },
      ),
      asked(
        '2030年1月2日来取件，电话13800001111',
        { phone: '13800001111' },
        { phone: '13800001111', pickup_date: '2030-01-02' },
      ),
    ];
    markClockFields(rows, agents);
    assert.deepEqual(rows[0]!.clockFields, ['pickup_date']);
    assert.deepEqual(rows[1]!.clockFields, []);
    const figures = routedParameters(rows);
    assert.equal(
      figures.exact_of_routed_right,
      0.5,
      '"明天" is not scored; a stated date the labels lack is a wrong extra',
    );
    assert.equal(figures.clock_fields_scored_strictly.exact_of_routed_right, 0);
  });
});
