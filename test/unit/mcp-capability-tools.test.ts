/** Capability tools of the MCP face: their names, input schemas and which a key may reach (pure, no server). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentWithInstances } from '../../catalogue/agent-queries';
import { capabilityTools, splitArguments } from '../../api/mcp/capability-tools';
import type { AgentDoc, CapabilityDoc } from '../../store/agents';

function agent(id: string, name: string, capabilities: Partial<CapabilityDoc>[], description = ''): AgentWithInstances {
  return {
    agent: {
      _id: id,
      tenant: 'acme',
      name,
      description,
      capabilities: capabilities.map((c) => ({ name: 'x', description: '', tags: [], examples: [], ...c })),
    } as AgentDoc,
    instances: [],
  };
}

const caller = { tenant: 'acme', key_id: 'aaaaaaaaaaaa', scopes: ['read', 'send'] };

describe('mcp capability tools', () => {
  it('mcp capability tools - named <agent>__<capability>, with the parameters as input schema', () => {
    const params = { type: 'object', required: ['order_id'], properties: { order_id: { type: 'integer' } } };
    const [tool, other] = capabilityTools(
      [
        agent(
          'agt_1',
          'shop',
          [
            { name: 'refund', description: 'Refunds an order', parameters_json: JSON.stringify(params) },
            { name: 'list' },
          ],
          'The shop',
        ),
      ],
      caller,
    );
    assert.equal(tool!.definition.name, 'shop__refund');
    const { message_id: messageIdProperty, ...declared } = tool!.definition.inputSchema.properties as Record<
      string,
      { type: string }
    >;
    assert.deepEqual(
      { ...tool!.definition.inputSchema, properties: declared },
      params,
      'the parameters, and an optional message_id',
    );
    assert.equal(messageIdProperty!.type, 'string');
    assert.ok(!tool!.definition.inputSchema.required?.includes('message_id'));
    assert.match(tool!.definition.description!, /^Refunds an order — capability "refund" of agent "shop" \(The shop\)/);
    assert.deepEqual(
      { agent_id: tool!.agent_id, capability: tool!.capability, reachable: tool!.reachable },
      { agent_id: 'agt_1', capability: 'refund', reachable: true },
    );
    // No parameters, or parameters that are not an object: any object.
    assert.deepEqual(Object.keys(other!.definition.inputSchema.properties!), ['message_id']);
    assert.equal(other!.definition.inputSchema.additionalProperties, true);
    const [arrayParams] = capabilityTools(
      [agent('agt_2', 'a', [{ name: 'b', parameters_json: '{"type":"array"}' }])],
      caller,
    );
    assert.equal(arrayParams!.definition.inputSchema.additionalProperties, true);
  });

  it('mcp capability tools - names are made safe, and two that read the same are told apart', () => {
    const tools = capabilityTools(
      [agent('agt_1', 'Order Desk', [{ name: 'refund' }]), agent('agt_2', 'Order/Desk', [{ name: 'refund' }])],
      caller,
    );
    assert.equal(tools[0]!.definition.name, 'Order_Desk__refund');
    assert.match(tools[1]!.definition.name, /^Order_Desk__refund_[0-9a-f]{8}$/);
    const long = capabilityTools([agent('agt_3', 'n'.repeat(128), [{ name: 'c' }])], caller)[0]!.definition.name;
    assert.equal(long.length, 128);
    assert.match(long, /^[A-Za-z0-9_.-]+$/);
  });

  it('mcp capability tools - a capability behind an ACL is reachable only with its scope or key id', () => {
    const agents = [
      agent('agt_1', 'pay', [
        { name: 'refund', acl: { scopes: ['refunds'] } },
        { name: 'audit', acl: { key_ids: ['bbbbbbbbbbbb'] } },
        { name: 'open' },
      ]),
    ];
    const reach = (c: typeof caller) => capabilityTools(agents, c).map((t) => `${t.capability}:${t.reachable}`);
    assert.deepEqual(reach(caller), ['refund:false', 'audit:false', 'open:true']);
    assert.deepEqual(reach({ ...caller, scopes: ['send', 'refunds'] }), ['refund:true', 'audit:false', 'open:true']);
    assert.deepEqual(reach({ ...caller, key_id: 'bbbbbbbbbbbb' }), ['refund:false', 'audit:true', 'open:true']);
    // An admin holds the built-in scopes only, not a custom one.
    assert.deepEqual(reach({ ...caller, scopes: ['admin'] }), ['refund:false', 'audit:false', 'open:true']);
    // Names do not depend on who asks.
    assert.deepEqual(
      capabilityTools(agents, caller).map((t) => t.definition.name),
      ['pay__refund', 'pay__audit', 'pay__open'],
    );
  });

  it('mcp capability tools - message_id is taken out of the arguments, checked, unless the capability has a parameter of that name', () => {
    assert.deepEqual(splitArguments({}, { message_id: 'm-1', order: 7 }), { message_id: 'm-1', params: { order: 7 } });
    assert.deepEqual(splitArguments({}, { order: 7 }), { params: { order: 7 } });
    assert.throws(
      () => splitArguments({}, { message_id: ' not valid' }),
      (error: { status?: number; code?: string }) => error.status === 400 && error.code === 'invalid_request',
    );
    const own = { parametersJson: JSON.stringify({ type: 'object', properties: { message_id: { type: 'integer' } } }) };
    assert.deepEqual(splitArguments(own, { message_id: 5 }), { params: { message_id: 5 } });
    const [tool] = capabilityTools(
      [agent('agt_1', 'shop', [{ name: 'x', parameters_json: own.parametersJson }])],
      caller,
    );
    assert.deepEqual(
      tool!.definition.inputSchema.properties,
      { message_id: { type: 'integer' } },
      "the capability's own parameter",
    );
  });
});
