/** An agent's input_required result played for a 2025-11-25 session (api/mcp/session-rounds.ts): the pure parts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { McpSession } from '../../api/mcp/context';
import { canPlay, playRound } from '../../api/mcp/session-rounds';

/** A client that declared `capabilities` and answers each request with its method, noting what it was asked. */
function client(capabilities: Record<string, unknown>): McpSession & { asked: string[] } {
  const asked: string[] = [];
  return { capabilities, asked, request: async (method) => (asked.push(method), { answered: method }) };
}

const elicit = {
  method: 'elicitation/create',
  params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
};
const sample = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 10 } };

describe('mcp session rounds', () => {
  it('mcp session rounds - only what the client declared is asked, and only requests it knows', () => {
    const asking = { resultType: 'input_required' as const, inputRequests: { name: elicit, text: sample } };
    assert.equal(canPlay(client({ elicitation: {}, sampling: {} }), asking), true);
    assert.equal(canPlay(client({ elicitation: {} }), asking), false, 'no sampling declared');
    assert.equal(
      canPlay(client({ elicitation: {} }), {
        resultType: 'input_required',
        inputRequests: { x: { method: 'tools/call' } },
      }),
      false,
    );
    assert.equal(
      canPlay(client({ elicitation: {} }), { resultType: 'input_required', inputRequests: { x: 'nonsense' } }),
      false,
    );
  });

  it("mcp session rounds - each request goes to the client; the answers and the agent's state are the next round's payload", async () => {
    const session = client({ elicitation: {}, sampling: {} });
    const payload = await playRound(session, {
      resultType: 'input_required',
      inputRequests: { name: elicit, text: sample },
      requestState: 'step-1',
    });
    assert.deepEqual(session.asked, ['elicitation/create', 'sampling/createMessage']);
    assert.deepEqual(payload, {
      mcp: {
        client_capabilities: { elicitation: {}, sampling: {} },
        input_responses: { name: { answered: 'elicitation/create' }, text: { answered: 'sampling/createMessage' } },
        request_state: 'step-1',
      },
    });
  });
});
