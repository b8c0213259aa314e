/**
 * The wall is the namespace (cluster mode, docs/cluster.md): Temporal's own authorization with the cluster's tokens.
 * A tenant holding a token for its own namespace only (admin there) can neither start, signal, terminate nor read a
 * run of the gateway's namespace, nor poll its task queues: Temporal refuses each call (PermissionDenied). From its
 * own namespace it sends a message through its Nexus endpoint and gets the outcome; a Nexus operation without a
 * valid credential for that tenant is refused before any run is started or any message read.
 * Without HAProxy or PostgreSQL it skips, saying what to install.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { Client, Connection, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure, NexusOperationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../../platform/config';
import { messageWorkflowId } from '../../messages/temporal';
import { configKeyEntry } from '../../rules/config-keys';
import type { Cluster } from '../../supervisor/cluster/start-cluster';
import { prepareNamespace } from '../../supervisor/cluster/temporal-server';
import { sentAsKey, type SendMessageInput } from '../../temporal-callers/client';
import { ensureNexusEndpoint } from '../../temporal-callers/nexus/endpoint';
import { nexusTaskQueue } from '../../platform/temporal-names';
import { adminConnection, startTestCluster, workerConnection } from '../helpers/cluster';
import { eventually } from '../helpers/eventually';
import { startFakeAgent, type Delivery, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request, TEST_API_KEY } from '../helpers/http';
import { clusterSkip } from '../helpers/system-packages';

const { EventType } = temporal.api.enums.v1;
/** gRPC's PERMISSION_DENIED: what Temporal's authorizer answers. */
const PERMISSION_DENIED = 7;
const TENANT = 'tenant-a';
/** The tenant's API key in the gateway (config key), with which its callers prove who they are. */
const TENANT_KEY = `rk_7e57ab1e00a1_${'A'.repeat(43)}`;
const TENANT_ENDPOINT = 'agent-reach-tenant-a';
const CALLER_QUEUE = 'tenant-a-callers';
// The gateway's namespace and task queue, as the cluster's processes have them (the defaults).
const { TEMPORAL_NAMESPACE: GATEWAY, TEMPORAL_TASK_QUEUE: GATEWAY_QUEUE } = loadConfig({});
const ROOT = join(__dirname, '../..');

let cluster: Cluster;
let admin: Connection;
/** The tenant's connections and client: their token (`npm run temporal-token`) grants `tenant-a:admin` and nothing else. */
let tenantConnection: Connection;
let tenantWorkerConnection: NativeConnection;
let tenantClient: Client;
let callerWorker: Worker;
let callerWorkerRun: Promise<void>;
/** One agent in the gateway's default tenant, one in the tenant (a receipt carries its own agent's secret). */
let gatewayAgent: FakeAgent;
let tenantAgent: FakeAgent;
let tenantAgentId = '';
let gatewayAgentId = '';
/** Messages the agent accepts without a receipt: their runs stay open until the test sends it. */
const held = new Set<string>();
let sequence = 0;
const newId = (what: string) => `wall-${what}-${++sequence}`;

function grpcCode(error: unknown): unknown {
  for (let e = error; e; e = (e as { cause?: unknown }).cause) {
    if (typeof (e as { code?: unknown }).code === 'number') return (e as { code: number }).code;
  }
  return undefined;
}

async function refusedByTemporal(what: string, call: () => Promise<unknown>): Promise<void> {
  const error = await call().then(
    () => assert.fail(`${what}: Temporal allowed it`),
    (e: unknown) => e,
  );
  assert.equal(grpcCode(error), PERMISSION_DENIED, `${what}: not PermissionDenied but ${String(error)}`);
}

/** The status of the run of a message in the gateway's namespace, or `none`. */
async function runStatus(tenant: string, messageId: string): Promise<string> {
  const client = new Client({ connection: admin, namespace: GATEWAY });
  try {
    return (await client.workflow.getHandle(messageWorkflowId(tenant, messageId)).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 'none';
    throw error;
  }
}

function sendThroughNexus(input: SendMessageInput, callerId = newId('caller')) {
  return tenantClient.workflow.execute('nexusCallerWorkflow', {
    workflowId: callerId,
    taskQueue: CALLER_QUEUE,
    args: [input, TENANT_ENDPOINT],
  });
}

/** The refusal a caller's Nexus operation ended with, and whether the operation ever started. */
async function nexusRefusal(input: SendMessageInput): Promise<{ type: string | undefined; started: boolean }> {
  const callerId = newId('refused');
  const error = await sendThroughNexus(input, callerId).then(
    () => assert.fail('the caller should have failed'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof WorkflowFailedError, `a failed caller, not ${String(error)}`);
  assert.ok(error.cause instanceof NexusOperationFailure, `a Nexus operation failure, not ${String(error.cause)}`);
  assert.ok(error.cause.cause instanceof ApplicationFailure, `an ApplicationFailure, not ${String(error.cause.cause)}`);
  const events = (await tenantClient.workflow.getHandle(callerId).fetchHistory()).events ?? [];
  return {
    type: error.cause.cause.type ?? undefined,
    started: events.some((e) => e.eventType === EventType.EVENT_TYPE_NEXUS_OPERATION_STARTED),
  };
}

/** A token from the documented command, `npm run temporal-token -- …`, with the cluster's data folder. */
async function tokenCommand(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'scripts/temporal-token.ts'), ...args, '--data-dir', cluster.dataDir],
    { cwd: ROOT },
  );
  return stdout.trim();
}

