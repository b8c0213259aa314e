/**
 * Delivering to A2A agents (docs/a2a.md, "Delivering to A2A agents") that were never told of Agent-Reach: one built
 * with the Python `a2a-sdk` from PyPI (test/helpers/a2a_agent.py, in the venv `npm test` makes; its tests skip,
 * saying why, when the venv lacks it) and one with the npm `@a2a-js/sdk` (test/helpers/a2a-js-agent.ts).
 * Each is imported from the card it serves, then sent messages through the api: processed with its artifact as the
 * result, failed, asking a question, cancelled while working, sent twice under one id; and kept alive by its card.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { probeA2aOnce, startA2aProbe } from '../../catalogue/a2a-probe';
import { guardedFetch } from '../../platform/guarded-fetch';
import { pushToken } from '../../rules/a2a-push';
import { endpointPolicy } from '../../rules/endpoint-policy';
import { startA2aAgentProcess, type A2aAgentProcess } from '../helpers/a2a-agent-process';
import { eventually } from '../helpers/eventually';
import { registerAgent, request } from '../helpers/http';
import { PUSHES_PER_MESSAGE } from '../../api/a2a/push';
import { pythonModule } from '../helpers/python';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

const { skip: skipPython } = pythonModule('a2a.server', 'a2a-sdk');

let servers: TestServers;
let system: TestSystem;
const stops: (() => Promise<unknown>)[] = [];

before(async () => {
  servers = await startTestServers();
  // A short heartbeat TTL, so that an agent whose card stops answering goes offline within the test.
  system = await startSystem(servers, {
    HEARTBEAT_INTERVAL_MS: '1000',
    HEARTBEAT_TTL_MS: '4000',
    HEARTBEAT_WRITE_EVERY_MS: '1000',
    DEFAULT_ACK_TIMEOUT_MS: '10000',
  });
  // The probe as api/main.ts runs it: the agents' cards keep them online (they send no heartbeats).
  stops.push(startA2aProbe(probeDeps(), 500, console));
});

function probeDeps() {
  return {
    catalogue: system.catalogue.index,
    heartbeats: system.catalogue.heartbeats,
    fetch: guardedFetch(endpointPolicy(system.config)),
    timeoutMs: 2000,
  };
}

after(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await system?.stop();
  await servers?.stop();
});

const api = (method: string, path: string, body?: unknown) => request(method, `${system.baseUrl}${path}`, body);

/** Imports the agent from the card it serves; returns its agent id. */
async function importAgent(agent: A2aAgentProcess): Promise<string> {
  const imported = await api('POST', '/v1/agents/import', { url: agent.cardUrl });
  assert.equal(imported.status, 201, JSON.stringify(imported.body));
  const instance = imported.body.agent.instances[0];
  assert.equal(instance.transport, 'a2a');
  assert.equal(instance.endpoint.replace(/\/$/, ''), agent.url.replace(/\/$/, ''));
  assert.deepEqual(imported.body.agent.capabilities.map((c: { name: string }) => c.name).sort(), [
    'convert_currency',
    'echo',
  ]);
  return imported.body.agent_id;
}

const send = (body: object) => api('POST', '/v1/messages?wait=20s', body);

/** Without empty lists: in A2A's protobuf JSON an empty repeated field is the same as an absent one. */
function withoutEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmpty);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => !(Array.isArray(v) && v.length === 0))
      .map(([k, v]) => [k, withoutEmpty(v)]),
  );
}

/** The card the agent serves (v1.0), beside the one the gateway exports for it: the same but for where and how to reach it. */
async function assertFaithfulExport(agent: A2aAgentProcess, agentId: string): Promise<void> {
  const served = (await (await fetch(agent.cardUrl, { headers: { 'a2a-version': '1.0' } })).json()) as Record<
    string,
    any
  >;
  const exported = (await api('GET', `/v1/agents/${agentId}/agent-card.json`)).body;
  for (const field of ['name', 'description', 'version', 'defaultInputModes', 'defaultOutputModes'])
    assert.deepEqual(exported[field], served[field], field);
  assert.deepEqual(
    withoutEmpty(exported.skills),
    withoutEmpty(served.skills),
    'skills: ids, names, descriptions, tags, examples, modes',
  );
  assert.equal(exported.supportedInterfaces[0].url, `${system.config.PUBLIC_URL}/a2a/agents/${agentId}`);
}

