/** The planner's pure parts: the zh/en splitter, conditions read against declared results, steps connected by `$ref`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conditionWhen, isNegated } from '../../planner/conditions';
import { connect, type RoutedSubRequest } from '../../planner/connect';
import { checkedProposal, groundedShare, modelSplit } from '../../planner/model-split';
import { planChain } from '../../planner/plan-chain';
import { splitRequest } from '../../planner/split';

const orderStatus = {
  parameters: { type: 'object', properties: { order_id: { type: 'string' }, phone: { type: 'string' } } },
  returns: {
    type: 'object',
    properties: {
      order_id: { type: 'string' },
      status: {
        type: 'string',
        enum: ['pending_payment', 'pending_shipment', 'shipped', 'delivered', 'cancelled', 'after_sales'],
      },
    },
  },
};
const cancelOrder = {
  parameters: {
    type: 'object',
    properties: { order_id: { type: 'string' }, reason: { type: 'string' } },
    required: ['order_id', 'reason'],
  },
  returns: { type: 'object', properties: { success: { type: 'boolean' } } },
};
const requestRefund = {
  parameters: {
    type: 'object',
    properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
    required: ['order_id'],
  },
  returns: {
    type: 'object',
    properties: {
      refund_id: { type: 'string' },
      reason: { type: 'string' },
      status: { type: 'string', enum: ['submitted', 'rejected'] },
    },
  },
};
const refundStatus = {
  parameters: {
    type: 'object',
    properties: { refund_id: { type: 'string' }, order_id: { type: 'string' }, reason: { type: 'string' } },
  },
  returns: {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['reviewing', 'approved', 'processing', 'completed', 'rejected', 'cancelled'] },
    },
  },
};
const eligibility = {
  parameters: { type: 'object', properties: { order_id: { type: 'string' } } },
  returns: { type: 'object', properties: { eligible: { type: 'boolean' } } },
};
const target = (capability: string) => ({ agent_id: 'agt', capability });

describe('planner - split', () => {
  it('planner - split - zh sequencers and 如果…就 make steps and conditions', () => {
    assert.deepEqual(splitRequest('查一下订单20240901的状态，如果还没发货就帮我取消'), [
      { text: '查一下订单20240901的状态', link: 'then' },
      { text: '帮我取消', link: 'then', condition: { text: '还没发货', otherwise: false } },
    ]);
    assert.deepEqual(
      splitRequest('查订单20240901的状态，再查物流，然后查发票').map((s) => s.text),
      ['查订单20240901的状态', '查物流', '查发票'],
    );
  });

  it('planner - split - 否则 / otherwise is the condition before it, turned around, after the same steps', () => {
    const zh = splitRequest('查一下订单20240901的状态，如果没发货就取消订单，否则就申请退货退款');
    assert.deepEqual(zh[2], { text: '申请退货退款', link: 'then', condition: { text: '没发货', otherwise: true } });
    const en = splitRequest(
      'Check the status of order 20240901; if it has been delivered, open a return, otherwise cancel the order',
    );
    assert.deepEqual(
      en.map((s) => s.condition),
      [
        undefined,
        { text: 'it has been delivered', otherwise: false },
        { text: 'it has been delivered', otherwise: true },
      ],
    );
  });

  it('planner - split - English: and then / after that / if … , / and + a verb; "if not" points back', () => {
    assert.deepEqual(
      splitRequest('Issue an invoice for order 20240901 and then email it to a@example.com').map((s) => s.text),
      ['Issue an invoice for order 20240901', 'email it to a@example.com'],
    );
    assert.deepEqual(
      splitRequest('Look up order 20240901, track its package, then text 13812345678').map((s) => s.text),
      ['Look up order 20240901', 'track its package', 'text 13812345678'],
    );
    assert.deepEqual(
      splitRequest(
        'Record the inspection for AS1: it arrived damaged. After that, judge whether order 1 qualifies',
      ).map((s) => s.text),
      ['Record the inspection for AS1, it arrived damaged', 'judge whether order 1 qualifies'],
    );
    assert.deepEqual(splitRequest('Check whether the invoice has been issued; if not, issue one')[1], {
      text: 'issue one',
      link: 'then',
      condition: { text: '', otherwise: true },
    });
    // "and" between nouns is no boundary.
    assert.equal(splitRequest('Explain the difference between special invoices and normal invoices').length, 1);
  });

  it('planner - split - 同时 / at the same time puts a step beside the one before', () => {
    assert.deepEqual(
      splitRequest('查下订单20240901的明细，同时查一下它的发票').map((s) => s.link),
      ['then', 'parallel'],
    );
    assert.deepEqual(
      splitRequest('Check the air quality in Chengdu and at the same time get the weather there').map((s) => s.link),
      ['then', 'parallel'],
    );
  });

  it('planner - split - a piece that asks for nothing joins its clause: an address, a title, a reason, a lead', () => {
    assert.deepEqual(
      splitRequest('给订单1开专票，抬头杭州某某科技有限公司，开完以后查一下开票状态').map((s) => s.text),
      ['给订单1开专票，抬头杭州某某科技有限公司', '查一下开票状态'],
    );
    assert.deepEqual(
      splitRequest('包裹SF1一直没更新，登记丢件，然后帮订单1申请退款').map((s) => s.text),
      ['包裹SF1一直没更新，登记丢件', '帮订单1申请退款'],
    );
    assert.deepEqual(
      splitRequest(
        'Change the address of order 1 to 88 Jianguo Road, Chaoyang District, Beijing, then call 13812345678',
      ).map((s) => s.text),
      ['Change the address of order 1 to 88 Jianguo Road, Chaoyang District, Beijing', 'call 13812345678'],
    );
    // 售后 is a word, not "…后".
    assert.equal(splitRequest('售后单AS1的退货到仓了，登记一下质检结果').length, 1);
  });
});

describe('planner - conditions', () => {
  const sources = [{ stepId: 's1', returns: orderStatus.returns }];
  it('planner - conditions - a negation takes the rest of the enum; one value is equals', () => {
    assert.deepEqual(conditionWhen({ text: '还没发货', otherwise: false }, sources), {
      $ref: '/steps/s1/result/status',
      in: ['pending_payment', 'pending_shipment', 'cancelled', 'after_sales'],
    });
    assert.deepEqual(conditionWhen({ text: 'it has been delivered', otherwise: false }, sources), {
      $ref: '/steps/s1/result/status',
      equals: 'delivered',
    });
    assert.deepEqual(conditionWhen({ text: '没发货', otherwise: true }, sources), {
      $ref: '/steps/s1/result/status',
      in: ['shipped', 'delivered'],
    });
  });

  it('planner - conditions - a condition that points back is read in the words before it; a question form is no negation', () => {
    const eligible = [{ stepId: 's2', returns: eligibility.returns }];
    assert.deepEqual(conditionWhen({ text: '可以', otherwise: false }, eligible, '判定能不能退款'), {
      $ref: '/steps/s2/result/eligible',
      equals: true,
    });
    assert.deepEqual(
      conditionWhen({ text: '', otherwise: true }, eligible, 'check whether it qualifies for a refund'),
      { $ref: '/steps/s2/result/eligible', equals: false },
    );
    assert.equal(isNegated('能不能退款'), false);
    assert.equal(isNegated("it hasn't shipped"), true);
  });

  it('planner - conditions - the nearest step whose declared result can tell; none: undefined', () => {
    const two = [
      { stepId: 's2', returns: refundStatus.returns },
      { stepId: 's1', returns: orderStatus.returns },
    ];
    assert.deepEqual(conditionWhen({ text: '被拒绝了', otherwise: false }, two), {
      $ref: '/steps/s2/result/status',
      equals: 'rejected',
    });
    assert.deepEqual(conditionWhen({ text: '已签收', otherwise: false }, two), {
      $ref: '/steps/s1/result/status',
      equals: 'delivered',
    });
    assert.equal(conditionWhen({ text: 'the moon is full', otherwise: false }, two), undefined);
    assert.equal(conditionWhen({ text: '下雨', otherwise: false }, [{ stepId: 's1' }]), undefined);
  });
});

describe('planner - connect', () => {
  const part = (
    text: string,
    capability: string,
    schemas: RoutedSubRequest['schemas'],
    params: Record<string, unknown> = {},
    extra: Partial<RoutedSubRequest['sub']> = {},
  ): RoutedSubRequest => ({
    sub: { text, link: 'then', ...extra },
    target: target(capability),
    params,
    schemas,
  });

  it('planner - connect - a value named once goes to the chain input and every step that declares it reads it; the condition becomes when', () => {
    const plan = connect([
      part('查一下订单20240901的状态', 'query_order_status', orderStatus, { order_id: '20240901' }),
      part('帮我取消', 'cancel_order', cancelOrder, {}, { condition: { text: '还没发货', otherwise: false } }),
    ]);
    assert.deepEqual(plan.input, { order_id: '20240901' });
    assert.deepEqual(plan.steps[0]!.input, { order_id: { $ref: '/input/order_id' } });
    // cancel_order requires a reason no one gave: the step reads it from the chain input, which the caller adds.
    assert.deepEqual(plan.steps[1]!.input, {
      order_id: { $ref: '/input/order_id' },
      reason: { $ref: '/input/reason' },
    });
    assert.deepEqual(plan.steps[1]!.carried, ['order_id']);
    assert.deepEqual(plan.steps[1]!.after, ['s1']);
    assert.equal(plan.steps[1]!.when?.$ref, '/steps/s1/result/status');
    assert.deepEqual(plan.unplanned, [
      {
        code: 'input_required',
        step: 's2',
        text: '帮我取消',
        message: 'step s2 (cancel_order) needs reason: add them to the chain input',
        missing: ['reason'],
        schema: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] },
      },
    ]);
    // Given by the caller, planned again: nothing missing.
    const again = connect(
      [
        part('查一下订单20240901的状态', 'query_order_status', orderStatus, { order_id: '20240901' }),
        part('帮我取消', 'cancel_order', cancelOrder),
      ],
      { reason: '不想要了' },
    );
    assert.deepEqual(again.unplanned, []);
    assert.deepEqual(again.steps[1]!.input.reason, { $ref: '/input/reason' });
  });

  it('planner - connect - a name the plan asks for is read from the chain input by every step, asked once', () => {
    const employee = {
      parameters: { type: 'object', properties: { employee_id: { type: 'string' } }, required: ['employee_id'] },
      returns: { type: 'object', properties: { employee_id: { type: 'string' }, days: { type: 'number' } } },
    };
    const plan = connect([
      part('查一下年假余额', 'leave_balance', employee),
      part('再帮我请假', 'apply_leave', employee),
    ]);
    assert.deepEqual(plan.input, {});
    assert.deepEqual(plan.steps[0]!.input, { employee_id: { $ref: '/input/employee_id' } });
    // Not the first step's result: the value the caller adds is the one both steps mean.
    assert.deepEqual(plan.steps[1]!.input, { employee_id: { $ref: '/input/employee_id' } });
    assert.deepEqual(
      plan.unplanned.map((u) => [u.code, u.step, u.missing]),
      [['input_required', 's1', ['employee_id']]],
    );
  });

  it('planner - connect - an identifier an earlier step returns is read from its result; prose fields are not carried', () => {
    const plan = connect([
      part('申请退款', 'request_refund', requestRefund, { order_id: '1' }),
      part('查一下退款进度', 'query_refund_status', refundStatus),
    ]);
    assert.deepEqual(plan.steps[1]!.refs, {
      refund_id: '/steps/s1/result/refund_id',
      order_id: '/input/order_id',
    } as Record<string, string>);
    assert.equal('reason' in plan.steps[1]!.refs, false);
  });

  it('planner - connect - a second value of the same name gets its own input key; a beside step shares the after of the one before', () => {
    const plan = connect([
      part(
        'call 13800000001',
        'notify',
        { parameters: { type: 'object', properties: { phone: { type: 'string' } } } },
        { phone: '13800000001' },
      ),
      part(
        'sms 13800000002',
        'sms',
        { parameters: { type: 'object', properties: { phone: { type: 'string' } } } },
        { phone: '13800000002' },
        { link: 'parallel' },
      ),
    ]);
    assert.deepEqual(plan.input, { phone: '13800000001', phone_s2: '13800000002' });
    assert.deepEqual(plan.steps[1]!.input, { phone: { $ref: '/input/phone_s2' } });
    assert.deepEqual(plan.steps[1]!.after, []);
  });

  it('planner - connect - an otherwise step runs after what its if-step runs after; a refusal and an unread condition are listed', () => {
    const plan = connect([
      part('check order 1', 'query_order_status', orderStatus, { order_id: '1' }),
      part(
        'open a return',
        'request_after_sales',
        {},
        {},
        { condition: { text: 'it was delivered', otherwise: false } },
      ),
      part(
        'cancel the order',
        'cancel_order',
        cancelOrder,
        { reason: 'x' },
        { condition: { text: 'it was delivered', otherwise: true } },
      ),
      {
        sub: { text: 'sing a song', link: 'then' },
        params: {},
        schemas: {},
        refusal: { code: 'no_match', message: 'no capability matches' },
      },
      part('text me', 'sms', {}, {}, { condition: { text: 'the moon is full', otherwise: false } }),
    ]);
    assert.deepEqual(
      plan.steps.map((s) => s.after),
      [[], ['s1'], ['s1'], ['s3']],
    );
    assert.deepEqual(plan.steps[2]!.when, {
      $ref: '/steps/s1/result/status',
      in: ['pending_payment', 'pending_shipment', 'shipped', 'cancelled', 'after_sales'],
    });
    assert.deepEqual(
      plan.unplanned.map((u) => [u.code, u.step]),
      [
        ['refused', undefined],
        ['condition_not_understood', 's4'],
      ],
    );
  });
});

describe('planner - model split', () => {
  const request = '查一下订单20240901的状态，如果还没发货就帮我取消';
  it("planner - model split - a proposal in the request's own words becomes sub-requests with links and conditions", () => {
    const answer = {
      steps: [
        { request: '查一下订单20240901的状态', beside_previous: false, only_if: null, otherwise: false },
        { request: '帮我取消订单20240901', beside_previous: false, only_if: '还没发货', otherwise: false },
      ],
    };
    assert.deepEqual(checkedProposal(answer, request), {
      ok: true,
      subs: [
        { text: '查一下订单20240901的状态', link: 'then' },
        { text: '帮我取消订单20240901', link: 'then', condition: { text: '还没发货', otherwise: false } },
      ],
    });
  });

  it('planner - model split - a step the request does not ask for, an otherwise without a condition, nothing: refused with why', () => {
    const invented = checkedProposal(
      { steps: [{ request: 'send a thank-you gift basket', beside_previous: false, only_if: null, otherwise: false }] },
      request,
    );
    assert.equal(invented.ok, false);
    assert.match((invented as { why: string }).why, /not the request's own words/);
    const orphan = checkedProposal(
      { steps: [{ request: '帮我取消', beside_previous: false, only_if: null, otherwise: true }] },
      request,
    );
    assert.match((orphan as { why: string }).why, /otherwise/);
    assert.deepEqual(checkedProposal({ steps: [] }, request), { ok: false, why: 'no steps proposed' });
    assert.equal(groundedShare('Check order 20240901', 'check the status of order 20240901'), 1);
  });

  it('planner - model split - a model that does not answer in time is a reason, and the rules split is used', async () => {
    const silent = {
      propose: (_r: unknown, signal?: AbortSignal) =>
        new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')))),
    };
    assert.deepEqual(await modelSplit(silent, request, 20), { ok: false, why: 'no answer within 20 ms' });
    const plan = await planChain(
      {
        splitModel: silent,
        modelTimeoutMs: 20,
        route: async () => ({
          kind: 'refused',
          code: 'no_match',
          message: 'none',
          explanation: {
            provider: 'none',
            threshold: 0,
            decided_by: 'none',
            candidates: [],
            ranking: [],
            timings_ms: { total: 0, match: 0 },
          },
        }),
        schemas: async () => ({}),
      },
      { tenant: 't' },
      { intent: request, planner: 'model' },
    );
    assert.deepEqual(plan.planner, { used: 'rules', fallback: 'no answer within 20 ms' });
    assert.equal(plan.unplanned.length, 2);
  });
});
