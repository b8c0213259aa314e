/**
 * Temporal-native callers (issue 19): a message started on the `sendMessage` workflow from a Temporal client, or
 * as a child of a caller's own workflow, against the whole system (real Temporal dev server, FerretDB, worker, api).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { executeMessage, sendMessage, sentAsKey } from '../../temporal-callers/client';
import { legacyKeyProof } from '../../rules/api-key';
import { SEND_MESSAGE_WORKFLOW } from '../../temporal-callers/contract';
import type { MessageMemo } from '../../messages/runs';
import { messageWorkflowId, statusQuery } from '../../messages/temporal';
import { startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request } from '../helpers/http';
import type { TestSystem } from '../helpers/system';
import { startSystemWithAgent, type SystemWithAgent } from '../helpers/system-with-agent';

const TENANT = 'default';
let world: SystemWithAgent | undefined;
let system: TestSystem;
let agent: FakeAgent;
let agentId: string;
let sequence = 0;

const newId = (what: string) => `native-${what}-${Date.now()}-${++sequence}`;
const taskQueue = () => ({ taskQueue: system.config.TEMPORAL_TASK_QUEUE });
const deliveriesOf = (messageId: string) => agent.deliveries.filter((d) => d.body.message_id === messageId);

/** The failure a run ended with: the ApplicationFailure the workflow threw. */
async function failureOf(run: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await run.then(
    () => assert.fail('the run should have failed'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof WorkflowFailedError, `a failed run, not ${String(error)}`);
  assert.ok(error.cause instanceof ApplicationFailure, `an ApplicationFailure, not ${String(error.cause)}`);
  return error.cause;
}

before(async () => {
  world = await startSystemWithAgent({
    env: { HEARTBEAT_TTL_MS: '3600000' },
    behaviour: (d) => ({ status: 202, receipt: { status: 'processed', result: { echoed: d.body.payload } } }),
  });
  ({ system, agent, agentId } = world);
});

after(() => world?.stop());

describe('temporal callers - sendMessage started from a Temporal client', () => {
  it('temporal callers - delivered, processed with the agent result, visible on the api; a repeat POST is a duplicate', async () => {
    const messageId = newId('direct');
    const payload = { text: 'hello from Temporal' };
    const body = { message_id: messageId, target: { agent_id: agentId, capability: 'echo' }, payload };
    const started = await sendMessage(system.client, { tenant: TENANT, ...body }, taskQueue());
    assert.equal(started.started, true);
    assert.equal(started.handle.workflowId, messageWorkflowId(TENANT, messageId));
    // Answered from the first workflow task on (provisional until the input is prepared).
    assert.equal((await started.handle.query(statusQuery)).message_id, messageId);
    const status = await started.handle.result();
    assert.equal(status.state, 'processed');
    assert.deepEqual(status.result, { echoed: payload });
    assert.equal(status.message_id, messageId);
    assert.equal(deliveriesOf(messageId).length, 1);

    // The api sees it like any other message.
    const shown = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
    assert.equal(shown.status, 200);
    assert.equal(shown.body.state, 'processed');
    assert.deepEqual(shown.body.result, { echoed: payload });
    const description = await started.handle.describe();
    assert.equal(description.type, SEND_MESSAGE_WORKFLOW);
    assert.equal((description.memo as Partial<MessageMemo>).trace_id, status.trace_id);

    // The same message posted to the api: the one existing run, no second delivery.
    const posted = await request('POST', `${system.baseUrl}/v1/messages`, body);
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    assert.equal(posted.body.state, 'processed');
    // Started again from Temporal: the same run, still one delivery.
    const again = await sendMessage(system.client, { tenant: TENANT, ...body }, taskQueue());
    assert.equal(again.started, false);
    assert.equal((await again.handle.result()).state, 'processed');
    assert.equal(deliveriesOf(messageId).length, 1);
  });

  it('temporal callers - a message the api accepted first is the run a direct start finds', async () => {
    const messageId = newId('api-first');
    const body = { message_id: messageId, target: { agent_id: agentId, capability: 'echo' }, payload: { n: 1 } };
    const posted = await request('POST', `${system.baseUrl}/v1/messages`, body);
    assert.equal(posted.status, 202);
    const status = await executeMessage(system.client, { tenant: TENANT, ...body }, taskQueue());
    assert.equal(status.state, 'processed');
    assert.equal(deliveriesOf(messageId).length, 1);
  });

  it('temporal callers - bad input fails at once, non-retryable, naming the field, nothing delivered', async () => {
    const before = agent.deliveries.length;
    const messageId = newId('bad');
    const startedAt = Date.now();
    const failure = await failureOf(
      executeMessage(
        system.client,
        { tenant: TENANT, message_id: messageId, target: { agent_id: agentId, capability: 'not a name!' } },
        taskQueue(),
      ),
    );
    assert.equal(failure.type, 'invalid_request');
    assert.equal(failure.nonRetryable, true);
    assert.match(failure.message, /target\.capability/);
    assert.ok(Date.now() - startedAt < 10_000, 'failed fast');

    const unknown = await failureOf(
      executeMessage(
        system.client,
        { tenant: TENANT, target: { agent_id: 'agt_000000000000000000000000', capability: 'echo' } },
        taskQueue(),
      ),
    );
    assert.equal(unknown.type, 'agent_not_found');

    const badIntent = await failureOf(executeMessage(system.client, { tenant: TENANT, intent: '' }, taskQueue()));
    assert.equal(badIntent.type, 'invalid_request');

    const mismatch = await failureOf(
      system.client.workflow.execute(SEND_MESSAGE_WORKFLOW, {
        workflowId: `not-a-message-id-${messageId}`,
        taskQueue: system.config.TEMPORAL_TASK_QUEUE,
        args: [{ tenant: TENANT, message_id: messageId, target: { agent_id: agentId, capability: 'echo' } }],
      }),
    );
    assert.equal(mismatch.type, 'workflow_id_mismatch');
    assert.equal(agent.deliveries.length, before, 'nothing delivered');
  });
});

describe('temporal callers - routed by intent', () => {
  it('temporal callers - an intent-only start is routed as the api routes it, by the api replica, and processed', async () => {
    const refunds = await startFakeAgent((d) => ({
      status: 202,
      receipt: { status: 'processed', result: { refunded: d.body.params } },
    }));
    after(() => refunds.stop());
    const registered = await registerAgent(system.baseUrl, refunds.url, {
      name: `refund-agent-${Date.now()}`,
      capabilities: [
        {
          name: 'request_refund',
          description: '申请退款：订单的钱退回给买家。Refund an order to the buyer.',
          tags: ['退款', 'refund'],
          examples: ['我要退款，订单2024090112', 'please refund order 2024090112'],
          parameters: {
            type: 'object',
            required: ['order_id'],
            properties: { order_id: { type: 'string', pattern: '^\\d{8,20}$' } },
          },
        },
      ],
    });
    refunds.secret = registered.secret;
    const intent = '我要退款，订单2024090112';

    const direct = await executeMessage(
      system.client,
      { tenant: TENANT, message_id: newId('routed'), intent },
      taskQueue(),
    );
    const viaApi = await request('POST', `${system.baseUrl}/v1/messages?wait=30s`, {
      message_id: newId('routed-api'),
      intent,
    });
    assert.equal(direct.state, 'processed', JSON.stringify(direct.reason));
    assert.deepEqual(direct.target, { agent_id: registered.agent_id, capability: 'request_refund' });
    assert.deepEqual(direct.result, { refunded: { order_id: '2024090112' } });
    // Routed like the api routes the same intent: same capability, same parameters, same kind of decision.
    assert.equal(viaApi.body.state, 'processed', JSON.stringify(viaApi.body));
    assert.deepEqual(viaApi.body.target, direct.target);
    assert.deepEqual(viaApi.body.result, direct.result);
    assert.equal(viaApi.body.routing?.decided_by, direct.routing?.decided_by);
    assert.equal(refunds.deliveries.length, 2);
  });

  it('temporal callers - an intent nothing fits is recorded rejected, as on the api, and nothing is delivered', async () => {
    const before = agent.deliveries.length;
    const messageId = newId('no-route');
    const status = await executeMessage(
      system.client,
      { tenant: TENANT, message_id: messageId, intent: 'zzzz qqqq xxxx' },
      taskQueue(),
    );
    assert.equal(status.state, 'rejected');
    assert.ok(
      status.reason && ['no_route', 'no_eligible_capability', 'ambiguous'].includes(status.reason.code),
      JSON.stringify(status.reason),
    );
    const shown = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
    assert.equal(shown.body.state, 'rejected');
    assert.equal(agent.deliveries.length, before);
  });
});

describe('temporal callers - trust', () => {
  it('temporal callers - a capability with an ACL refuses a start without a key_id, and takes one with a key it admits', async () => {
    const restrictedAgent = await startFakeAgent((d) => ({
      status: 202,
      receipt: { status: 'processed', result: { billed: d.body.payload } },
    }));
    after(() => restrictedAgent.stop());
    const restricted = await registerAgent(system.baseUrl, restrictedAgent.url, {
      capabilities: [{ name: 'echo', acl: { scopes: ['billing'] } }],
    });
    restrictedAgent.secret = restricted.secret;
    const target = { agent_id: restricted.agent_id, capability: 'echo' };
    const billing = (await system.keys.create(TENANT, { scopes: ['send', 'billing'] }, 'test')).view.key_id;
    const readOnly = (await system.keys.create(TENANT, { scopes: ['read', 'billing'] }, 'test')).view.key_id;

    const anonymous = await failureOf(
      executeMessage(system.client, { tenant: TENANT, target, payload: 1 }, taskQueue()),
    );
    assert.equal(anonymous.type, 'capability_forbidden');
    const noSend = await failureOf(
      executeMessage(system.client, { tenant: TENANT, key_id: readOnly, target, payload: 1 }, taskQueue()),
    );
    assert.equal(noSend.type, 'insufficient_scope');
    const unknown = await failureOf(
      executeMessage(system.client, { tenant: TENANT, key_id: '0123456789ab', target, payload: 1 }, taskQueue()),
    );
    assert.equal(unknown.type, 'unknown_key');

    const messageId = newId('keyed');
    const status = await executeMessage(
      system.client,
      { tenant: TENANT, key_id: billing, message_id: messageId, target, payload: 7 },
      taskQueue(),
    );
    assert.equal(status.state, 'processed', JSON.stringify(status.reason));
    assert.deepEqual(status.result, { billed: 7 });
    assert.equal(restrictedAgent.deliveries.length, 1, 'only the keyed start was delivered');
  });
});

describe('temporal callers - key proofs', () => {
  it('temporal callers - a key proof sends its own body only; GET /v1/keys shows new keys bound', async () => {
    const target = { agent_id: agentId, capability: 'echo' };
    const made = await system.keys.create(TENANT, { scopes: ['send'] }, 'test');
    const input = sentAsKey({ tenant: TENANT, message_id: newId('proof'), target, payload: { amount: 10 } }, made.key);
    const status = await executeMessage(system.client, input, taskQueue());
    assert.equal(status.state, 'processed');
    // The proof under another message id, or with another body, or another message's proof: refused, nothing delivered.
    const otherBody = {
      ...input,
      message_id: newId('proof-body'),
      key_proof: sentAsKey({ ...input, message_id: 'x' }, made.key).key_proof,
    };
    const anotherId = { ...input, message_id: newId('proof-id') };
    assert.equal((await failureOf(executeMessage(system.client, anotherId, taskQueue()))).type, 'invalid_key_proof');
    assert.equal((await failureOf(executeMessage(system.client, otherBody, taskQueue()))).type, 'invalid_key_proof');
    const changed = {
      ...sentAsKey({ tenant: TENANT, message_id: newId('proof-payload'), target, payload: { amount: 10 } }, made.key),
      payload: { amount: 10_000 },
    };
    assert.equal((await failureOf(executeMessage(system.client, changed, taskQueue()))).type, 'invalid_key_proof');
    assert.equal(
      deliveriesOf(anotherId.message_id).length +
        deliveriesOf(otherBody.message_id).length +
        deliveriesOf(changed.message_id).length,
      0,
    );
    const listed = await request('GET', `${system.baseUrl}/v1/keys`);
    assert.equal(listed.body.items.find((k: { key_id: string }) => k.key_id === made.view.key_id).proofs, 'bound');
  });

  it('temporal callers - a key from before bound proofs keeps its id-only proof, flagged legacy until rotated', async () => {
    const made = await system.keys.create(TENANT, { scopes: ['send'] }, 'test');
    // As stored by an earlier version: no proof public key.
    await system.mongo
      .collection('api_keys')
      .updateOne({ _id: made.view.key_id as never }, { $unset: { proof_public_key: '' } });
    const listed = await request('GET', `${system.baseUrl}/v1/keys`);
    assert.equal(listed.body.items.find((k: { key_id: string }) => k.key_id === made.view.key_id).proofs, 'legacy');
    const messageId = newId('legacy');
    const input = {
      tenant: TENANT,
      message_id: messageId,
      target: { agent_id: agentId, capability: 'echo' },
      key_id: made.view.key_id,
      key_proof: legacyKeyProof(made.key, TENANT, messageId)!,
    };
    const status = await executeMessage(system.client, input, taskQueue());
    assert.equal(status.state, 'processed');
  });
});

describe('temporal callers - sendMessage as a child of a caller workflow', () => {
  it('temporal callers - a caller workflow on its own task queue gets the processed result', async () => {
    const callerQueue = `${system.config.TEMPORAL_TASK_QUEUE}-caller`;
    const connection = await NativeConnection.connect({ address: system.config.TEMPORAL_ADDRESS });
    after(() => connection.close());
    const worker = await Worker.create({
      connection,
      taskQueue: callerQueue,
      workflowsPath: require.resolve('../helpers/caller-workflows'),
    });
    const messageId = newId('child');
    const bad = newId('child-bad');
    const payload = { from: 'a caller workflow' };
    const runCaller = (id: string, input: Record<string, unknown>) =>
      system.client.workflow.execute('callerWorkflow', {
        workflowId: `caller-${id}`,
        taskQueue: callerQueue,
        args: [
          { tenant: TENANT, message_id: id, target: { agent_id: agentId, capability: 'echo' }, ...input },
          system.config.TEMPORAL_TASK_QUEUE,
        ],
      });
    // One worker run for both callers (a worker runs once).
    const [result, error] = await worker.runUntil(async () =>
      Promise.all([
        runCaller(messageId, { payload }),
        // Bad input fails the child at once, and with it the caller (which does not catch it).
        runCaller(bad, { deadline: 'tomorrow' }).catch((e: unknown) => e),
      ]),
    );
    assert.deepEqual(result, { state: 'processed', result: { echoed: payload }, message_id: messageId });
    assert.equal(deliveriesOf(messageId).length, 1);
    const shown = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
    assert.equal(shown.body.state, 'processed');

    assert.ok(error instanceof WorkflowFailedError, String(error));
    const childFailure = (error.cause as { cause?: Error })?.cause;
    assert.ok(childFailure instanceof ApplicationFailure, String(childFailure));
    assert.equal(childFailure.type, 'invalid_request');
    assert.match(childFailure.message, /deadline/);
    assert.equal(deliveriesOf(bad).length, 0);
  });
});