const deliveriesOf = (messageId: string) =>
  [...gatewayAgent.deliveries, ...tenantAgent.deliveries].filter((d) => d.body.message_id === messageId);

/** An agent registered with `apiKey`: it holds the receipt of `held` messages, and confirms the others. */
async function agentOf(apiKey: string): Promise<{ agent: FakeAgent; agentId: string }> {
  const agent = await startFakeAgent((d: Delivery) =>
    held.has(d.body.message_id)
      ? { status: 202 }
      : { status: 202, receipt: { status: 'processed', result: { echoed: d.body.payload } } },
  );
  const registered = await registerAgent(cluster.url, agent.url, {}, { authorization: `Bearer ${apiKey}` });
  agent.secret = registered.secret;
  return { agent, agentId: registered.agent_id };
}

describe('cluster - the namespace is the wall', { skip: clusterSkip() }, () => {
  before(
    async () => {
      cluster = await startTestCluster({
        workers: 1,
        appEnv: {
          API_KEYS: [
            configKeyEntry('default', ['admin', 'metrics'], TEST_API_KEY),
            configKeyEntry(TENANT, ['admin'], TENANT_KEY),
          ].join(','),
          NEXUS_TENANTS: TENANT,
          HEARTBEAT_TTL_MS: '3600000',
          DEFAULT_ACK_TIMEOUT_MS: '600000',
        },
      });
      ({ agent: gatewayAgent, agentId: gatewayAgentId } = await agentOf(TEST_API_KEY));
      ({ agent: tenantAgent, agentId: tenantAgentId } = await agentOf(TENANT_KEY));

      // What the operator does for a tenant: its namespace, its Nexus endpoint (both with a system admin token), its token.
      admin = await adminConnection(cluster);
      await prepareNamespace(cluster.temporalAddress, await cluster.adminToken(), TENANT, 1);
      await ensureNexusEndpoint(admin, {
        name: TENANT_ENDPOINT,
        namespace: GATEWAY,
        taskQueue: GATEWAY_QUEUE,
        tenant: TENANT,
      });
      const tenantToken = await tokenCommand('--namespace', TENANT, '--role', 'admin');
      tenantConnection = await Connection.connect({ address: cluster.temporalAddress, apiKey: tenantToken });
      tenantWorkerConnection = await workerConnection(cluster, tenantToken);
      tenantClient = new Client({ connection: tenantConnection, namespace: TENANT });
      callerWorker = await Worker.create({
        connection: tenantWorkerConnection,
        namespace: TENANT,
        taskQueue: CALLER_QUEUE,
        workflowsPath: require.resolve('../helpers/nexus-tenancy-caller-workflows'),
      });
      callerWorkerRun = callerWorker.run();
    },
    { timeout: 600_000 },
  );

  after(
    async () => {
      callerWorker?.shutdown();
      await callerWorkerRun;
      await Promise.allSettled([
        tenantWorkerConnection?.close(),
        tenantConnection?.close(),
        admin?.close(),
        gatewayAgent?.stop(),
        tenantAgent?.stop(),
      ]);
      await cluster?.stop();
    },
    { timeout: 120_000 },
  );

  it("cluster - with a tenant's token, Temporal refuses starting, signalling, terminating and reading runs of the gateway's namespace, and polling its queues", async () => {
    // The token is good: its own namespace answers.
    await tenantConnection.workflowService.describeNamespace({ namespace: TENANT });

    // A run of the gateway's namespace, open (its agent holds the receipt).
    const messageId = newId('held');
    held.add(messageId);
    const sent = await request('POST', `${cluster.url}/v1/messages`, {
      message_id: messageId,
      target: { agent_id: gatewayAgentId, capability: 'echo' },
      payload: { keep: 1 },
    });
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    await eventually('the delivery', async () => deliveriesOf(messageId)[0]);
    assert.equal(await runStatus('default', messageId), 'RUNNING');

    const intoGateway = new Client({ connection: tenantConnection, namespace: GATEWAY });
    const run = intoGateway.workflow.getHandle(messageWorkflowId('default', messageId));
    const forgedId = newId('forged');
    await refusedByTemporal('start', () =>
      intoGateway.workflow.start('sendMessage', {
        taskQueue: GATEWAY_QUEUE,
        workflowId: messageWorkflowId(TENANT, forgedId),
        args: [{ tenant: TENANT, message_id: forgedId, target: { agent_id: tenantAgentId } }],
      }),
    );
    await refusedByTemporal('signal', () => run.signal('cancel'));
    await refusedByTemporal('terminate', () => run.terminate('a tenant tries'));
    await refusedByTemporal('describe', () => run.describe());
    await refusedByTemporal('fetch history', () => run.fetchHistory());
    await refusedByTemporal('list', async () => {
      for await (const _ of intoGateway.workflow.list()) break;
    });
    const polls = tenantConnection.workflowService;
    const poll = { namespace: GATEWAY, identity: 'tenant-a-poller' };
    await refusedByTemporal('poll workflow tasks', () =>
      polls.pollWorkflowTaskQueue({ ...poll, taskQueue: { name: GATEWAY_QUEUE } }),
    );
    await refusedByTemporal('poll activity tasks', () =>
      polls.pollActivityTaskQueue({ ...poll, taskQueue: { name: GATEWAY_QUEUE } }),
    );
    await refusedByTemporal("poll the tenant's Nexus tasks", () =>
      polls.pollNexusTaskQueue({ ...poll, taskQueue: { name: nexusTaskQueue(GATEWAY_QUEUE, TENANT) } }),
    );

    // Nothing happened in the gateway's namespace: the run goes on, and ends with its agent's receipt.
    assert.equal(await runStatus(TENANT, forgedId), 'none');
    assert.equal(await runStatus('default', messageId), 'RUNNING');
    const [delivery] = deliveriesOf(messageId);
    const receipt = await fetch(delivery!.body.callback_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gatewayAgent.secret}` },
      body: JSON.stringify({ message_id: messageId, status: 'processed', result: { intact: true } }),
    });
    assert.equal(receipt.status, 200);
    await eventually('the held run to end', async () =>
      (await runStatus('default', messageId)) === 'COMPLETED' ? true : undefined,
    );
  });

  it("cluster - a workflow in the tenant's namespace sends through the tenant's Nexus endpoint, with its key's proof, and gets the outcome", async () => {
    const messageId = newId('nexus');
    const status = await sendThroughNexus(
      sentAsKey(
        {
          tenant: TENANT,
          message_id: messageId,
          target: { agent_id: tenantAgentId, capability: 'echo' },
          payload: { via: 'nexus' },
        },
        TENANT_KEY,
      ),
    );
    assert.equal(status.state, 'processed', JSON.stringify(status));
    assert.deepEqual(status.result, { echoed: { via: 'nexus' } });
    assert.equal(deliveriesOf(messageId).length, 1);
    assert.equal(await runStatus(TENANT, messageId), 'COMPLETED');
  });

  it('cluster - a Nexus operation without a valid credential for the tenant is refused before anything is read or started', async () => {
    const input = (messageId: string): SendMessageInput => ({
      tenant: TENANT,
      message_id: messageId,
      target: { agent_id: tenantAgentId, capability: 'echo' },
      payload: { n: 1 },
    });
    const cases: { name: string; messageId: string; input: (id: string) => SendMessageInput; refusal: string }[] = [
      { name: 'no key_id, no key_proof', messageId: newId('bare'), input, refusal: 'key_required' },
      {
        name: 'a proof of another body',
        messageId: newId('other-body'),
        input: (id) => ({ ...sentAsKey(input(id), TENANT_KEY), payload: { n: 2 } }),
        refusal: 'invalid_key_proof',
      },
      {
        name: "another tenant's key",
        messageId: newId('other-key'),
        input: (id) => sentAsKey(input(id), TEST_API_KEY),
        refusal: 'unknown_key',
      },
      {
        name: 'another tenant named',
        messageId: newId('other-tenant'),
        input: (id) => sentAsKey({ ...input(id), tenant: 'default' }, TEST_API_KEY),
        refusal: 'tenant_mismatch',
      },
    ];
    for (const { name, messageId, input: make, refusal } of cases) {
      const refused = await nexusRefusal(make(messageId));
      assert.equal(refused.type, refusal, name);
      assert.equal(refused.started, false, `${name}: no operation started`);
      assert.equal(await runStatus(TENANT, messageId), 'none', `${name}: no run in the tenant`);
      assert.equal(await runStatus('default', messageId), 'none', `${name}: no run in another tenant`);
      assert.equal(deliveriesOf(messageId).length, 0, `${name}: nothing delivered`);
    }
  });
});
