/** 2026-07-28 input_required rounds through the MCP face: an agent's request for input, and its state sealed by the gateway (pure, no server). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServerContext } from '@modelcontextprotocol/server';
import { roundPayload, sealedAnswer, stateCodec } from '../../api/mcp/input-rounds';
import { asInputRequired } from '../../api/mcp/mcp-results';

const codec = stateCodec({ keys: ['k'.repeat(43)] });
const contextOf = (clientId: string, method = 'tools/call') =>
  ({ mcpReq: { method }, http: { authInfo: { clientId } } }) as unknown as ServerContext;

describe('mcp input rounds', () => {
  it('mcp input rounds - an agent result asking for input is recognised; other results are not', () => {
    const asking = {
      resultType: 'input_required',
      inputRequests: { name: { method: 'elicitation/create', params: {} } },
      requestState: 's1',
    };
    assert.deepEqual(asInputRequired(asking), asking);
    assert.deepEqual(asInputRequired({ resultType: 'input_required', requestState: 's2' }), {
      resultType: 'input_required',
      requestState: 's2',
    });
    assert.equal(asInputRequired({ resultType: 'input_required' }), undefined, 'neither requests nor state');
    assert.equal(asInputRequired({ resultType: 'input_required', inputRequests: [] }), undefined);
    assert.equal(asInputRequired({ resultType: 'input_required', requestState: 7 }), undefined);
    assert.equal(asInputRequired({ content: [] }), undefined);
  });

  it('mcp input rounds - the agent state is sealed for one key, method and tool, and comes back only unchanged', async () => {
    const sealed = await sealedAnswer(codec, contextOf('key-1'), 'book', {
      resultType: 'input_required',
      inputRequests: {},
      requestState: 'agent state',
    });
    assert.equal(sealed.resultType, 'input_required');
    assert.notEqual(sealed.requestState, 'agent state');
    assert.deepEqual(await codec.verify(sealed.requestState!, contextOf('key-1')), {
      for: 'book',
      state: 'agent state',
    });
    await assert.rejects(codec.verify(`${sealed.requestState!}x`, contextOf('key-1')), 'changed on the way');
    await assert.rejects(codec.verify(sealed.requestState!, contextOf('key-2')), 'echoed by another key');
    await assert.rejects(
      codec.verify(sealed.requestState!, contextOf('key-1', 'prompts/get')),
      'echoed to another method',
    );
    const other = stateCodec({ keys: ['o'.repeat(43)] });
    await assert.rejects(other.verify(sealed.requestState!, contextOf('key-1')), 'sealed by another deployment');
    const stateless = await sealedAnswer(codec, contextOf('key-1'), 'book', {
      resultType: 'input_required',
      inputRequests: {},
    });
    assert.equal('requestState' in stateless, false, 'no state of the agent, none made up');
  });

  it('mcp input rounds - a round reaches the agent in the payload, under mcp', () => {
    assert.deepEqual(roundPayload(undefined), {});
    assert.deepEqual(roundPayload({ clientCapabilities: { sampling: {} } }), {
      payload: { mcp: { client_capabilities: { sampling: {} } } },
    });
    assert.deepEqual(
      roundPayload({ clientCapabilities: {}, inputResponses: { a: { action: 'accept' } }, requestState: 's' }),
      {
        payload: { mcp: { client_capabilities: {}, input_responses: { a: { action: 'accept' } }, request_state: 's' } },
      },
    );
  });
});
