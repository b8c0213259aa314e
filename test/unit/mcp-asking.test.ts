/** The MCP face asking a tool call's caller for input (api/mcp/asking.ts): the pure parts, no server. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServerContext } from '@modelcontextprotocol/server';
import { continuedSend, elicitationOf, howToAnswer, isFlatForm, replyOf } from '../../api/mcp/asking';
import { sealedAnswer, stateCodec } from '../../api/mcp/input-rounds';
import { ApiError } from '../../api/errors';
import type { MessageStatus } from '../../messages/message';

const refused = {
  message_id: 'm-1',
  tenant: 't',
  state: 'rejected',
  target: { agent_id: 'a-1', capability: 'request_refund' },
  params: { amount: 5 },
  reason: { code: 'input_required', message: 'request_refund needs order_id', missing: ['order_id'] },
} as unknown as MessageStatus;

describe('mcp asking', () => {
  it('mcp asking - a question is an elicitation of its JSON Schema, or of a free-text answer', () => {
    const city = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    assert.deepEqual(elicitationOf({ message: 'Which city?', schema: city }), {
      method: 'elicitation/create',
      params: { message: 'Which city?', requestedSchema: city },
    });
    assert.deepEqual(elicitationOf({ message: 'Why?' }).params.requestedSchema.required, ['answer']);
    assert.equal(isFlatForm(city), true);
    assert.equal(
      isFlatForm({ type: 'object', properties: { address: { type: 'object' } } }),
      false,
      '2025-11-25 forms hold no objects',
    );
  });

  it('mcp asking - an elicitation result is a reply: accepted content as params, another action as the payload', () => {
    assert.deepEqual(replyOf({ action: 'accept', content: { city: 'Lyon' } }), { params: { city: 'Lyon' } });
    assert.deepEqual(replyOf({ action: 'decline' }), { payload: { action: 'decline' } });
    assert.deepEqual(replyOf('nonsense'), { payload: { action: 'unknown' } });
  });

  it("mcp asking - an answer to the router's question is a new message to its target, with the params, sent once", () => {
    const body = { intent: 'refund please', message_id: 'm-1', payload: { note: 'kept' } };
    const next = continuedSend(body, refused, { params: { order_id: '2024090112' } });
    assert.deepEqual(next.target, { agent_id: 'a-1', capability: 'request_refund' });
    assert.deepEqual(next.params, { amount: 5, order_id: '2024090112' });
    assert.equal(next.parent_message_id, 'm-1');
    assert.deepEqual(next.payload, { note: 'kept' });
    assert.match(next.message_id!, /^m-1\.input-[0-9a-f]{16}$/);
    assert.equal(
      continuedSend(body, refused, { params: { order_id: '2024090112' } }).message_id,
      next.message_id,
      'the same answer, the same message',
    );
    assert.notEqual(continuedSend(body, refused, { params: { order_id: '2024090113' } }).message_id, next.message_id);
    assert.throws(
      () => continuedSend(body, refused, { params: { amount: 6 } }),
      (e: unknown) => e instanceof ApiError && e.code === 'input_required',
    );
    assert.throws(
      () => continuedSend(body, refused, { payload: { action: 'decline' } }),
      (e: unknown) => e instanceof ApiError && e.code === 'input_required',
    );
    const long = continuedSend(
      body,
      { ...refused, message_id: 'x'.repeat(128) },
      { params: { order_id: '2024090112' } },
    );
    assert.ok(long.message_id!.length <= 128);
  });

  it("mcp asking - the gateway's question is sealed as the requestState, and comes back naming the message", async () => {
    const codec = stateCodec({ keys: ['k'.repeat(43)] });
    const ctx = {
      mcpReq: { method: 'tools/call' },
      http: { authInfo: { clientId: 'key-1' } },
    } as unknown as ServerContext;
    const continues = { kind: 'reply' as const, message_id: 'm-2', asked: 1 };
    const sealed = await sealedAnswer(codec, ctx, 'reach_send', {
      resultType: 'input_required',
      inputRequests: {},
      continues,
    });
    assert.equal('continues' in sealed, false, 'the message id travels sealed only');
    assert.deepEqual(await codec.verify(sealed.requestState!, ctx), { for: 'reach_send', continues });
    assert.match(
      howToAnswer({ continues, question: { message: 'Which city?' } }).how,
      /reach_reply \{"message_id": "m-2"/,
    );
  });
});
