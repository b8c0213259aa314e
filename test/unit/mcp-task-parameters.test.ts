/**
 * A task's call that lacks required parameters (api/mcp/task-parameters.ts): the client is asked for the missing ones
 * with their JSON Schema before the task exists, only when it can be asked; its accepted answer is merged over the
 * arguments only on the round that answers the gateway's own question.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CapabilityTool } from '../../api/mcp/capability-tools';
import type { McpRound, ToolCall } from '../../api/mcp/context';
import { answeredArguments, PARAMETERS_KEY, parametersQuestion } from '../../api/mcp/task-parameters';

const tool = (parameters: object, reachable = true) =>
  ({ capability: 'greet', reachable, parametersJson: JSON.stringify(parameters) }) as CapabilityTool;
const call = (round: McpRound | undefined) => ({ caller: {}, signal: new AbortController().signal, round }) as ToolCall;
const elicitation = { clientCapabilities: { elicitation: {} } };
const greet = {
  type: 'object',
  required: ['name', 'times'],
  properties: { name: { type: 'string', description: 'Who' }, times: { type: 'integer' }, loud: { type: 'boolean' } },
};

describe('mcp task parameters', () => {
  it('mcp task parameters - the missing required parameters are asked for with their schema, under one key', () => {
    const asked = parametersQuestion(call(elicitation), tool(greet), { times: 2 });
    assert.deepEqual(asked, {
      resultType: 'input_required',
      asksParameters: true,
      inputRequests: {
        [PARAMETERS_KEY]: {
          method: 'elicitation/create',
          params: {
            message: 'greet needs: name',
            requestedSchema: {
              type: 'object',
              properties: { name: { type: 'string', description: 'Who' } },
              required: ['name'],
            },
          },
        },
      },
    });
    assert.equal(parametersQuestion(call(elicitation), tool(greet), { name: 'Alice', times: 2 }), undefined);
  });

  it('mcp task parameters - nothing is asked of a client without elicitation, for a tool it may not reach, or for a nested parameter', () => {
    assert.equal(parametersQuestion(call({ clientCapabilities: {} }), tool(greet), {}), undefined);
    assert.equal(parametersQuestion(call(undefined), tool(greet), {}), undefined);
    assert.equal(parametersQuestion(call(elicitation), tool(greet, false), {}), undefined);
    const nested = { type: 'object', required: ['address'], properties: { address: { type: 'object' } } };
    assert.equal(parametersQuestion(call(elicitation), tool(nested), {}), undefined);
  });

  it("mcp task parameters - an accepted answer is merged over the arguments only on the round that answers the gateway's question", () => {
    const answer = { [PARAMETERS_KEY]: { action: 'accept', content: { name: 'Alice' } } };
    const ours = { ...elicitation, parameters: true as const, inputResponses: answer };
    assert.deepEqual(answeredArguments(call(ours), { times: 2 }), { times: 2, name: 'Alice' });
    // The same key in an answer to an agent's question (no sealed gateway state) is not ours to merge.
    assert.deepEqual(answeredArguments(call({ ...elicitation, inputResponses: answer }), { times: 2 }), { times: 2 });
    const declined = { ...ours, inputResponses: { [PARAMETERS_KEY]: { action: 'decline' } } };
    assert.deepEqual(answeredArguments(call(declined), { times: 2 }), { times: 2 });
  });
});
