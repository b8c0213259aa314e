/** The pure parts of plan_and_run: the summary ask, the aggregate, the plan id, the A2A reply and task views. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { replyVerdict, chainTaskOf } from '../../api/a2a/plan-task-view';
import { checkPlanId, planId, PLAN_TTL_MS } from '../../api/plan-token';
import { confirmed } from '../../api/mcp/plan-and-run';
import { withAggregate } from '../../chains/aggregate';
import type { ChainStatus } from '../../chains/chain';
import { isSummaryRequest } from '../../planner/summary-request';

const status: ChainStatus = {
  chain_id: 'c1',
  tenant: 'default',
  state: 'failed',
  started_at: '2026-01-01T00:00:00.000Z',
  ended_at: '2026-01-01T00:00:01.000Z',
  error: { code: 'agent_failed', message: 'ledger closed', step: 's3' },
  steps: [
    {
      id: 's1',
      after: [],
      message_id: 'c1:s1',
      state: 'completed',
      result: { status: 'pending_shipment' },
      target: { agent_id: 'a', capability: 'query_order_status' },
    },
    { id: 's2', after: ['s1'], message_id: 'c1:s2', state: 'skipped' },
    {
      id: 's3',
      after: ['s1'],
      message_id: 'c1:s3',
      state: 'failed',
      error: { code: 'agent_failed', message: 'ledger closed' },
      target: { agent_id: 'a', capability: 'request_refund' },
    },
    {
      id: 's4',
      after: ['s3'],
      message_id: 'c1:s4',
      state: 'completed',
      result_ref: { message_id: 'c1:s4', bytes: 99_999 },
    },
    { id: 's5', after: ['s4'], message_id: 'c1:s5', state: 'cancelled' },
  ],
};

describe('plan and run', () => {
  it('plan and run - a last clause that only asks to be told is a summary ask; one naming what to tell is a step', () => {
    for (const said of [
      '告诉我结果',
      '把结果发给我',
      '通知我一下',
      'tell me the result',
      'let me know',
      'notify me when done',
      'Tell me how it went.',
      'send me the summary',
    ])
      assert.equal(isSummaryRequest(said), true, said);
    for (const said of [
      '告诉我订单明细',
      'tell me the refund status',
      'send me the invoice',
      'notify the team',
      'cancel the order',
      '',
    ])
      assert.equal(isSummaryRequest(said), false, said);
  });

  it('plan and run - the aggregate: completed results by step id (not those kept by reference), and the summary asked for', () => {
    const plain = withAggregate(status, undefined);
    assert.deepEqual(plain.results, { s1: { status: 'pending_shipment' } });
    assert.equal('summary' in plain, false);
    const told = withAggregate(status, { request: 'tell me the result' });
    assert.deepEqual(told.summary, {
      request: 'tell me the result',
      state: 'failed',
      completed: ['s1', 's4'],
      skipped: ['s2'],
      failed: [{ step: 's3', code: 'agent_failed', message: 'ledger closed' }],
      not_run: ['s5'],
      text: 's1 query_order_status: completed\ns2: skipped\ns3 request_refund: failed (agent_failed)\ns4: completed\ns5: cancelled',
    });
  });

  it('plan and run - a plan id holds for its key and body only, until it expires', () => {
    const keys = { keys: [Buffer.alloc(32, 7)] } as never;
    const caller = { tenant: 'default', key_id: 'k1', scopes: ['send'] };
    const chain = { chain_id: 'chn_1', steps: [{ id: 's1', target: { agent_id: 'a', capability: 'c' }, after: [] }] };
    const id = planId(keys, caller, chain, 1_000);
    assert.deepEqual(checkPlanId(keys, caller, { ...chain }, id, 2_000), { ok: true });
    assert.deepEqual(checkPlanId(keys, caller, { ...chain, chain_id: 'chn_2' }, id, 2_000), {
      ok: false,
      why: 'not_this_plan',
    });
    assert.deepEqual(checkPlanId(keys, { ...caller, key_id: 'k2' }, chain, id, 2_000), {
      ok: false,
      why: 'not_this_plan',
    });
    assert.deepEqual(checkPlanId(keys, caller, chain, id, 1_000 + PLAN_TTL_MS + 1), { ok: false, why: 'expired' });
    assert.deepEqual(checkPlanId(keys, caller, chain, 'pln_x', 2_000), { ok: false, why: 'malformed' });
    assert.deepEqual(checkPlanId({ keys: [Buffer.alloc(32, 8)] } as never, caller, chain, id, 2_000), {
      ok: false,
      why: 'not_this_plan',
    });
  });

  it('plan and run - what confirms: an accepted elicitation with run true; an A2A yes or {confirm: true}', () => {
    assert.equal(confirmed({ action: 'accept', content: { run: true } }), true);
    assert.equal(confirmed({ action: 'accept', content: { run: false } }), false);
    assert.equal(confirmed({ action: 'decline' }), false);
    assert.equal(confirmed(undefined), false);
    assert.equal(replyVerdict([{ text: 'Yes!' }]), 'run');
    assert.equal(replyVerdict([{ text: '确认' }]), 'run');
    assert.equal(replyVerdict([{ data: { confirm: true } }]), 'run');
    assert.equal(replyVerdict([{ text: 'no' }]), 'cancel');
    assert.equal(replyVerdict([{ text: '取消' }]), 'cancel');
    assert.equal(replyVerdict([{ data: { confirm: false } }, { text: 'yes' }]), 'cancel');
    assert.equal(replyVerdict([{ text: 'yes, but only the first step' }]), undefined);
    assert.equal(replyVerdict([{ data: { confirm: 'yes' } }]), undefined);
  });

  it('plan and run - a confirmed plan task is its chain: states mapped, the aggregate as artifact once ended', () => {
    const ended = chainTaskOf(withAggregate(status, { request: 'tell me' }), 'ctx1') as any;
    assert.equal(ended.status.state, 'TASK_STATE_FAILED');
    assert.equal(ended.contextId, 'ctx1');
    assert.equal(ended.artifacts[0].parts[1].data.results.s1.status, 'pending_shipment');
    const running = chainTaskOf(
      { ...status, state: 'running', ended_at: undefined, error: undefined } as ChainStatus,
      'ctx1',
    ) as any;
    assert.equal(running.status.state, 'TASK_STATE_WORKING');
    assert.equal(running.artifacts, undefined);
  });
});
