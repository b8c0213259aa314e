/** The agent face of the MCP face (`/mcp?agent=`): which capability is a tool, a prompt or a resource, and agents' MCP results (pure, no server). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentWithInstances } from '../../catalogue/agent-queries';
import { agentFaceOf, matchUriTemplate, resourceFor } from '../../api/mcp/agent-face';
import { asPromptResult, asResourceResult, asToolResult, MESSAGE_ID_META } from '../../api/mcp/mcp-results';
import type { AgentDoc, CapabilityDoc } from '../../store/agents';

function agent(name: string, capabilities: Partial<CapabilityDoc>[]): AgentWithInstances {
  return {
    agent: {
      _id: `agt_${name}`,
      tenant: 'acme',
      name,
      description: '',
      capabilities: capabilities.map((c) => ({ name: 'x', description: '', tags: [], examples: [], ...c })),
    } as AgentDoc,
    instances: [],
  };
}

const caller = { tenant: 'acme', key_id: 'aaaaaaaaaaaa', scopes: ['read', 'send'] };
const fixture = agent('fixture', [
  { name: 'greet', tags: ['mcp:task=forbidden'] },
  { name: 'hello_prompt', tags: ['mcp:prompt'] },
  { name: 'readme', tags: ['other', 'mcp:resource=test://readme'] },
  { name: 'item', tags: ['mcp:resource=test://items/{id}/data'] },
  { name: 'secret', acl: { scopes: ['admin'] } },
]);

describe('mcp agent face', () => {
  it('mcp agent face - tools under their bare names, prompts and resources by their tags, only what the key may reach', () => {
    const face = agentFaceOf([agent('other', [{ name: 'greet' }]), fixture], caller, 'fixture');
    assert.deepEqual(
      face.tools.map((t) => [t.definition.name, t.agent_id, t.capability]),
      [['greet', 'agt_fixture', 'greet']],
    );
    assert.deepEqual(
      face.tools[0]!.definition.execution,
      { taskSupport: 'forbidden' },
      'its tag; without one a capability may be a task',
    );
    assert.deepEqual(
      face.prompts.map((p) => p.capability.name),
      ['hello_prompt'],
    );
    assert.deepEqual(
      face.resources.map((r) => [r.capability.name, r.uri, r.isTemplate]),
      [
        ['readme', 'test://readme', false],
        ['item', 'test://items/{id}/data', true],
      ],
    );
    assert.deepEqual(agentFaceOf([fixture], caller, 'nobody'), { tools: [], prompts: [], resources: [] });
    const admin = agentFaceOf([fixture], { ...caller, scopes: ['send', 'admin'] }, 'fixture');
    assert.deepEqual(
      admin.tools.map((t) => t.definition.name),
      ['greet', 'secret'],
    );
    assert.deepEqual(admin.tools[1]!.definition.execution, { taskSupport: 'optional' });
  });

  it('mcp agent face - a URI finds its resource, a template gives its variables', () => {
    const face = agentFaceOf([fixture], caller, 'fixture');
    assert.deepEqual(matchUriTemplate('test://items/{id}/data', 'test://items/a%20b/data'), { id: 'a b' });
    assert.equal(matchUriTemplate('test://items/{id}/data', 'test://items/a/b/data'), undefined);
    assert.equal(
      matchUriTemplate('test://x.{id}', 'test://xy1'),
      undefined,
      'the template text is literal, not a pattern',
    );
    assert.equal(resourceFor(face, 'test://readme')?.resource.capability.name, 'readme');
    assert.deepEqual(resourceFor(face, 'test://items/7/data')?.variables, { id: '7' });
    assert.equal(resourceFor(face, 'test://nothing'), undefined);
  });

  it('mcp agent face - an agent result of an MCP result shape is passed on with the message id; others are not', () => {
    const tool = asToolResult(
      { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], isError: false },
      'm1',
    );
    assert.deepEqual(tool, {
      content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
      isError: false,
      _meta: { [MESSAGE_ID_META]: 'm1' },
    });
    assert.equal(asToolResult({ content: [{ type: 'bogus' }] }, 'm1'), undefined, 'an unknown content block');
    assert.equal(asToolResult({ refund_id: 'r-1' }, 'm1'), undefined);
    assert.equal(asToolResult('text', 'm1'), undefined);
    assert.ok(asPromptResult({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }, 'm2'));
    assert.equal(
      asPromptResult({ messages: [{ role: 'robot', content: { type: 'text', text: 'hi' } }] }, 'm2'),
      undefined,
    );
    assert.ok(asResourceResult({ contents: [{ uri: 'test://a', blob: 'AAAA' }] }, 'm3'));
    assert.equal(asResourceResult({ contents: 'none' }, 'm3'), undefined);
  });
});