/** Input required: the message waits with the agent's question; the caller's reply continues the same task. */
async function askAndReply(agent: A2aAgentProcess, agentId: string, prefix: string): Promise<void> {
  const questionId = `${prefix}-question`;
  const asked = await api('POST', '/v1/messages', {
    message_id: questionId,
    target: { agent_id: agentId, capability: 'convert_currency' },
    intent: 'a question for you',
  });
  assert.equal(asked.status, 202, JSON.stringify(asked.body));
  const waiting = await eventually('the message to wait for the caller', async () => {
    const status = (await api('GET', `/v1/messages/${questionId}`)).body;
    return status.state === 'input_required' ? status : undefined;
  });
  assert.equal(waiting.input_required.message, 'Which currency?');
  const replied = await api('POST', `/v1/messages/${questionId}/reply`, { intent: 'EUR', params: { to: 'EUR' } });
  assert.equal(replied.status, 202, JSON.stringify(replied.body));
  let lastStatus: unknown;
  const answered = await eventually('the continued task to end', async () => {
    const status = (await api('GET', `/v1/messages/${questionId}`)).body;
    lastStatus = status;
    return ['processed', 'failed'].includes(status.state) ? status : undefined;
  }).catch((error: Error) => assert.fail(`${error.message}: ${JSON.stringify(lastStatus)}`));
  assert.equal(answered.state, 'processed', JSON.stringify(answered));
  assert.equal(answered.result.text, 'EUR', 'the reply is what the continued task read');
  assert.deepEqual(answered.result.echo, { to: 'EUR' });
  assert.equal(answered.result.message_id, `${questionId}:turn-2`);
  const turns = (await agent.received()).messages.filter((m) => m.message_id.startsWith(questionId));
  assert.deepEqual(
    turns.map((m) => m.message_id),
    [questionId, `${questionId}:turn-2`],
  );
  assert.equal(turns[1]!.task_id, turns[0]!.task_id, 'turn 2 continues the task that asked');
  assert.equal(turns[1]!.context_id, turns[0]!.context_id);
}

/** A message waiting for the caller's reply is cancelled: so is the agent's task that asked. */
async function cancelWhileAsking(agent: A2aAgentProcess, agentId: string, prefix: string): Promise<void> {
  const id = `${prefix}-question-cancelled`;
  const asked = await api('POST', '/v1/messages', {
    message_id: id,
    target: { agent_id: agentId, capability: 'convert_currency' },
    intent: 'another question for you',
  });
  assert.equal(asked.status, 202, JSON.stringify(asked.body));
  const waiting = await eventually('the message to wait for the caller', async () => {
    const status = (await api('GET', `/v1/messages/${id}`)).body;
    return status.state === 'input_required' ? status : undefined;
  });
  const cancel = await api('POST', `/v1/messages/${id}/cancel`, { reason: 'never mind' });
  assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
  assert.equal((await api('GET', `/v1/messages/${id}`)).body.state, 'cancelled');
  const taskId = waiting.attempts[0].a2a_task_id as string;
  await eventually('CancelTask at the agent', async () =>
    (await agent.received()).cancelled.includes(taskId) ? true : undefined,
  );
}

