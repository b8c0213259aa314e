/**
 * One door, inside the namespace (issue 42): a foreign party's workflow — its own code on its own task queue, named
 * like the gateway's own types or not — schedules each gateway activity on the gateway's queues with inputs of its
 * own making. Each is refused before it reads, sends, signs, settles or records anything: no delivery, no post, no
 * circuit opened, no ranking statistic, no misroute lesson. Against the whole system (real Temporal dev server,
 * FerretDB, worker, api).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { MessageInput, MessageStatus } from '../../messages/message';
import { routingTaskQueue } from '../../temporal-callers/contract';
import { eventually } from '../helpers/eventually';
import { startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { request } from '../helpers/http';
import type { ForeignAttempt, ForeignOutcome } from '../helpers/foreign-workflows';
import { startSystemWithAgent, type SystemWithAgent } from '../helpers/system-with-agent';

const TENANT = 'default';
let world: SystemWithAgent;
let receiver: FakeAgent;
let worker: Worker;
let workerRun: Promise<void>;
let connection: NativeConnection;
let foreignQueue: string;
let instanceId: string;
let legit: { message_id: string; status: MessageStatus };
let sequence = 0;

const gatewayQueue = () => world.system.config.TEMPORAL_TASK_QUEUE;
const api = (method: string, path: string, body?: unknown) => request(method, `${world.system.baseUrl}${path}`, body);

/** A message input as the gateway would build it, but not built (nor sealed) by the gateway; no caller, so no ACL. */
function forgedMessage(messageId: string): MessageInput {
  return {
    tenant: TENANT,
    message_id: messageId,
    trace_id: 'f'.repeat(32),
    target: { agent_id: world.agentId, capability: 'refund' },
    callback_url: `${world.system.baseUrl}/v1/callback`,
    accepted_at: new Date().toISOString(),
    payload: { amount: 1_000_000 },
    policy: {
      maxAttempts: 1,
      initialBackoffMs: 10,
      maxBackoffMs: 10,
      attemptTimeoutMs: 2000,
      defaultAckTimeoutMs: 1000,
    },
  };
}

/** Runs the foreign workflow `workflowType` on the foreign queue: it schedules `activity` on `taskQueue`. */
async function forge(workflowType: string, attempt: ForeignAttempt): Promise<ForeignOutcome> {
  return world.system.client.workflow.execute(workflowType, {
    workflowId: `msg:${TENANT}:forged-${Date.now()}-${++sequence}`,
    taskQueue: foreignQueue,
    args: [attempt],
    workflowExecutionTimeout: '1m',
  });
}

/** The foreign run was refused, as a foreign caller (or a refused notification), with nothing done. */
function assertRefused(outcome: ForeignOutcome, type = 'foreign_caller'): void {
  assert.equal(outcome.ok, false, `refused, not ${JSON.stringify(outcome)}`);
  assert.equal(outcome.type, type, JSON.stringify(outcome));
}

const deliveriesTo = (agent: FakeAgent) => agent.deliveries.length;

before(async () => {
  world = await startSystemWithAgent({
    env: {
      HEARTBEAT_TTL_MS: '3600000',
      CALLER_WEBHOOK_SECRET: `whsec_${Buffer.from('foreign-activities-test-secret-0123').toString('base64')}`,
      CALLER_WEBHOOK_RETRY_INITIAL_MS: '100',
    },
    registration: {
      capabilities: [
        { name: 'refund', description: 'Refunds an order', acl: { scopes: ['refunds'] } },
        { name: 'echo', description: 'Echoes' },
      ],
    },
    behaviour: (d) => ({ status: 202, receipt: { status: 'processed', result: { ok: d.body.message_id } } }),
  });
  receiver = await startFakeAgent(() => ({ status: 204 }));
  foreignQueue = `${gatewayQueue()}-foreign`;
  connection = await NativeConnection.connect({ address: world.system.config.TEMPORAL_ADDRESS });
  worker = await Worker.create({
    connection,
    taskQueue: foreignQueue,
    workflowsPath: require.resolve('../helpers/foreign-workflows'),
  });
  workerRun = worker.run();
  // One message the gateway did send, with a reply_to: the forger below names its run and its URL.
  const messageId = `legit-${Date.now()}`;
  const sent = await api('POST', '/v1/messages', {
    message_id: messageId,
    target: { agent_id: world.agentId, capability: 'echo' },
    reply_to: { url: receiver.url },
  });
  assert.equal(sent.status, 202, JSON.stringify(sent.body));
  const status = await eventually('the legit message to end', async () => {
    const shown = await api('GET', `/v1/messages/${messageId}`);
    return shown.body?.state === 'processed' ? (shown.body as MessageStatus) : undefined;
  });
  await eventually('its reply_to notice', async () => (receiver.deliveries.length === 1 ? true : undefined));
  legit = { message_id: messageId, status };
  instanceId = status.attempts[0]!.instance_id!;
});

