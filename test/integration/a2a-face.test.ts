/**
 * The A2A face (docs/a2a.md) against the official clients: the Python `a2a-sdk` from PyPI (in the venv `npm test`
 * makes at `<cache>/venv`; the Python part skips, saying why, when that venv lacks it; REQUIRE_ALL_SUITES=1 makes
 * that skip fail the run) reads the cards, sends to a named skill and by intent to an SDK agent, reads, cancels and is
 * refused; raw JSON-RPC requests check what no client sends (bad JSON, no key, v0.3 method names).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Task } from '../../api/a2a/sdk';
import { request } from '../helpers/http';
import { sdkAgent } from '../helpers/mcp';
import { pythonModule, runPythonClient } from '../helpers/python';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

const { skip } = pythonModule('a2a.client', 'a2a-sdk');

let servers: TestServers;
let system: TestSystem;
let agentId: string;
const stops: (() => Promise<unknown> | void)[] = [];

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers);
  const worker = await sdkAgent(
    system.baseUrl,
    {
      name: `a2a-face-${process.pid}`,
      capabilities: [
        {
          name: 'refund',
          description: 'Refunds an order',
          examples: ['refund order 1042', 'I want my money back for order 7'],
          parameters: { type: 'object', properties: { order_id: { type: 'integer' } } },
        },
        { name: 'slow', description: 'Takes its time' },
        { name: 'broken', description: 'Always fails' },
        { name: 'payout', description: 'Pays a supplier', acl: { scopes: ['payouts'] } },
      ],
    },
    async (d) => {
      if (d.capability === 'slow') await new Promise((resolve) => setTimeout(resolve, 120_000).unref());
      if (d.capability === 'broken') throw Object.assign(new Error('the ledger is closed'), { code: 'ledger_closed' });
      return { refund_id: `r-${(d.params as { order_id: number }).order_id}` };
    },
    { inlineMs: 200 },
  );
  stops.push(worker.stop);
  agentId = worker.agentId;
});

after(async () => {
  for (const stop of stops.reverse()) await stop();
  await system?.stop();
  await servers?.stop();
});

type SdkClient = typeof import('@a2a-js/sdk/client', { with: { 'resolution-mode': 'import' } });
type Sdk = typeof import('@a2a-js/sdk', { with: { 'resolution-mode': 'import' } });
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } = require('@a2a-js/sdk/client') as SdkClient;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SendMessageRequest } = require('@a2a-js/sdk') as Sdk;

/** The official TypeScript client of the gateway, its fetch carrying `key`; it reads the card itself. */
async function jsClient(key: string) {
  const fetchImpl: typeof fetch = (input, init) =>
    fetch(input, {
      ...init,
      headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${key}` },
    });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(system.baseUrl);
}

/** One JSON-RPC call to `path`, with the test key unless `headers` say otherwise. */
function rpc(path: string, method: string, params: object, headers: Record<string, string> = { 'a2a-version': '1.0' }) {
  return request('POST', `${system.baseUrl}${path}`, { jsonrpc: '2.0', id: 1, method, params }, headers);
}

describe('a2a face', () => {
  it(
    'a2a face - the PyPI a2a-sdk client: strict cards, named skill and intent, idempotent resend, GetTask, CancelTask, streaming, refusals',
    { skip },
    async () => {
      const key = (await system.keys.create('default', { scopes: ['read', 'send'] }, 'a2a-python')).key;
      const id = (name: string) => `py-${name}-${process.pid}`;
      const report = await runPythonClient('a2a_client.py', {
        base_url: system.baseUrl,
        key,
        agent_id: agentId,
        intent: 'refund order 5',
        named_id: id('named'),
        routed_id: id('routed'),
        slow_id: id('slow'),
        failing_id: id('failing'),
        streamed_id: id('streamed'),
      });

      assert.equal(report.public_card.name, 'Agent-Reach');
      assert.deepEqual(report.public_card.interfaces[0], [`${system.baseUrl}/a2a`, 'JSONRPC', '1.0']);
      assert.deepEqual(report.public_card.skills, ['route']);
      assert.deepEqual(report.public_card.schemes, ['reach_api_key']);
      assert.equal(report.public_card.extended, true);
      assert.equal(report.strict_cards, true);
      assert.match(report.no_key.error.message, /401/);

      assert.ok(report.skills.includes(`${agentId}/refund`), report.skills.join());
      assert.ok(!report.skills.includes(`${agentId}/payout`), 'a skill the key may not reach is not on its card');
      assert.equal(report.named.id, id('named'), 'the task id is the A2A message id');
      assert.equal(report.named.state, 'TASK_STATE_COMPLETED');
      assert.deepEqual(report.named.artifacts, [{ refund_id: 'r-77' }]);
      assert.deepEqual(report.named_again, report.named, 'sending the same message again answers the same task');
      assert.deepEqual(report.get, report.named);
      assert.equal(report.routed.state, 'TASK_STATE_COMPLETED', JSON.stringify(report.routed));
      assert.equal(report.routed.metadata.capability, 'refund');

      assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(report.slow.state), report.slow.state);
      assert.equal(report.cancel.state, 'TASK_STATE_CANCELED');
      assert.equal(report.cancel_again.error.type, 'TaskNotCancelableError');
      assert.equal(report.after_cancel.state, 'TASK_STATE_CANCELED');

      assert.equal(report.unknown_task.error.type, 'TaskNotFoundError');
      assert.equal(report.unknown_skill.error.type, 'InvalidParamsError');
      assert.equal(report.forbidden.error.type, 'InvalidParamsError');
      assert.equal(report.forbidden.error.data.code, 'capability_forbidden');
      assert.equal(report.empty.error.type, 'InvalidParamsError');
      assert.equal(report.failed.state, 'TASK_STATE_FAILED');
      assert.match(report.failed.status_text.join(), /ledger is closed/);

      assert.equal(report.streamed.states.at(-1), 'TASK_STATE_COMPLETED', JSON.stringify(report.streamed));
      assert.deepEqual(report.streamed.artifacts, [{ refund_id: 'r-9' }]);
    },
  );

  it('a2a face - the npm @a2a-js/sdk client: card, SendMessage to a named skill, GetTask, CancelTask, a refusal', async () => {
    const key = (await system.keys.create('default', { scopes: ['read', 'send'] }, 'a2a-js')).key;
    const client = await jsClient(key);
    const card = await client.getAgentCard();
    assert.ok(
      card.skills.some((s) => s.id === `${agentId}/refund`),
      "the key's card, read with the key",
    );
    const send = (messageId: string, skill: string, data: object, returnImmediately = false) =>
      client.sendMessage(
        SendMessageRequest.fromJSON({
          message: { messageId, role: 'ROLE_USER', parts: [{ data }], metadata: { skill: `${agentId}/${skill}` } },
          configuration: { returnImmediately },
        }),
      );
    const done = await send(`js-named-${process.pid}`, 'refund', { order_id: 12 });
    assert.ok(!('messageId' in done), 'a task, not a message');
    const task = Task.toJSON(done as never) as {
      id: string;
      status: { state: string };
      artifacts: { parts: { data: unknown }[] }[];
    };
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(task.artifacts[0]!.parts[0]!.data, { refund_id: 'r-12' });
    const read = Task.toJSON(await client.getTask({ tenant: '', id: task.id })) as typeof task;
    assert.deepEqual(read, task);
    const slow = await send(`js-slow-${process.pid}`, 'slow', {}, true);
    const cancelled = Task.toJSON(
      await client.cancelTask({ tenant: '', id: (slow as { id: string }).id, metadata: { reason: 'changed my mind' } }),
    ) as typeof task;
    assert.equal(cancelled.status.state, 'TASK_STATE_CANCELED');
    await assert.rejects(client.getTask({ tenant: '', id: 'js-no-such-task' }), { name: 'TaskNotFoundError' });
    // Subscribing to a task that ended: nothing to stream (spec §3.1.6).
    await assert.rejects(
      async () => {
        for await (const _ of client.resubscribeTask({ tenant: '', id: task.id }))
          assert.fail('no event for an ended task');
      },
      { name: 'UnsupportedOperationError' },
    );
  });

  it('a2a face - raw JSON-RPC: a body that is not JSON, no key, an unknown method, v0.3 names without A2A-Version, an unknown agent face', async () => {
    const notJson = await request('POST', `${system.baseUrl}/a2a`, '{"jsonrpc": ', {
      'content-type': 'application/json',
    });
    assert.equal(notJson.status, 200);
    assert.equal(notJson.body.error.code, -32700);

    const noKey = await rpc('/a2a', 'GetTask', { id: 'x' }, { authorization: '', 'a2a-version': '1.0' });
    assert.equal(noKey.status, 401);
    assert.equal(noKey.headers.get('www-authenticate'), 'Bearer');
    assert.equal(noKey.body.error.data[0].metadata.code, 'unauthenticated');

    const unknownMethod = await rpc('/a2a', 'FlyToTheMoon', {});
    assert.equal(unknownMethod.body.error.code, -32601);
    assert.equal(
      (await rpc('/a2a', 'CreateTaskPushNotificationConfig', { taskId: 'x', url: 'https://example.com/hook' })).body
        .error.code,
      -32003,
    );

    const badParams = await rpc('/a2a', 'SendMessage', {
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ url: 'https://example.com/x.pdf' }] },
    });
    assert.equal(badParams.status, 200);
    assert.equal(badParams.body.error.code, -32005, 'file parts are not accepted');

    const legacy = await rpc(
      '/a2a',
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: `v03-${process.pid}`,
          role: 'user',
          parts: [{ kind: 'data', data: { order_id: 3 } }],
          metadata: { skill: `${agentId}/refund` },
        },
      },
      {},
    );
    assert.equal(legacy.status, 200, JSON.stringify(legacy.body));
    assert.equal(legacy.body.result.kind, 'task', JSON.stringify(legacy.body));
    assert.equal(legacy.body.result.status.state, 'completed');
    const legacyGet = await rpc('/a2a', 'tasks/get', { id: `v03-${process.pid}` }, {});
    assert.equal(legacyGet.body.result.status.state, 'completed');

    const unknownAgent = await rpc('/a2a/agents/agt_000000000000000000000000', 'GetTask', { id: 'x' });
    assert.equal(unknownAgent.status, 404);
    const readOnly = (await system.keys.create('default', { scopes: ['read'] }, 'a2a-read-only')).key;
    const noScope = await rpc(
      '/a2a',
      'SendMessage',
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      { authorization: `Bearer ${readOnly}`, 'a2a-version': '1.0' },
    );
    assert.equal(noScope.status, 403);
  });

  it("a2a face - an agent's own face: its card names the face, its skill ids send", async () => {
    const card = await request('GET', `${system.baseUrl}/v1/agents/${agentId}/agent-card.json`);
    assert.equal(card.status, 200);
    assert.deepEqual(card.body.supportedInterfaces[0], {
      url: `${system.baseUrl}/a2a/agents/${agentId}`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    assert.deepEqual(Object.keys(card.body.securitySchemes), ['reach_api_key']);
    const wellKnown = await request('GET', `${system.baseUrl}/a2a/agents/${agentId}/.well-known/agent-card.json`);
    assert.deepEqual(wellKnown.body, card.body);
    const sent = await rpc(`/a2a/agents/${agentId}`, 'SendMessage', {
      message: {
        messageId: `own-face-${process.pid}`,
        role: 'ROLE_USER',
        parts: [{ data: { order_id: 4 } }],
        metadata: { skill: 'refund' },
      },
    });
    assert.equal(sent.body.result.task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(sent.body));
    assert.deepEqual(sent.body.result.task.artifacts[0].parts[0].data, { refund_id: 'r-4' });
  });
});
