/** `rerouteMessage` (activities/reroute-message.ts): the report, then the router's next choice without the misrouted capabilities. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRerouteMessage } from '../../activities/reroute-message';
import type { RouteRequest } from '../../router/route-request';
import type { RouteDecision } from '../../router/router';

const explanation = {
  provider: 'fake',
  threshold: 0.5,
  decided_by: 'head',
  candidates: [],
  ranking: [],
  timings_ms: { total: 1, match: 1 },
} as unknown as RouteDecision['explanation'];
const request = {
  tenant: 't',
  message_id: 'm1',
  intent: 'refund order 42',
  misrouted: 'a/refund',
  exclude: ['a/refund'],
};

function router(decision: RouteDecision, asked: RouteRequest[]) {
  return { route: async (r: RouteRequest) => (asked.push(r), decision) };
}

describe('rerouteMessage', () => {
  it('rerouteMessage - reports the misroute, then routes the intent again without the capabilities reported', async () => {
    const reports: string[][] = [];
    const asked: RouteRequest[] = [];
    const reroute = createRerouteMessage({
      router: router(
        {
          kind: 'routed',
          target: { agent_id: 'b', capability: 'refund', instance_id: 'i1' },
          params: { order_id: '42' },
          explanation,
        },
        asked,
      ),
      misroutes: { report: async (...args: string[]) => (reports.push(args), {} as never) },
    });
    const result = await reroute({ ...request, caller: { tenant: 't', key_id: 'k', scopes: ['send'] } });
    assert.deepEqual(reports, [['t', 'a/refund', 'refund order 42', 'm1']]);
    assert.deepEqual(asked[0]!.exclude, ['a/refund']);
    assert.deepEqual(asked[0]!.caller, { tenant: 't', key_id: 'k', scopes: ['send'] });
    assert.equal(result.kind, 'routed');
    assert.ok(result.kind === 'routed');
    assert.deepEqual(result.target, { agent_id: 'b', capability: 'refund' });
    assert.deepEqual(result.params, { order_id: '42' });
  });

  it('rerouteMessage - nothing else fits: refused no_route; a report the store cannot take does not hold the message up', async () => {
    const errors: Error[] = [];
    const reroute = createRerouteMessage({
      router: router({ kind: 'refused', code: 'no_match', message: 'no capability matches', explanation }, []),
      misroutes: { report: async () => Promise.reject(new Error('database down')) },
      onReportError: (error) => errors.push(error),
    });
    const result = await reroute(request);
    assert.equal(result.kind, 'refused');
    assert.ok(result.kind === 'refused');
    assert.equal(result.reason.code, 'no_route');
    assert.equal(errors[0]!.message, 'database down');
  });
});