/** The whole round for one agent: everything the issue asks of delivery to an A2A agent. */
async function deliveryRound(agent: A2aAgentProcess, prefix: string): Promise<void> {
  const agentId = await importAgent(agent);
  await assertFaithfulExport(agent, agentId);

  // Processed: the task completes; its artifact's data part is the result; the message id is the A2A message id.
  const echoId = `${prefix}-echo`;
  const echo = await send({
    message_id: echoId,
    target: { agent_id: agentId, capability: 'echo' },
    intent: 'echo this back',
    payload: { order: 7 },
    params: { note: 'hi' },
  });
  assert.equal(echo.status, 200, JSON.stringify(echo.body));
  assert.equal(echo.body.state, 'processed', JSON.stringify(echo.body));
  assert.equal(echo.body.result.text, 'echo this back');
  assert.equal(echo.body.result.message_id, echoId);
  assert.deepEqual(echo.body.result.echo, { order: 7, note: 'hi' });
  assert.equal(echo.body.attempts.length, 1);
  assert.ok(echo.body.attempts[0].a2a_task_id, 'the task id is on the attempt');
  const arrived = (await agent.received()).messages.find((m) => m.message_id === echoId)!;
  assert.equal(arrived.context_id, echo.body.trace_id, 'the trace id is the context id');
  assert.equal(arrived.metadata.skill, 'echo');
  assert.equal(arrived.metadata.agent_reach.message_id, echoId);

  // The same message again: one run, and the agent received it once.
  const again = await send({
    message_id: echoId,
    target: { agent_id: agentId, capability: 'echo' },
    intent: 'echo this back',
    payload: { order: 7 },
    params: { note: 'hi' },
  });
  assert.equal(again.body.state, 'processed');
  assert.equal((await agent.received()).counts[echoId], 1);

  // Named by its imported skill id.
  const convert = await send({
    message_id: `${prefix}-convert`,
    target: { agent_id: agentId, capability: 'convert_currency' },
    intent: 'convert 10 USD',
  });
  assert.equal(convert.body.state, 'processed');
  assert.equal(
    (await agent.received()).messages.find((m) => m.message_id === `${prefix}-convert`)!.metadata.skill,
    'convert_currency',
  );

  // Failed: the agent's text is the error; not retried.
  const failed = await send({
    message_id: `${prefix}-fail`,
    target: { agent_id: agentId, capability: 'echo' },
    intent: 'please fail',
  });
  assert.equal(failed.body.state, 'failed', JSON.stringify(failed.body));
  assert.equal(failed.body.reason.code, 'agent_failed');
  assert.deepEqual(failed.body.error, { code: 'a2a_failed', message: 'I cannot do that', retryable: false });
  assert.equal((await agent.received()).counts[`${prefix}-fail`], 1);

  await askAndReply(agent, agentId, prefix);
  await cancelWhileAsking(agent, agentId, prefix);

  // Cancelled while its task works: the agent's task is cancelled with CancelTask.
  const slowId = `${prefix}-slow`;
  const slow = await api('POST', '/v1/messages', {
    message_id: slowId,
    target: { agent_id: agentId, capability: 'echo' },
    intent: 'go slow please',
  });
  assert.equal(slow.status, 202, JSON.stringify(slow.body));
  let lastSeen: unknown;
  const working = await eventually('the slow task under way', async () => {
    const status = (await api('GET', `/v1/messages/${slowId}`)).body;
    lastSeen = status;
    return status.state === 'delivered' ? status : undefined;
  }).catch((error: Error) => assert.fail(`${error.message}: ${JSON.stringify(lastSeen)}`));
  const taskId = working.attempts[0].a2a_task_id as string;
  const cancel = await api('POST', `/v1/messages/${slowId}/cancel`, { reason: 'changed my mind' });
  assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
  await eventually('the message cancelled', async () =>
    (await api('GET', `/v1/messages/${slowId}`)).body.state === 'cancelled' ? true : undefined,
  );
  await eventually('CancelTask at the agent', async () =>
    (await agent.received()).cancelled.includes(taskId) ? true : undefined,
  );
}

