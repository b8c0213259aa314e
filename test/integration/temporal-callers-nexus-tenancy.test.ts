/**
 * Nexus tenancy probes (issue 27, findings 1 and 7): each tenant's endpoint targets its own task queue, whose
 * handler sends for that tenant alone; a repeat of a message id passes the api's body-hash and ACL checks before it
 * attaches; an attached operation's cancel leaves the run alone; bad input is refused before any run starts.
 * The whole system is real (Temporal dev server, FerretDB, worker, api, HTTP agents).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, Connection, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure, NexusOperationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { messageWorkflowId } from '../../messages/temporal';
import { ensureNexusEndpoint } from '../../temporal-callers/nexus/endpoint';
import { eventually } from '../helpers/eventually';
import { startCallerNamespace, type CallerNamespace } from '../helpers/caller-namespace';
import { startFakeAgent, type Delivery, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request } from '../helpers/http';
import { cancelOperation } from '../helpers/nexus-tenancy-caller-workflows';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

const { EventType } = temporal.api.enums.v1;
const CALLER_NAMESPACE = 'tenancy-callers';
const CALLER_QUEUE = 'tenancy-caller-workflows';
/** Endpoints: one per tenant of NEXUS_TENANTS, and the gateway's own queue (NEXUS_DEFAULT_TENANT, here `default`). */
const ENDPOINT = { acme: 'probe-acme', globex: 'probe-globex', default: 'probe-default' } as const;
const MAX_PAYLOAD_BYTES = 4096;

let servers: TestServers;
let system: TestSystem;
/** One agent process per tenant (a receipt is sent with its agent's secret). */
const agents = {} as Record<'acme' | 'globex', FakeAgent>;
let admin: Connection;
let callers: Client;
let callerNamespace: CallerNamespace;
let sequence = 0;
const agentOf: Record<'acme' | 'globex', string> = { acme: '', globex: '' };
const adminKeyOf: Record<'acme' | 'globex', string> = { acme: '', globex: '' };
/** Messages whose receipt the test sends itself (the agent only accepts them). */
const held = new Set<string>();

const newId = (what: string) => `probe-${what}-${Date.now()}-${++sequence}`;
const allDeliveries = () => [...agents.acme.deliveries, ...agents.globex.deliveries];
const deliveriesOf = (messageId: string) => allDeliveries().filter((d) => d.body.message_id === messageId);
const targetOf = (tenant: 'acme' | 'globex', capability = 'echo') => ({ agent_id: agentOf[tenant], capability });

/** Runs a caller's workflow that sends through `endpoint`. */
function runCaller(endpoint: string, input: Record<string, unknown>, callerId = newId('caller')) {
  return callers.workflow.execute('nexusCallerWorkflow', {
    workflowId: callerId,
    taskQueue: CALLER_QUEUE,
    args: [input, endpoint],
  });
}

