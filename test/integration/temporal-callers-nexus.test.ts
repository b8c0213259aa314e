/**
 * Temporal-native callers over Nexus (issue 19): a caller's workflow in another namespace, on its own task queue,
 * calls the `agentReach` service's `sendMessage` operation through a Nexus endpoint that targets the gateway's
 * namespace and task queue; the whole system is real (Temporal dev server, FerretDB, worker, api, an HTTP agent).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, NexusOperationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { SEND_MESSAGE_WORKFLOW } from '../../temporal-callers/contract';
import { messageWorkflowId } from '../../messages/temporal';
import { ensureNexusEndpoint } from '../../temporal-callers/nexus/endpoint';
import { NEXUS_SERVICE } from '../../temporal-callers/nexus/service';
import { eventually } from '../helpers/eventually';
import { startCallerNamespace, type CallerNamespace } from '../helpers/caller-namespace';
import { startFakeAgent, type Delivery, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

const TENANT = 'default';
const CALLER_NAMESPACE = 'callers';
const CALLER_QUEUE = 'caller-workflows';
const ENDPOINT = 'agent-reach-test';
let servers: TestServers;
let system: TestSystem;
let agent: FakeAgent;
let agentId: string;
let admin: Connection;
let callers: Client;
let callerNamespace: CallerNamespace;
let sequence = 0;
/** Messages whose receipt the test sends itself (the agent only accepts them). */
const held = new Set<string>();

const newId = (what: string) => `nexus-${what}-${Date.now()}-${++sequence}`;
const deliveriesOf = (messageId: string) => agent.deliveries.filter((d) => d.body.message_id === messageId);
const target = () => ({ agent_id: agentId, capability: 'echo' });

/** Runs a caller workflow in the caller namespace. */
function runCaller(
  workflow: 'nexusCallerWorkflow' | 'bareNexusCallerWorkflow',
  input: Record<string, unknown>,
  callerId = newId('caller'),
) {
  return callers.workflow.execute(workflow, {
    workflowId: callerId,
    taskQueue: CALLER_QUEUE,
    args: [{ tenant: TENANT, ...input }, ENDPOINT],
  });
}

/** The failure a caller ended with: its Nexus operation's failure, and that failure's cause (the run's own). */
async function operationFailureOf(
  run: Promise<unknown>,
): Promise<{ operation: NexusOperationFailure; cause: ApplicationFailure }> {
  const error = await run.then(
    () => assert.fail('the caller should have failed'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof WorkflowFailedError, `a failed caller, not ${String(error)}`);
  assert.ok(error.cause instanceof NexusOperationFailure, `a Nexus operation failure, not ${String(error.cause)}`);
  assert.ok(error.cause.cause instanceof ApplicationFailure, `an ApplicationFailure, not ${String(error.cause.cause)}`);
  return { operation: error.cause, cause: error.cause.cause };
}

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers, { HEARTBEAT_TTL_MS: '3600000' });
  agent = await startFakeAgent((d: Delivery) =>
    held.has(d.body.message_id)
      ? { status: 202 }
      : { status: 202, receipt: { status: 'processed', result: { echoed: d.body.payload } } },
  );
  const registered = await registerAgent(system.baseUrl, agent.url);
  agentId = registered.agent_id;
  agent.secret = registered.secret;

  callerNamespace = await startCallerNamespace(system.config.TEMPORAL_ADDRESS, {
    namespace: CALLER_NAMESPACE,
    taskQueue: CALLER_QUEUE,
    workflowsPath: require.resolve('../helpers/caller-workflows'),
  });
  ({ admin, callers } = callerNamespace);
  await ensureNexusEndpoint(admin, {
    name: ENDPOINT,
    namespace: system.config.TEMPORAL_NAMESPACE,
    taskQueue: system.config.TEMPORAL_TASK_QUEUE,
  });
});

after(async () => {
  await callerNamespace?.stop();
  await agent?.stop();
  await system?.stop();
  await servers?.stop();
});

