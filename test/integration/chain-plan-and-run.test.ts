/**
 * `plan_and_run` on the MCP and A2A faces (docs/mcp.md and docs/a2a.md, "Planning and running a chain"): one
 * free-text request planned, shown, and run only once the caller confirms — by an MCP elicitation (a 2025-11-25
 * session with the official client, a 2026-07-28 client through input_required), by a second call with the plan and
 * its plan_id, or by the caller's next message on an A2A task — against a real Temporal dev server and FerretDB, the
 * api and worker in process and a fake order desk. A plan the router did not accept whole never runs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { toolAnswer } from '../helpers/mcp';
import { ORDER_DESK, orderDesk } from '../helpers/order-desk';
import type { TestSystem } from '../helpers/system';
import { startSystemWithAgent, type SystemWithAgent } from '../helpers/system-with-agent';
import type { FakeAgent } from '../helpers/fake-agent';
import { Task } from '../../api/a2a/sdk';

type SdkClient = typeof import('@a2a-js/sdk/client', { with: { 'resolution-mode': 'import' } });
type Sdk = typeof import('@a2a-js/sdk', { with: { 'resolution-mode': 'import' } });
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } = require('@a2a-js/sdk/client') as SdkClient;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SendMessageRequest } = require('@a2a-js/sdk') as Sdk;

/** The official TypeScript A2A client of the gateway, its fetch carrying `apiKey`; it reads the card itself. */
async function a2aClient(apiKey: string) {
  const fetchImpl: typeof fetch = (input, init) =>
    fetch(input, {
      ...init,
      headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${apiKey}` },
    });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(system.baseUrl);
}

type TaskJson = {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts: { text?: string; data?: any }[] } };
  artifacts?: { parts: { text?: string; data?: any }[] }[];
  metadata: Record<string, unknown>;
};
const taskJson = (value: unknown) => Task.toJSON(value as never) as TaskJson;

let world: SystemWithAgent | undefined;
let system: TestSystem;
let agent: FakeAgent;
let key: string;
const stops: (() => Promise<unknown>)[] = [];
const TOOL = 'reach_plan_and_run';
let order = 30_000_000 + (process.pid % 1_000_000);
const nextOrder = () => String(++order);
const intentFor = (orderId: string) =>
  `Check the status of order ${orderId}, and if it has not shipped yet, cancel the order, then tell me the result`;
const deliveredFor = (orderId: string) =>
  agent.deliveries
    .filter((d) => (d.body.params as { order_id?: string } | undefined)?.order_id === orderId)
    .map((d) => d.body.capability);

/** A 2025-11-25 session; with `answer`, the client declares elicitation and answers every one with it. */
async function sessionClient(answer?: (message: string) => ElicitResult): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client(
    { name: 'plan-and-run-test', version: '1.0.0' },
    answer ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return answer(request.params.message);
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${system.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  stops.push(() => client.close());
  return { client, asked };
}

const call = async (client: Client, args: Record<string, unknown>) =>
  toolAnswer(await client.callTool({ name: TOOL, arguments: args }, undefined, { timeout: 120_000 }));

before(async () => {
  world = await startSystemWithAgent({
    env: { HEARTBEAT_TTL_MS: '3600000' },
    behaviour: orderDesk,
    registration: { capabilities: ORDER_DESK },
  });
  ({ system, agent } = world);
  key = (await system.keys.create('default', { scopes: ['read', 'send'] }, 'plan-and-run')).key;
});

after(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await world?.stop();
});

describe('plan and run', () => {
  it('plan and run - MCP session with elicitation: the plan is asked, confirmed, run; the answer has results by step and the summary', async () => {
    const orderId = nextOrder();
    const { client, asked } = await sessionClient(() => ({ action: 'accept', content: { run: true } }));
    const answer = await call(client, { intent: intentFor(orderId), wait_ms: 30_000 });
    assert.equal(answer.isError, false, JSON.stringify(answer.body));
    assert.equal(asked.length, 1);
    assert.match(asked[0]!, /Run this plan/);
    assert.match(asked[0]!, /query_order_status/);
    assert.match(asked[0]!, /cancel_order \(only if it has not shipped yet\)/);
    assert.match(asked[0]!, /tell you how it went \("tell me the result"\)/);
    assert.equal(answer.body.started, true);
    const { status } = answer.body;
    assert.equal(status.state, 'completed');
    assert.deepEqual(status.results, { s1: { status: 'pending_shipment' }, s2: { success: true } });
    assert.deepEqual(
      { ...status.summary, text: undefined },
      {
        request: 'tell me the result',
        state: 'completed',
        completed: ['s1', 's2'],
        skipped: [],
        failed: [],
        not_run: [],
        text: undefined,
      },
    );
    assert.equal(status.summary.text, 's1 query_order_status: completed\ns2 cancel_order: completed');
    assert.deepEqual(deliveredFor(orderId), ['query_order_status', 'cancel_order']);
  });

  it('plan and run - MCP session: declined, nothing runs; a plan with a refused part is never offered to run', async () => {
    const orderId = nextOrder();
    const { client, asked } = await sessionClient(() => ({ action: 'decline' }));
    const declined = await call(client, { intent: intentFor(orderId) });
    assert.equal(declined.isError, false, JSON.stringify(declined.body));
    assert.equal(declined.body.started, false);
    assert.match(declined.body.why, /did not confirm \(decline\)/);
    assert.equal(asked.length, 1);
    const refused = await call(client, {
      intent: `Check the status of order ${orderId}, then sing me a lullaby about penguins`,
    });
    assert.equal(refused.body.started, false);
    assert.equal(refused.body.runnable, false);
    assert.match(refused.body.why, /refused \(sing me a lullaby about penguins\)/);
    assert.equal(asked.length, 1, 'a plan that cannot run is not asked about');
    assert.deepEqual(deliveredFor(orderId), []);
  });

  it('plan and run - MCP without elicitation: plan_id, then {confirm, plan, plan_id} runs exactly that plan, once', async () => {
    const orderId = nextOrder();
    const { client } = await sessionClient();
    const planned = await call(client, { intent: intentFor(orderId) });
    assert.equal(planned.body.started, false);
    assert.equal(planned.body.runnable, true);
    assert.match(planned.body.plan_id, /^pln_/);
    assert.match(planned.body.chain.chain_id, /^chn_/);
    assert.deepEqual(planned.body.chain.summary, { request: 'tell me the result' });
    assert.deepEqual(deliveredFor(orderId), [], 'nothing runs before the confirmation');

    const edited = { ...planned.body.chain, steps: planned.body.chain.steps.slice(0, 1) };
    const refused = await call(client, { confirm: true, plan: edited, plan_id: planned.body.plan_id });
    assert.equal(refused.isError, true);
    assert.equal(refused.body.error.code, 'plan_not_confirmable');
    const forged = await call(client, { confirm: true, plan: planned.body.chain, plan_id: 'pln_zz_00' });
    assert.equal(forged.body.error.code, 'plan_not_confirmable');

    const confirmation = { confirm: true, plan: planned.body.chain, plan_id: planned.body.plan_id, wait_ms: 30_000 };
    const ran = await call(client, confirmation);
    assert.equal(ran.isError, false, JSON.stringify(ran.body));
    assert.equal(ran.body.status.state, 'completed');
    assert.equal(ran.body.status.chain_id, planned.body.chain.chain_id);
    const again = await call(client, confirmation);
    assert.equal(again.body.status.chain_id, planned.body.chain.chain_id);
    assert.deepEqual(deliveredFor(orderId), ['query_order_status', 'cancel_order'], 'confirmed twice, run once');

    const stranger = (await system.keys.create('default', { scopes: ['read', 'send'] }, 'plan-and-run-other')).key;
    const otherClient = new Client({ name: 'plan-and-run-other', version: '1.0.0' });
    await otherClient.connect(
      new StreamableHTTPClientTransport(new URL(`${system.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${stranger}` } },
      }),
    );
    stops.push(() => otherClient.close());
    const notMine = await call(otherClient, confirmation);
    assert.equal(notMine.body.error.code, 'plan_not_confirmable', "another key cannot confirm this key's plan");
  });

  it('plan and run - MCP 2026-07-28 with elicitation: input_required carries the confirmation; the v2 client answers it and the chain runs', async () => {
    const orderId = nextOrder();
    const asked: string[] = [];
    const client = new ModernClient(
      { name: 'plan-and-run-modern', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { run: true } };
    });
    await client.connect(
      new ModernTransport(new URL(`${system.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    stops.push(() => client.close());
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const answer = toolAnswer(
      await client.callTool(
        { name: TOOL, arguments: { intent: intentFor(orderId), wait_ms: 30_000 } },
        { timeout: 120_000 },
      ),
    );
    assert.equal(answer.isError, false, JSON.stringify(answer.body));
    assert.equal(asked.length, 1);
    assert.match(asked[0]!, /Run this plan/);
    assert.equal(answer.body.status.state, 'completed');
    assert.deepEqual(answer.body.status.results, { s1: { status: 'pending_shipment' }, s2: { success: true } });
    assert.deepEqual(deliveredFor(orderId), ['query_order_status', 'cancel_order']);
  });

  it('plan and run - A2A: the skill answers the plan as an input-required task; "yes" on the same task runs it; the aggregate is the artifact', async () => {
    const orderId = nextOrder();
    const client = await a2aClient(key);
    const card = await client.getAgentCard();
    assert.ok(
      card.skills.some((s) => s.id === 'plan_and_run'),
      "the key's card offers the skill",
    );
    const message = (messageId: string, parts: object[], extra: object = {}) =>
      SendMessageRequest.fromJSON({ message: { messageId, role: 'ROLE_USER', parts, ...extra } });
    const asked = taskJson(
      await client.sendMessage(
        message(`plan-${orderId}`, [{ text: intentFor(orderId) }], { metadata: { skill: 'plan_and_run' } }),
      ),
    );
    assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
    const [said, plan] = asked.status.message!.parts;
    assert.match(said!.text!, /Run this plan/);
    assert.deepEqual(
      plan!.data.chain.steps.map((s: { target: { capability: string } }) => s.target.capability),
      ['query_order_status', 'cancel_order'],
    );
    assert.equal(plan!.data.chain.chain_id, asked.id, 'the task id is the chain id');
    assert.deepEqual(plan!.data.unplanned, []);
    assert.equal(
      taskJson(await client.getTask({ tenant: '', id: asked.id })).status.state,
      'TASK_STATE_INPUT_REQUIRED',
    );
    const again = taskJson(
      await client.sendMessage(
        message(`plan-${orderId}`, [{ text: intentFor(orderId) }], { metadata: { skill: 'plan_and_run' } }),
      ),
    );
    assert.equal(again.id, asked.id, 'the same message is the same task');
    await assert.rejects(
      client.sendMessage(message(`maybe-${orderId}`, [{ text: 'maybe' }], { taskId: asked.id })),
      /Reply "yes"/,
    );
    assert.deepEqual(deliveredFor(orderId), [], 'nothing runs before the yes');

    const ran = taskJson(
      await client.sendMessage(
        message(`yes-${orderId}`, [{ text: 'yes' }], { taskId: asked.id, contextId: asked.contextId }),
      ),
    );
    assert.equal(ran.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(ran));
    assert.equal(ran.id, asked.id);
    assert.equal(ran.contextId, asked.contextId);
    const [summaryText, aggregate] = ran.artifacts![0]!.parts;
    assert.equal(summaryText!.text, 's1 query_order_status: completed\ns2 cancel_order: completed');
    assert.deepEqual(aggregate!.data.results, { s1: { status: 'pending_shipment' }, s2: { success: true } });
    assert.equal(aggregate!.data.summary.request, 'tell me the result');
    assert.deepEqual(deliveredFor(orderId), ['query_order_status', 'cancel_order']);
    const read = taskJson(await client.getTask({ tenant: '', id: asked.id }));
    assert.equal(read.status.state, 'TASK_STATE_COMPLETED');
    const repeated = taskJson(
      await client.sendMessage(message(`yes-${orderId}`, [{ data: { confirm: true } }], { taskId: asked.id })),
    );
    assert.equal(repeated.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(deliveredFor(orderId), ['query_order_status', 'cancel_order'], 'a second yes runs nothing more');

    const stranger = await a2aClient(
      (await system.keys.create('default', { scopes: ['read', 'send'] }, 'plan-and-run-a2a-other')).key,
    );
    await assert.rejects(
      stranger.getTask({ tenant: '', id: asked.id }),
      { name: 'TaskNotFoundError' },
      "another key does not see this key's plan",
    );
  });

  it('plan and run - A2A: "no" cancels and nothing runs; a plan the router did not accept whole is rejected', async () => {
    const orderId = nextOrder();
    const client = await a2aClient(key);
    const message = (messageId: string, parts: object[], extra: object = {}) =>
      SendMessageRequest.fromJSON({ message: { messageId, role: 'ROLE_USER', parts, ...extra } });
    const asked = taskJson(
      await client.sendMessage(
        message(`plan-no-${orderId}`, [{ text: intentFor(orderId) }], { metadata: { skill: 'plan_and_run' } }),
      ),
    );
    const declined = taskJson(
      await client.sendMessage(message(`no-${orderId}`, [{ text: 'No' }], { taskId: asked.id })),
    );
    assert.equal(declined.status.state, 'TASK_STATE_CANCELED');
    await assert.rejects(client.sendMessage(message(`yes-late-${orderId}`, [{ text: 'yes' }], { taskId: asked.id })), {
      name: 'UnsupportedOperationError',
    });
    assert.equal(taskJson(await client.getTask({ tenant: '', id: asked.id })).status.state, 'TASK_STATE_CANCELED');

    const refused = taskJson(
      await client.sendMessage(
        message(
          `plan-lullaby-${orderId}`,
          [{ text: `Check the status of order ${orderId}, then sing me a lullaby about penguins` }],
          { metadata: { skill: 'plan_and_run' } },
        ),
      ),
    );
    assert.equal(refused.status.state, 'TASK_STATE_REJECTED');
    assert.match(refused.status.message!.parts[0]!.text!, /refused \(sing me a lullaby about penguins\)/);
    assert.equal(refused.status.message!.parts[1]!.data.runnable, false);
    assert.deepEqual(deliveredFor(orderId), []);
  });
});