describe('a2a delivery', () => {
  it('a2a delivery - an agent built with the npm @a2a-js/sdk: imported from its card, processed, failed, input required, cancelled, idempotent', async () => {
    const agent = await startA2aAgentProcess('js', `js-a2a-${process.pid}`);
    stops.push(agent.stop);
    await deliveryRound(agent, 'js');
  });

  it(
    'a2a delivery - an agent built with the PyPI a2a-sdk: imported from its card, processed, failed, input required, cancelled, idempotent',
    { skip: skipPython },
    async () => {
      const agent = await startA2aAgentProcess('python', `py-a2a-${process.pid}`);
      stops.push(agent.stop);
      await deliveryRound(agent, 'py');
    },
  );

  it('a2a delivery - an agent registered with an a2a instance (no card kept) is spoken to in A2A v1.0 JSON-RPC', async () => {
    const agent = await startA2aAgentProcess('js', `js-a2a-reg-${process.pid}`);
    stops.push(agent.stop);
    const registered = await api('POST', '/v1/agents', {
      name: `registered-a2a-${process.pid}`,
      instances: [{ transport: 'a2a', endpoint: agent.url }],
      capabilities: [{ name: 'echo', description: 'Echoes' }],
    });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    const sent = await send({
      message_id: 'registered-echo',
      target: { agent_id: registered.body.agent_id, capability: 'echo' },
      intent: 'echo me',
    });
    assert.equal(sent.body.state, 'processed', JSON.stringify(sent.body));
    assert.equal(sent.body.result.text, 'echo me');
    assert.equal((await agent.received()).messages[0]!.metadata.skill, 'echo', 'the capability name is the skill');
  });

  it('a2a delivery - HTTP+JSON where the card prefers it; a v0.3 card is spoken to in v0.3', async () => {
    const rest = await startA2aAgentProcess('js', `js-a2a-rest-${process.pid}`, { A2A_AGENT_REST: '1' });
    stops.push(rest.stop);
    const imported = await api('POST', '/v1/agents/import', { url: rest.cardUrl });
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    assert.equal(imported.body.agent.instances[0].endpoint, `${rest.url}/rest`, 'the first interface: HTTP+JSON');
    const overRest = await send({
      message_id: 'rest-echo',
      target: { agent_id: imported.body.agent_id, capability: 'echo' },
      intent: 'echo over rest',
    });
    assert.equal(overRest.body.state, 'processed', JSON.stringify(overRest.body));
    assert.equal(overRest.body.result.text, 'echo over rest');

    const legacy = await startA2aAgentProcess('js', `js-a2a-v03-${process.pid}`);
    stops.push(legacy.stop);
    const card = {
      name: `v03-agent-${process.pid}`,
      description: 'A v0.3 card',
      version: '1.0.0',
      protocolVersion: '0.3.0',
      url: legacy.url,
      preferredTransport: 'JSONRPC',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['application/json'],
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['echo'] }],
    };
    const v03 = await api('POST', '/v1/agents/import', { card });
    assert.equal(v03.status, 201, JSON.stringify(v03.body));
    assert.equal(v03.body.a2a_version, '0.3');
    assert.equal(
      v03.body.agent.instances[0].online,
      true,
      'imported inline, its card (at the origin) was probed at once',
    );
    const overV03 = await send({
      message_id: 'v03-echo',
      target: { agent_id: v03.body.agent_id, capability: 'echo' },
      intent: 'echo in v0.3',
      payload: { n: 1 },
    });
    assert.equal(overV03.body.state, 'processed', JSON.stringify(overV03.body));
    assert.equal(overV03.body.result.text, 'echo in v0.3');
    assert.deepEqual(overV03.body.result.echo, { n: 1 });
  });

  it('a2a delivery - an agent that offers push is given a URL and token per message; its notification wakes the run; a bad token is refused', async () => {
    const agent = await startA2aAgentProcess('js', `js-a2a-push-${process.pid}`, {
      A2A_AGENT_PUSH: '1',
      A2A_AGENT_WORK_MS: '1500',
    });
    stops.push(agent.stop);
    const agentId = await importAgent(agent);
    const sent = await send({
      message_id: 'pushed-echo',
      target: { agent_id: agentId, capability: 'echo' },
      intent: 'echo me',
    });
    assert.equal(sent.body.state, 'processed', JSON.stringify(sent.body));
    assert.equal(sent.body.result.text, 'echo me');
    const history = await system.client.workflow.getHandle(`msg:default:pushed-echo`).fetchHistory();
    const signals = history.events!.filter(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'a2aTaskChanged',
    );
    assert.ok(signals.length >= 1, 'the agent pushed, and the run heard it');

    const url = `${system.baseUrl}/a2a/push/${agentId}/pushed-echo`;
    const forged = await request('POST', url, {}, { authorization: '', 'x-a2a-notification-token': 'not-the-token' });
    assert.equal(forged.status, 401);
    assert.equal(forged.body.error.code, 'invalid_push_token');
    const agentRecord = (await system.catalogue.queries.agentRecord(agentId))!;
    const token = pushToken(agentRecord.signing_secret!, agentId, 'no-such-message');
    const unknown = await request(
      'POST',
      `${system.baseUrl}/a2a/push/${agentId}/no-such-message`,
      {},
      { authorization: '', 'x-a2a-notification-token': token },
    );
    assert.equal(unknown.status, 404);
    const badId = await request('POST', `${system.baseUrl}/a2a/push/not-an-agent/x`, {}, { authorization: '' });
    assert.equal(badId.status, 400);

    // A message under way to this agent: its own token wakes the run; another agent of the tenant, with a valid token
    // of its own for that message id, is refused (the message was not sent to it).
    const slowId = 'pushed-slow';
    assert.equal(
      (
        await api('POST', '/v1/messages', {
          message_id: slowId,
          target: { agent_id: agentId, capability: 'echo' },
          intent: 'go slow please',
        })
      ).status,
      202,
    );
    await eventually('the slow task under way', async () =>
      (await api('GET', `/v1/messages/${slowId}`)).body.state === 'delivered' ? true : undefined,
    );
    const other = await registerAgent(system.baseUrl, 'http://127.0.0.1:9/other');
    const push = (agent: string, secret: string) =>
      request(
        'POST',
        `${system.baseUrl}/a2a/push/${agent}/${slowId}`,
        {},
        { authorization: '', 'x-a2a-notification-token': pushToken(secret, agent, slowId) },
      );
    const crossing = await push(other.agent_id, other.signing_secret);
    assert.equal(crossing.status, 404, JSON.stringify(crossing.body));
    assert.equal(crossing.body.error.code, 'message_not_found');
    const own = await push(agentId, agentRecord.signing_secret!);
    assert.equal(own.status, 200, JSON.stringify(own.body));

    // A flood of valid pushes for one message: refused once the message's budget is spent, so its history stays small.
    const flood = await Promise.all(Array.from({ length: 30 }, () => push(agentId, agentRecord.signing_secret!)));
    const refused = flood.filter((r) => r.status === 429);
    assert.ok(refused.length >= 30 - PUSHES_PER_MESSAGE.burst, `429s: ${refused.length}`);
    assert.equal(refused[0]!.body.error.code, 'rate_limited');
    assert.ok(Number(refused[0]!.headers.get('retry-after')) >= 1);
    const signalsOf = async () =>
      (await system.client.workflow.getHandle(`msg:default:${slowId}`).fetchHistory()).events!.filter(
        (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'a2aTaskChanged',
      ).length;
    // The agent's own pushes share the budget, which refills by one every 5 s while the test runs.
    assert.ok((await signalsOf()) <= PUSHES_PER_MESSAGE.burst + 3, 'at most the burst reached the run');
    await api('POST', `/v1/messages/${slowId}/cancel`, { reason: 'done testing' });
  });

  it('a2a delivery - a task whose artifacts are past the read cap fails the message result_too_large, delivered once', async () => {
    const agent = await startA2aAgentProcess('js', `js-a2a-huge-${process.pid}`);
    stops.push(agent.stop);
    const agentId = await importAgent(agent);
    const sent = await send({
      message_id: 'huge-echo',
      target: { agent_id: agentId, capability: 'echo' },
      intent: 'a huge answer please',
    });
    assert.equal(sent.body.state, 'failed', JSON.stringify(sent.body).slice(0, 2000));
    const code = sent.body.reason.code === 'result_too_large' ? sent.body.reason.code : sent.body.error?.code;
    assert.equal(code, 'result_too_large', JSON.stringify(sent.body).slice(0, 2000));
    assert.match(JSON.stringify(sent.body), new RegExp(`larger than ${system.config.AGENT_ANSWER_MAX_BYTES} bytes`));
    assert.equal(sent.body.result, undefined);
    assert.equal((await agent.received()).counts['huge-echo'], 1, 'not delivered again');
  });

  it('a2a delivery - a card larger than AGENT_ANSWER_MAX_BYTES is refused with a 422, read no further', async () => {
    const { createServer } = await import('node:http');
    let written = 0;
    const host = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, ' ');
      let open = true;
      res.once('close', () => (open = false));
      const more = () => {
        while (open && written < 50 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        if (open) res.end('{}');
      };
      more();
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    try {
      const port = (host.address() as { port: number }).port;
      const imported = await api('POST', '/v1/agents/import', {
        url: `http://127.0.0.1:${port}/.well-known/agent-card.json`,
      });
      assert.equal(imported.status, 422, JSON.stringify(imported.body));
      assert.equal(imported.body.error.code, 'agent_card_too_large');
      assert.equal(imported.body.error.details.max_bytes, system.config.AGENT_ANSWER_MAX_BYTES);
      assert.ok(written < 50 * 1024 * 1024, `the api stopped reading (${written} bytes written)`);
    } finally {
      host.closeAllConnections();
      await new Promise((resolve) => host.close(resolve));
    }
  });

  it('a2a delivery - liveness comes from the card: probed alive past the heartbeat TTL, offline (with its event) once the card stops answering', async () => {
    const agent = await startA2aAgentProcess('js', `js-a2a-live-${process.pid}`);
    stops.push(agent.stop);
    const agentId = await importAgent(agent);
    await system.catalogue.index.refresh(); // the probe reads the copy: let it hold the new agent
    const probe = probeDeps();
    const stateOf = async () => (await api('GET', `/v1/agents/${agentId}`)).body.instances[0];
    // Beyond one TTL after the import, the card's answers alone keep it online.
    const until = Date.now() + 5000;
    while (Date.now() < until) {
      const round = await probeA2aOnce(probe);
      assert.ok(round.alive >= 1, 'the card answered');
      await new Promise((r) => setTimeout(r, 700));
    }
    await system.catalogue.heartbeats.sweep();
    assert.equal((await stateOf()).online, true);

    await agent.stop();
    const silent = await probeA2aOnce(probe);
    assert.ok(silent.silent >= 1, 'the stopped agent is silent');
    await eventually(
      'the silent agent offline',
      async () => {
        await system.catalogue.heartbeats.sweep();
        return (await stateOf()).online === false ? true : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 500 },
    );
    // The view reads offline from the heartbeat's age a moment before a sweep finds it stale (the sweep ran first):
    // sweep until the sweeper has marked it, with its event.
    await eventually(
      'an offline event recorded',
      async () => {
        await system.catalogue.heartbeats.sweep();
        const events = (await api('GET', `/v1/agents/${agentId}/events`)).body;
        return JSON.stringify(events).includes('offline') ? true : undefined;
      },
      { timeoutMs: 5_000, intervalMs: 200 },
    );

    // A card imported inline whose agent does not answer is offline from the start: nobody has seen it alive.
    const card = {
      name: `inline-dead-${process.pid}`,
      url: agent.url,
      protocolVersion: '0.3.0',
      skills: [{ id: 'echo', name: 'Echo' }],
    };
    const dead = await api('POST', '/v1/agents/import', { card });
    assert.equal(dead.status, 201, JSON.stringify(dead.body));
    assert.equal(dead.body.agent.instances[0].online, false);
    assert.equal(dead.body.agent.online, false);
  });
});