/** The refusal a caller ended with (its Nexus operation's cause), and whether the operation ever started. */
async function refusalOf(
  endpoint: string,
  input: Record<string, unknown>,
): Promise<{ cause: ApplicationFailure; started: boolean }> {
  const callerId = newId('refused');
  const error = await runCaller(endpoint, input, callerId).then(
    () => assert.fail('the caller should have failed'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof WorkflowFailedError, `a failed caller, not ${String(error)}`);
  assert.ok(error.cause instanceof NexusOperationFailure, `a Nexus operation failure, not ${String(error.cause)}`);
  assert.ok(error.cause.cause instanceof ApplicationFailure, `an ApplicationFailure, not ${String(error.cause.cause)}`);
  return { cause: error.cause.cause, started: await operationStarted(callerId) };
}

async function callerEvents(callerId: string) {
  return (await callers.workflow.getHandle(callerId).fetchHistory()).events ?? [];
}

async function operationStarted(callerId: string): Promise<boolean> {
  return (await callerEvents(callerId)).some((e) => e.eventType === EventType.EVENT_TYPE_NEXUS_OPERATION_STARTED);
}

/** The run's status name, or `none` when no run has that id. */
async function runStatus(tenant: string, messageId: string): Promise<string> {
  try {
    return (await system.client.workflow.getHandle(messageWorkflowId(tenant, messageId)).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 'none';
    throw error;
  }
}

async function sendReceipt(messageId: string, result: unknown): Promise<void> {
  const [delivery] = deliveriesOf(messageId);
  assert.ok(delivery, `${messageId} was delivered`);
  const agent = agents.acme.deliveries.includes(delivery) ? agents.acme : agents.globex;
  const receipt = await fetch(delivery.body.callback_url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.secret}` },
    body: JSON.stringify({ message_id: messageId, status: 'processed', result }),
  });
  assert.equal(receipt.status, 200);
}

/** Starts a held message through `endpoint` and waits for its delivery; `caller` is the caller's run. */
async function heldMessage(endpoint: string, input: { message_id: string } & Record<string, unknown>) {
  held.add(input.message_id);
  const caller = runCaller(endpoint, input);
  await eventually(`the delivery of ${input.message_id}`, async () => deliveriesOf(input.message_id)[0]);
  return { caller };
}

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers, {
    HEARTBEAT_TTL_MS: '3600000',
    DEFAULT_ACK_TIMEOUT_MS: '600000',
    NEXUS_TENANTS: 'acme,globex',
    MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD_BYTES),
  });
  for (const tenant of ['acme', 'globex'] as const) {
    const agent = await startFakeAgent((d: Delivery) =>
      held.has(d.body.message_id)
        ? { status: 202 }
        : { status: 202, receipt: { status: 'processed', result: { echoed: d.body.payload } } },
    );
    agents[tenant] = agent;
    adminKeyOf[tenant] = (await system.keys.create(tenant, { scopes: ['admin'] }, 'test')).key;
    const registered = await registerAgent(
      system.baseUrl,
      agent.url,
      { capabilities: [{ name: 'echo' }, { name: 'refund', acl: { scopes: ['refunds'] } }] },
      { authorization: `Bearer ${adminKeyOf[tenant]}` },
    );
    agentOf[tenant] = registered.agent_id;
    agent.secret = registered.secret;
  }

  callerNamespace = await startCallerNamespace(system.config.TEMPORAL_ADDRESS, {
    namespace: CALLER_NAMESPACE,
    taskQueue: CALLER_QUEUE,
    workflowsPath: require.resolve('../helpers/nexus-tenancy-caller-workflows'),
  });
  ({ admin, callers } = callerNamespace);
  const gateway = { namespace: system.config.TEMPORAL_NAMESPACE, taskQueue: system.config.TEMPORAL_TASK_QUEUE };
  await ensureNexusEndpoint(admin, { name: ENDPOINT.acme, ...gateway, tenant: 'acme' });
  await ensureNexusEndpoint(admin, { name: ENDPOINT.globex, ...gateway, tenant: 'globex' });
  await ensureNexusEndpoint(admin, { name: ENDPOINT.default, ...gateway });
});

after(async () => {
  await callerNamespace?.stop();
  await Promise.allSettled(Object.values(agents).map((a) => a.stop()));
  await system?.stop();
  await servers?.stop();
});

describe('temporal callers over Nexus - tenancy', () => {
  it('temporal callers over Nexus - a tenant endpoint sends for its tenant only: naming another is refused, nothing started, read or cancelled', async () => {
    // Each endpoint's own tenant, named or left out.
    const named = await runCaller(ENDPOINT.acme, {
      tenant: 'acme',
      message_id: newId('named'),
      target: targetOf('acme'),
      payload: 1,
    });
    assert.equal(named.state, 'processed');
    const implied = await runCaller(ENDPOINT.globex, {
      message_id: newId('implied'),
      target: targetOf('globex'),
      payload: 2,
    });
    assert.equal(implied.state, 'processed');
    assert.equal(await runStatus('globex', implied.message_id), 'COMPLETED');

    // globex's message, open; acme's endpoint names it exactly (tenant, id and body): refused, and globex's run goes on.
    const messageId = newId('theirs');
    const theirs = { message_id: messageId, target: targetOf('globex'), payload: { secret: 'globex' } };
    const { caller: globexCaller } = await heldMessage(ENDPOINT.globex, theirs);
    const crossing = await refusalOf(ENDPOINT.acme, { ...theirs, tenant: 'globex' });
    assert.equal(crossing.cause.type, 'tenant_mismatch');
    assert.equal(crossing.started, false, 'no operation started');
    // The gateway's own queue sends for `default` only.
    const viaDefault = await refusalOf(ENDPOINT.default, { ...theirs, tenant: 'globex' });
    assert.equal(viaDefault.cause.type, 'tenant_mismatch');
    assert.equal(viaDefault.started, false);
    // A fresh id named for another tenant: no run under it.
    const fresh = newId('fresh');
    assert.equal(
      (await refusalOf(ENDPOINT.acme, { tenant: 'globex', message_id: fresh, target: targetOf('globex') })).cause.type,
      'tenant_mismatch',
    );
    assert.equal(await runStatus('globex', fresh), 'none');

    assert.equal(await runStatus('globex', messageId), 'RUNNING');
    assert.equal(deliveriesOf(messageId).length, 1);
    await sendReceipt(messageId, { done: 'globex' });
    assert.deepEqual((await globexCaller).result, { done: 'globex' });
  });

  it('temporal callers over Nexus - a repeat with another body is a conflict; the same body attaches and gets the result, once delivered', async () => {
    const messageId = newId('repeat');
    const input = { message_id: messageId, target: targetOf('acme'), payload: { n: 1 } };
    const { caller: first } = await heldMessage(ENDPOINT.acme, input);

    const other = await refusalOf(ENDPOINT.acme, { ...input, payload: { n: 2 } });
    assert.equal(other.cause.type, 'idempotency_conflict');
    assert.equal(other.started, false);

    const secondCaller = newId('second');
    const second = runCaller(ENDPOINT.acme, input, secondCaller);
    await eventually('the second operation attached', async () => (await operationStarted(secondCaller)) || undefined);
    await sendReceipt(messageId, { once: true });
    const [one, two] = await Promise.all([first, second]);
    assert.deepEqual(one.result, { once: true });
    assert.deepEqual(two, one);

    // After the run ended: another body is still a conflict; the same body gets the final status at once.
    assert.equal((await refusalOf(ENDPOINT.acme, { ...input, payload: { n: 3 } })).cause.type, 'idempotency_conflict');
    assert.deepEqual(await runCaller(ENDPOINT.acme, input), one);
    assert.equal(deliveriesOf(messageId).length, 1);
  });

  it("temporal callers over Nexus - a repeat must pass the capability's ACL: a message sent with a key is not attached to by the namespace caller", async () => {
    const refunds = (await system.keys.create('acme', { scopes: ['send', 'refunds'] }, 'test')).key;
    const messageId = newId('acl');
    held.add(messageId);
    const body = { message_id: messageId, target: targetOf('acme', 'refund'), payload: { order: 42 } };
    const posted = await request('POST', `${system.baseUrl}/v1/messages`, body, { authorization: `Bearer ${refunds}` });
    assert.equal(posted.status, 202, JSON.stringify(posted.body));
    await eventually('the delivery', async () => deliveriesOf(messageId)[0]);

    const repeat = await refusalOf(ENDPOINT.acme, body);
    assert.equal(repeat.cause.type, 'capability_forbidden');
    assert.equal(repeat.started, false);
    await sendReceipt(messageId, { refunded: true });
    const ended = await system.client.workflow.getHandle(messageWorkflowId('acme', messageId)).result();
    assert.equal((ended as { state: string }).state, 'processed');
    // Ended: the outcome is not handed out either.
    assert.equal((await refusalOf(ENDPOINT.acme, body)).cause.type, 'capability_forbidden');
  });

  it('temporal callers over Nexus - cancelling an attached operation leaves the run to the caller that started it; the starter cancels its own', async () => {
    const messageId = newId('attached-cancel');
    const input = { message_id: messageId, target: targetOf('acme'), payload: 'keep' };
    const { caller: starter } = await heldMessage(ENDPOINT.acme, input);
    const attachedId = newId('canceller');
    const attached = await callers.workflow.start('cancellingNexusCallerWorkflow', {
      workflowId: attachedId,
      taskQueue: CALLER_QUEUE,
      args: [input, ENDPOINT.acme],
    });
    await eventually('the attached operation started', async () => (await operationStarted(attachedId)) || undefined);
    await attached.signal(cancelOperation);
    await eventually(
      'the cancel request answered by the handler',
      async () =>
        (await callerEvents(attachedId)).some(
          (e) => e.eventType === EventType.EVENT_TYPE_NEXUS_OPERATION_CANCEL_REQUEST_COMPLETED,
        ) || undefined,
    );
    assert.equal(await runStatus('acme', messageId), 'RUNNING', 'the starter’s run was not cancelled');
    await sendReceipt(messageId, { kept: true });
    assert.deepEqual((await starter).result, { kept: true });
    assert.match(await attached.result(), /^(cancelled|completed)$/);

    // The operation that started the run cancels it.
    const ownId = newId('own-cancel');
    held.add(ownId);
    const own = await callers.workflow.start('cancellingNexusCallerWorkflow', {
      workflowId: newId('starter'),
      taskQueue: CALLER_QUEUE,
      args: [{ message_id: ownId, target: targetOf('acme'), payload: 'drop' }, ENDPOINT.acme],
    });
    await eventually('its delivery', async () => deliveriesOf(ownId)[0]);
    await own.signal(cancelOperation);
    await eventually('the run cancelled', async () =>
      (await runStatus('acme', ownId)) === 'CANCELLED' ? true : undefined,
    );
    assert.equal(await own.result(), 'cancelled');
  });

  it('temporal callers over Nexus - input the api refuses is refused at once, before any run: message_id, stored size, reply_to', async () => {
    const before = allDeliveries().length;
    const target = targetOf('acme');
    const tooLong = 'x'.repeat(129);
    const long = await refusalOf(ENDPOINT.acme, { message_id: tooLong, target });
    assert.equal(long.cause.type, 'invalid_request');
    assert.match(long.cause.message, /message_id/);
    assert.equal(long.started, false);
    assert.equal(await runStatus('acme', tooLong), 'none');
    assert.equal((await refusalOf(ENDPOINT.acme, { message_id: 'not an id!', target })).cause.type, 'invalid_request');

    const bigId = newId('big');
    const big = await refusalOf(ENDPOINT.acme, { message_id: bigId, target, payload: 'x'.repeat(MAX_PAYLOAD_BYTES) });
    assert.equal(big.cause.type, 'payload_too_large');
    assert.equal(await runStatus('acme', bigId), 'none');

    const metadataId = newId('reply-to');
    const metadata = await refusalOf(ENDPOINT.acme, {
      message_id: metadataId,
      target,
      reply_to: { url: 'http://169.254.169.254/latest' },
    });
    assert.equal(metadata.cause.type, 'endpoint_not_allowed');
    assert.match(metadata.cause.message, /reply_to\.url/);
    assert.equal(await runStatus('acme', metadataId), 'none');

    // The id is not burned: the same id with a good body is sent.
    const sent = await runCaller(ENDPOINT.acme, { message_id: bigId, target, payload: 'small' });
    assert.equal(sent.state, 'processed');
    assert.equal(allDeliveries().length, before + 1);
  });
});
