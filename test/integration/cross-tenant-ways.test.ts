/**
 * Every way in beside the REST routes (which test/integration/security.test.ts probes) walked with a second
 * tenant's credentials, or with none but a Temporal namespace client's: the MCP face, the A2A face, A2A push, a
 * `@temporalio/client` start of the public entry and of the internal workflow types. Nothing of tenant A's is read,
 * changed, cancelled or delivered. (Nexus: test/integration/temporal-callers-nexus*.test.ts, an endpoint is bound
 * to one tenant.)
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { SEND_FAILURES, SEND_MESSAGE_WORKFLOW } from '../../temporal-callers/contract';
import type { MessageInput, MessageStatus } from '../../messages/message';
import { MESSAGE_WORKFLOW, messageWorkflowId, NOTIFY_CALLER_WORKFLOW } from '../../messages/temporal';
import { pushToken } from '../../rules/a2a-push';
import { freePort } from '../../supervisor/dev-servers';
import { eventually } from '../helpers/eventually';
import { acceptAndConfirm, startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request } from '../helpers/http';
import { mcpClient, toolAnswer } from '../helpers/mcp';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;
const stops: (() => Promise<void>)[] = [];
let sequence = 0;
const messageId = (prefix: string) => `${prefix}-${Date.now()}-${++sequence}`;
const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  request(method, `${system.baseUrl}${path}`, body, headers);

/** Tenant A (`default`, the test admin key): an agent that processes, one that stays silent, a message of each. */
const a = {} as {
  echo: { agent_id: string; secret: string };
  echoAgent: FakeAgent;
  silent: { agent_id: string };
  processed: string;
  pending: string;
  input: MessageInput;
};
/** Tenant B: an admin key and an agent with its signing secret. */
const b = {} as { key: string; agent: { agent_id: string; secret: string; signing_secret: string }; keyId: string };
/** Where a forged reply_to notification would land. */
const receiver = { posts: 0, url: '' };