after(async () => {
  worker?.shutdown();
  await workerRun;
  await connection?.close();
  await receiver?.stop();
  await world?.stop();
});

describe('foreign activities - a foreign workflow scheduling the gateway activities changes nothing', () => {
  it('foreign activities - resolveAndDeliver (no caller, an early made-up run start) delivers nothing to a capability whose ACL needs a scope', async () => {
    const before = deliveriesTo(world.agent);
    const id = `forged-rd-${Date.now()}`;
    const outcome = await forge('leanMessageWorkflow', {
      taskQueue: gatewayQueue(),
      activity: 'resolveAndDeliver',
      args: [
        {
          tenant: TENANT,
          target: { agent_id: world.agentId, capability: 'refund' },
          message: forgedMessage(id),
          attempt: 1,
          run: { workflow_id: `msg:${TENANT}:${id}`, started_at: '2020-01-01T00:00:00.000Z' },
        },
      ],
    });
    assertRefused(outcome);
    assert.equal(deliveriesTo(world.agent), before);
  });

  it('foreign activities - deliver (an endpoint of its own choosing) sends and signs nothing', async () => {
    const before = deliveriesTo(receiver);
    const outcome = await forge('messageWorkflow', {
      taskQueue: gatewayQueue(),
      activity: 'deliver',
      args: [
        {
          message: forgedMessage(`forged-d-${Date.now()}`),
          target: {
            agent_id: world.agentId,
            capability: 'refund',
            instance_id: instanceId,
            transport: 'http',
            endpoint: receiver.url,
          },
          attempt: 1,
        },
      ],
    });
    assertRefused(outcome);
    assert.equal(deliveriesTo(receiver), before, 'no signed request reached the endpoint');
  });

  it('foreign activities - notifyCancel sends and signs nothing', async () => {
    const before = deliveriesTo(receiver);
    const outcome = await forge('leanMessageWorkflow', {
      taskQueue: gatewayQueue(),
      activity: 'notifyCancel',
      args: [{ message: forgedMessage(`forged-nc-${Date.now()}`), agent_id: world.agentId, endpoint: receiver.url }],
    });
    assertRefused(outcome);
    assert.equal(deliveriesTo(receiver), before);
  });

  it('foreign activities - notifyCaller (a made-up processed outcome, an early start, a real message run named as its parent) posts nothing', async () => {
    const before = deliveriesTo(receiver);
    const description = await world.system.client.workflow.getHandle(`msg:${TENANT}:${legit.message_id}`).describe();
    for (const workflowType of ['notifyCallerWorkflow', 'forger']) {
      const outcome = await forge(workflowType, {
        taskQueue: gatewayQueue(),
        activity: 'notifyCaller',
        args: [
          {
            url: receiver.url,
            status: { ...legit.status, result: { refunded: 1_000_000 } },
            run_started_at: '2020-01-01T00:00:00.000Z',
            parent: { workflow_id: description.workflowId, run_id: description.runId },
          },
        ],
      });
      assertRefused(outcome, 'NotificationRefused');
    }
    assert.equal(deliveriesTo(receiver), before, 'no signed notice was posted');
  });

  it('foreign activities - recordMissingReceipt, six times, opens no circuit: the agent still gets the next message', async () => {
    for (let i = 0; i < 6; i++) {
      assertRefused(
        await forge('leanMessageWorkflow', {
          taskQueue: gatewayQueue(),
          activity: 'recordMissingReceipt',
          args: [{ agent_id: world.agentId, instance_id: instanceId }],
        }),
      );
    }
    const messageId = `after-forged-receipts-${Date.now()}`;
    const sent = await api('POST', '/v1/messages?wait=10s', {
      message_id: messageId,
      target: { agent_id: world.agentId, capability: 'echo' },
    });
    assert.equal(sent.body.state, 'processed', JSON.stringify(sent.body));
    assert.equal(sent.body.attempts.length, 1);
  });

  it('foreign activities - settleMessage records no ranking statistic and touches no circuit', async () => {
    const stats = world.system.mongo.collection('routing_stats');
    const count = async () => stats.countDocuments({ agent_id: world.agentId, capability: 'refund' });
    const before = await count();
    const outcome = await forge('leanMessageWorkflow', {
      taskQueue: gatewayQueue(),
      activity: 'settleMessage',
      args: [
        {
          agent_id: world.agentId,
          capability: 'refund',
          instance_id: instanceId,
          receipt_came: false,
          processed: false,
          latency_ms: 600_000,
        },
      ],
    });
    assertRefused(outcome);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // past the worker's statistics flush (500 ms here)
    assert.equal(await count(), before);
  });

  it("foreign activities - the lookups and a chain's checks answer a foreign run nothing", async () => {
    const lookups: [string, unknown[]][] = [
      ['resolveTarget', [{ tenant: TENANT, target: { agent_id: world.agentId, capability: 'refund' } }]],
      [
        'pollA2aTask',
        [{ agent_id: world.agentId, endpoint: receiver.url, task_id: 't-1', message: forgedMessage('forged-poll') }],
      ],
      [
        'prepareChain',
        [
          {
            tenant: TENANT,
            chain_id: 'forged-chain',
            steps: [{ id: 'a', target: { agent_id: world.agentId, capability: 'refund' } }],
          },
        ],
      ],
      ['capabilityParameters', [{ tenant: TENANT, agent_id: world.agentId, capability: 'refund' }]],
      [
        'mapChainStep',
        [
          {
            tenant: TENANT,
            chain_id: 'forged-chain',
            document: { input: {}, steps: {} },
            referenced: { a: `forged-chain:a` },
          },
        ],
      ],
    ];
    for (const [activity, args] of lookups) {
      assertRefused(await forge('leanMessageWorkflow', { taskQueue: gatewayQueue(), activity, args }));
    }
    assert.equal(deliveriesTo(receiver), 1, 'only the legit notice');
  });

  it('foreign activities - prepareMessage (worker and api routing queue) seals nothing for a foreign run', async () => {
    const input = {
      tenant: TENANT,
      message_id: `forged-pm-${Date.now()}`,
      target: { agent_id: world.agentId, capability: 'echo' },
    };
    for (const taskQueue of [gatewayQueue(), routingTaskQueue(gatewayQueue())]) {
      for (const workflowType of ['sendMessage', 'runChain']) {
        const outcome = await forge(workflowType, {
          taskQueue,
          activity: 'prepareMessage',
          args: [input, { parent: { workflow_id: 'chain:default:x', run_id: 'r' } }],
        });
        assertRefused(outcome);
      }
    }
  });

  it('foreign activities - rerouteMessage on the api routing queue records no misroute lesson', async () => {
    const misroutes = world.system.mongo.collection('misroutes');
    const before = await misroutes.countDocuments({});
    const outcome = await forge('leanMessageWorkflow', {
      taskQueue: routingTaskQueue(gatewayQueue()),
      activity: 'rerouteMessage',
      args: [
        {
          tenant: TENANT,
          message_id: legit.message_id,
          intent: 'refund everything',
          misrouted: `${world.agentId}/echo`,
          exclude: [`${world.agentId}/echo`],
        },
      ],
    });
    assertRefused(outcome);
    assert.equal(await misroutes.countDocuments({}), before);
  });
});