describe('temporal callers over Nexus', () => {
  it('temporal callers over Nexus - a workflow in another namespace gets the processed result; the run is the api message', async () => {
    const messageId = newId('one');
    const payload = { from: 'another namespace' };
    const result = await runCaller('nexusCallerWorkflow', { message_id: messageId, target: target(), payload });
    assert.equal(result.state, 'processed');
    assert.deepEqual(result.result, { echoed: payload });
    assert.equal(result.message_id, messageId);
    assert.equal(deliveriesOf(messageId).length, 1);

    const shown = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
    assert.equal(shown.status, 200);
    assert.equal(shown.body.state, 'processed');
    const run = await system.client.workflow.getHandle(messageWorkflowId(TENANT, messageId)).describe();
    assert.equal(run.type, SEND_MESSAGE_WORKFLOW);
    assert.equal(run.taskQueue, system.config.TEMPORAL_TASK_QUEUE);
  });

  it('temporal callers over Nexus - the same message id is one run and one delivery: attached while open, answered after it ended', async () => {
    const messageId = newId('repeat');
    held.add(messageId);
    const input = { message_id: messageId, target: target(), payload: { n: 1 } };
    const firstCaller = newId('first');
    const secondCaller = newId('second');
    const first = runCaller('nexusCallerWorkflow', input, firstCaller);
    const delivery = await eventually('the first delivery', async () => deliveriesOf(messageId)[0]);
    // A second caller while the run is open: its operation starts on the same run.
    const second = runCaller('nexusCallerWorkflow', input, secondCaller);
    await eventually('the second operation started', async () => {
      const { events } = await callers.workflow.getHandle(secondCaller).fetchHistory();
      return (
        events?.some((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_NEXUS_OPERATION_STARTED) ||
        undefined
      );
    });
    const receipt = await fetch(delivery.body.callback_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.secret}` },
      body: JSON.stringify({ message_id: messageId, status: 'processed', result: { once: true } }),
    });
    assert.equal(receipt.status, 200);
    const [one, two] = await Promise.all([first, second]);
    assert.deepEqual(one.result, { once: true });
    assert.deepEqual(two, one);

    // A third caller after the run ended: the final status at once, nothing delivered again.
    const third = await runCaller('nexusCallerWorkflow', input);
    assert.deepEqual(third, one);
    // And the same body posted to the api: the existing message.
    const posted = await request('POST', `${system.baseUrl}/v1/messages`, input);
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    assert.equal(posted.body.trace_id, one.trace_id);
    assert.equal(deliveriesOf(messageId).length, 1);
  });

  it('temporal callers over Nexus - without a message id, the Nexus request id makes one', async () => {
    const result = await runCaller('bareNexusCallerWorkflow', { target: target(), payload: 'bare' });
    assert.equal(result.state, 'processed');
    assert.match(result.message_id, /^nexus_[0-9a-f]{32}$/);
    assert.equal(deliveriesOf(result.message_id).length, 1);
    const shown = await request('GET', `${system.baseUrl}/v1/messages/${result.message_id}`);
    assert.equal(shown.body.state, 'processed');
  });

  it('temporal callers over Nexus - bad input fails the operation at once, naming the field, nothing delivered', async () => {
    const before = agent.deliveries.length;
    const bad = { message_id: newId('bad'), target: { agent_id: agentId, capability: 'not a name!' } };
    const badCapability = await operationFailureOf(runCaller('nexusCallerWorkflow', bad));
    assert.equal(badCapability.operation.service, NEXUS_SERVICE);
    assert.equal(badCapability.operation.operation, 'sendMessage');
    assert.equal(badCapability.cause.type, 'invalid_request');
    assert.match(badCapability.cause.message, /target\.capability/);
    // Again after that run failed: the same failure at once, from the ended run.
    const again = await operationFailureOf(runCaller('nexusCallerWorkflow', bad));
    assert.equal(again.cause.type, 'invalid_request');
    assert.equal(again.cause.message, badCapability.cause.message);

    // The endpoint's tenant is the only one: another name is refused by the handler before any run starts.
    const badTenant = await operationFailureOf(
      runCaller('nexusCallerWorkflow', { tenant: 'Not A Tenant', message_id: newId('bad-tenant'), target: target() }),
    );
    assert.equal(badTenant.cause.type, 'tenant_mismatch');
    assert.match(badTenant.cause.message, /tenant default only/);

    const unknown = await operationFailureOf(
      runCaller('nexusCallerWorkflow', {
        message_id: newId('unknown'),
        target: { agent_id: 'agt_000000000000000000000000', capability: 'echo' },
      }),
    );
    assert.equal(unknown.cause.type, 'agent_not_found');
    assert.equal(agent.deliveries.length, before, 'nothing delivered');
  });
});