async function endState(id: string, states = ['processed', 'failed', 'rejected', 'cancelled', 'expired']) {
  return eventually(`message ${id} to end`, async () => {
    const status = await api('GET', `/v1/messages/${id}`);
    return states.includes(status.body?.state) ? status.body : undefined;
  });
}

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers, {
    CALLER_WEBHOOK_SECRET: `whsec_${Buffer.from('cross-tenant-ways-secret-0123456789').toString('base64')}`,
  });
  a.echoAgent = await startFakeAgent(acceptAndConfirm);
  stops.push(() => a.echoAgent.stop());
  a.echo = await registerAgent(system.baseUrl, a.echoAgent.url, { name: 'a-echo' });
  a.echoAgent.secret = a.echo.secret;
  const silentAgent = await startFakeAgent(() => ({ status: 202 }));
  stops.push(() => silentAgent.stop());
  a.silent = await registerAgent(system.baseUrl, silentAgent.url, {
    name: 'a-silent',
    capabilities: [{ name: 'echo', ack_timeout_ms: 600_000 }],
  });
  a.processed = messageId('a-processed');
  await api('POST', '/v1/messages', {
    message_id: a.processed,
    target: { agent_id: a.echo.agent_id, capability: 'echo' },
    payload: { secret: 'of A' },
  });
  a.pending = messageId('a-pending');
  await api('POST', '/v1/messages', {
    message_id: a.pending,
    target: { agent_id: a.silent.agent_id, capability: 'echo' },
  });
  await endState(a.processed);
  await endState(a.pending, ['delivered']);
  const history = await system.client.workflow.getHandle(messageWorkflowId('default', a.processed)).fetchHistory();
  a.input = system.client.options.loadedDataConverter.payloadConverter.fromPayload(
    history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!,
  );

  const created = await system.keys.create('tenant-b', { scopes: ['admin'] }, 'test');
  b.key = created.key;
  b.keyId = created.view.key_id;
  const bAgent = await startFakeAgent(acceptAndConfirm);
  stops.push(() => bAgent.stop());
  const registered = await api(
    'POST',
    '/v1/agents',
    { name: 'b-echo', endpoint: bAgent.url, capabilities: [{ name: 'echo' }] },
    { authorization: `Bearer ${b.key}` },
  );
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  b.agent = registered.body;

  const port = await freePort();
  const server: Server = createServer((req, res) => {
    receiver.posts++;
    req.resume();
    res.writeHead(200).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${port}/hook`;
  stops.push(() => new Promise((resolve) => server.close(() => resolve())));
});

after(async () => {
  await Promise.all(stops.map((stop) => stop()));
  await system?.stop();
  await servers?.stop();
});

describe('cross-tenant ways in', () => {
  it("cross-tenant - MCP with B's key: A's message is not found, A's agents are not listed, a send to A's agent is refused", async () => {
    const client = await mcpClient(system.baseUrl, b.key);
    try {
      const status = toolAnswer(
        await client.callTool({ name: 'reach_status', arguments: { message_id: a.processed } }),
      );
      assert.equal(status.isError, true);
      assert.doesNotMatch(JSON.stringify(status.body), /of A/);
      const agents = toolAnswer(await client.callTool({ name: 'reach_search_agents', arguments: {} }));
      assert.ok(!JSON.stringify(agents.body).includes(a.echo.agent_id), 'A’s agent is not listed');
      const sent = toolAnswer(
        await client.callTool({
          name: 'reach_send',
          arguments: { target: { agent_id: a.echo.agent_id, capability: 'echo' }, wait_ms: 0 },
        }),
      );
      assert.equal(sent.isError, true);
      const resources = await client.listResources();
      assert.ok(!JSON.stringify(resources).includes(a.echo.agent_id));
    } finally {
      await client.close();
    }
  });

  it("cross-tenant - A2A face with B's key: A's message is no task of B's, and cannot be cancelled", async () => {
    const asB = { authorization: `Bearer ${b.key}` };
    const versions = { GetTask: '1.0', CancelTask: '1.0', 'tasks/get': '0.3', 'tasks/cancel': '0.3' };
    for (const [method, version] of Object.entries(versions)) {
      const answer = await api(
        'POST',
        '/a2a',
        { jsonrpc: '2.0', id: 1, method, params: { id: a.pending } },
        { ...asB, 'a2a-version': version },
      );
      assert.equal(answer.body.error?.code, -32001, `${method}: ${JSON.stringify(answer.body)}`);
    }
    assert.equal((await api('GET', `/v1/messages/${a.pending}`)).body.state, 'delivered');
  });

  it("cross-tenant - A2A push with B's agent's token for A's message is refused and wakes nothing", async () => {
    for (const [agentId, token] of [
      [a.silent.agent_id, pushToken(b.agent.signing_secret, a.silent.agent_id, a.pending)],
      [b.agent.agent_id, pushToken(b.agent.signing_secret, b.agent.agent_id, a.pending)],
    ] as const) {
      const answer = await api(
        'POST',
        `/a2a/push/${agentId}/${a.pending}`,
        { id: 'task' },
        { authorization: `Bearer ${token}`, 'x-a2a-notification-token': token },
      );
      assert.ok([401, 404].includes(answer.status), `${agentId}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    assert.equal((await api('GET', `/v1/messages/${a.pending}`)).body.state, 'delivered');
  });

  it("cross-tenant - a Temporal client naming tenant A with B's key id is refused before anything starts", async () => {
    const id = messageId('b-as-a');
    const run = system.client.workflow.execute(SEND_MESSAGE_WORKFLOW, {
      workflowId: messageWorkflowId('default', id),
      taskQueue: system.config.TEMPORAL_TASK_QUEUE,
      args: [
        {
          tenant: 'default',
          key_id: b.keyId,
          message_id: id,
          target: { agent_id: a.echo.agent_id, capability: 'echo' },
        },
      ],
    });
    await assert.rejects(run, (error: unknown) => {
      assert.ok(error instanceof WorkflowFailedError);
      assert.ok(error.cause instanceof ApplicationFailure);
      assert.equal(error.cause.type, SEND_FAILURES.unknownKey);
      return true;
    });
  });

  it("cross-tenant - a namespace client starting messageWorkflow with a copy of A's input (caller dropped, another id) delivers nothing", async () => {
    const before = a.echoAgent.deliveries.length;
    const { caller: _dropped, seal: _kept, ...unsealed } = a.input;
    const copies: [string, MessageInput][] = [
      ['no seal, no caller', { ...unsealed, message_id: messageId('forged') }],
      ['the sealed input under another message id', { ...a.input, message_id: messageId('replayed') }],
    ];
    for (const [what, input] of copies) {
      const status: MessageStatus = await system.client.workflow.execute(MESSAGE_WORKFLOW, {
        workflowId: messageWorkflowId(input.tenant, input.message_id),
        taskQueue: system.config.TEMPORAL_TASK_QUEUE,
        args: [input],
      });
      assert.equal(status.state, 'rejected', what);
      assert.match(status.reason!.message, /not built by the gateway/, what);
    }
    assert.equal(a.echoAgent.deliveries.length, before, 'A’s agent received nothing');
  });

  it('cross-tenant - a namespace client starting notifyCallerWorkflow with a made-up outcome has nothing posted', async () => {
    const forged = { ...(await api('GET', `/v1/messages/${a.processed}`)).body, result: { refund: 'done' } };
    const outcome = await system.client.workflow.execute(NOTIFY_CALLER_WORKFLOW, {
      workflowId: `forged-notify-${Date.now()}`,
      taskQueue: system.config.TEMPORAL_TASK_QUEUE,
      args: [{ url: receiver.url, retry_initial_ms: 100, status: forged }],
    });
    assert.deepEqual(outcome, { delivered: false });
    assert.equal(receiver.posts, 0);
  });

  it('cross-tenant - a message sent with reply_to through the api is still notified (the check does not refuse the gateway itself)', async () => {
    const id = messageId('a-reply');
    const sent = await api('POST', '/v1/messages', {
      message_id: id,
      target: { agent_id: a.echo.agent_id, capability: 'echo' },
      reply_to: { url: receiver.url },
    });
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    await eventually('the reply_to notification', async () => (receiver.posts === 1 ? true : undefined));
  });
});
