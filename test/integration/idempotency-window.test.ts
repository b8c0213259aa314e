/**
 * The idempotency window: the namespace keeps closed runs for IDEMPOTENCY_WINDOW_MS (set as embedded mode sets it),
 * the api can tell when it does not, and a message id repeated inside the window, after its message ended, starts
 * nothing: the same message comes back (200), another body is 409, the agent got one delivery, Temporal holds one run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { namespaceRetentionMs, retentionShortfall, setNamespaceRetention } from '../../messages/idempotency-window';
import { messageWorkflowId } from '../../messages/temporal';
import { eventually } from '../helpers/eventually';
import { acceptAndConfirm, startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;
let agent: FakeAgent;

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers);
  agent = await startFakeAgent(acceptAndConfirm);
});

after(async () => {
  await agent?.stop();
  await system?.stop();
  await servers?.stop();
});

describe('idempotency window', () => {
  it('idempotency window - the namespace retention is set to the window, and a shorter one is reported', async () => {
    const service = system.client.connection.workflowService;
    const { TEMPORAL_NAMESPACE: namespace, IDEMPOTENCY_WINDOW_MS: window } = system.config;
    assert.equal(window, 7 * 86_400_000, 'the default window is 7 days');
    await setNamespaceRetention(service, namespace, window);
    assert.equal(await namespaceRetentionMs(service, namespace), window);
    assert.equal(await retentionShortfall(service, namespace, window), undefined);
    assert.match(
      (await retentionShortfall(service, namespace, 30 * 86_400_000)) ?? '',
      /keeps closed runs 168 h, less than IDEMPOTENCY_WINDOW_MS \(720 h\)/,
    );
  });

  it('idempotency window - a repeat after the message ended, inside the window, starts nothing', async () => {
    const registered = await registerAgent(system.baseUrl, agent.url, { name: 'window-echo' });
    agent.secret = registered.secret;
    const messageId = `window-${Date.now()}`;
    const body = {
      message_id: messageId,
      target: { agent_id: registered.agent_id, capability: 'echo' },
      payload: { n: 1 },
    };
    assert.equal((await request('POST', `${system.baseUrl}/v1/messages`, body)).status, 202);
    await eventually('processed', async () => {
      const status = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
      return status.body.state === 'processed' ? true : undefined;
    });
    const repeat = await request('POST', `${system.baseUrl}/v1/messages`, body);
    assert.equal(repeat.status, 200);
    assert.equal(repeat.body.state, 'processed');
    const other = await request('POST', `${system.baseUrl}/v1/messages`, { ...body, payload: { n: 2 } });
    assert.equal(other.status, 409);
    assert.equal(other.body.error.code, 'idempotency_conflict');
    assert.equal(
      agent.deliveries.filter((d) => (d.body as { message_id?: string }).message_id === messageId).length,
      1,
    );
    const workflowId = messageWorkflowId('default', messageId);
    const runs = await eventually('the run in visibility', async () => {
      const found = [];
      for await (const run of system.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
        found.push(run.runId);
      return found.length > 0 ? found : undefined;
    });
    assert.equal(runs.length, 1);
  });
});
