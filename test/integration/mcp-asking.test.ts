/**
 * A synchronous MCP tool call whose message needs its caller's input (api/mcp/asking.ts), on the real gateway with
 * an SDK agent and the official clients: the agent's question (the message waits in input_required) and the router's
 * (reach_send by intent, a required parameter missing). A 2026-07-28 client (`@modelcontextprotocol/client`) gets an
 * input_required result and its SDK retries with the answer; a 2025-11-25 session whose client declared elicitation
 * (`@modelcontextprotocol/sdk`) gets an elicitation/create in the middle of the call; a client that declared neither
 * gets a result saying what is missing, and answers with reach_reply.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { answersOf, InputRequiredError, type Delivery } from '../../sdk';
import { request } from '../helpers/http';
import { mcpClient, sdkAgent, toolAnswer } from '../helpers/mcp';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

const AGENT = `mcp-asking-${process.pid}`;
const CITY = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

const DAY = { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] };

/** Asks two questions at once; the next turn tells the answers it got, by question key. */
function trip(d: Delivery) {
  const answers = answersOf(d);
  if (!answers)
    throw InputRequiredError.several('Two things.', {
      origin: { message: 'From where?', schema: CITY },
      date: { message: 'When?', schema: DAY },
    });
  return { from: answers.origin?.params?.city, on: answers.date?.params?.day };
}

let servers: TestServers;
let system: TestSystem;
let key: string;
let agentId: string;
const stops: (() => Promise<unknown> | void)[] = [];
/** What the agent got: per message id, the turns delivered and their params. */
const deliveries: { message_id: string; turn: number; params: Record<string, unknown> }[] = [];

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers);
  key = (await system.keys.create('default', { scopes: ['read', 'send'] }, 'mcp-asking')).key;
  const worker = await sdkAgent(
    system.baseUrl,
    {
      name: AGENT,
      capabilities: [
        { name: 'weather', description: 'The weather in a city; asks which city first' },
        { name: 'trip', description: 'Books a trip; asks where from and when, at once' },
        {
          name: 'request_refund',
          description: 'Refund an order to the buyer',
          tags: ['refund'],
          examples: ['please refund order 2024090112', 'refund my order 2024090577'],
          parameters: {
            type: 'object',
            required: ['order_id'],
            properties: { order_id: { type: 'string', pattern: '^\\d{8,20}$' } },
          },
        },
      ],
    },
    async (d) => {
      deliveries.push({ message_id: d.message_id, turn: d.turn ?? 1, params: d.params });
      if (d.capability === 'request_refund') return { refunded: d.params.order_id };
      if (d.capability === 'trip') return trip(d);
      if ((d.turn ?? 1) < 2) throw new InputRequiredError('Which city?', CITY);
      return { forecast: `sunny in ${String(d.params.city)}` };
    },
  );
  stops.push(worker.stop);
  agentId = worker.agentId;
});

after(async () => {
  for (const stop of stops.reverse()) await stop();
  await system?.stop();
  await servers?.stop();
});

/** A 2026-07-28 client of the v2 SDK that answers every elicitation with `content`, and counts them. */
async function modernClient(
  content: Record<string, string>,
): Promise<{ client: ModernClient; asked: { message: string; schema: unknown }[] }> {
  const asked: { message: string; schema: unknown }[] = [];
  const client = new ModernClient(
    { name: 'mcp-asking-test', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async (req) => {
    asked.push({ message: req.params.message, schema: (req.params as { requestedSchema?: unknown }).requestedSchema });
    return { action: 'accept', content };
  });
  await client.connect(
    new ModernTransport(new URL(`${system.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  stops.push(() => client.close());
  return { client, asked };
}

/** A 2025-11-25 session of the v1 SDK client that declared elicitation and answers with `content`. */
async function elicitingClient(
  content: Record<string, string>,
): Promise<{ client: Client; asked: { message: string; schema: unknown }[] }> {
  const asked: { message: string; schema: unknown }[] = [];
  const client = new Client({ name: 'mcp-asking-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push({ message: req.params.message, schema: (req.params as { requestedSchema?: unknown }).requestedSchema });
    return { action: 'accept', content };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${system.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  stops.push(() => client.close());
  return { client, asked };
}

const weather = () => ({ target: { agent_id: agentId, capability: 'weather' } });
const turnsOf = (messageId: string) => deliveries.filter((d) => d.message_id === messageId).map((d) => d.turn);

describe('mcp asking', () => {
  it('mcp asking - 2026-07-28: the agent asks, the client answers the input_required result, the same message goes on to its end', async () => {
    const { client, asked } = await modernClient({ city: 'Lyon' });
    const messageId = `ask-modern-${process.pid}`;
    const answer = toolAnswer(
      await client.callTool({ name: 'reach_send', arguments: { ...weather(), message_id: messageId } }),
    );
    assert.equal(answer.isError, false, JSON.stringify(answer.body));
    assert.equal(answer.body.message_id, messageId);
    assert.equal(answer.body.state, 'processed');
    assert.deepEqual(answer.body.result, { forecast: 'sunny in Lyon' });
    assert.deepEqual(asked, [{ message: 'Which city?', schema: CITY }]);
    // One message, two turns: the answer was its reply.
    assert.deepEqual(turnsOf(messageId), [1, 2]);
    assert.equal(answer.body.turns.filter((t: { role: string }) => t.role === 'caller').at(-1).params.city, 'Lyon');
  });

  it('mcp asking - 2026-07-28: the router misses a parameter, the client gives it, the message goes to the chosen capability', async () => {
    const { client, asked } = await modernClient({ order_id: '2024090999' });
    const messageId = `route-modern-${process.pid}`;
    const answer = toolAnswer(
      await client.callTool({
        name: 'reach_send',
        arguments: { message_id: messageId, intent: 'please refund my order' },
      }),
    );
    assert.equal(answer.isError, false, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.result, { refunded: '2024090999' });
    assert.equal(answer.body.parent_message_id, messageId);
    assert.equal(asked.length, 1);
    assert.deepEqual((asked[0]!.schema as { required: string[] }).required, ['order_id']);
    // The refused message stays refused; its continuation is one message, sent once.
    const refused = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
    assert.equal(refused.body.state, 'rejected');
    assert.deepEqual(turnsOf(answer.body.message_id), [1]);
  });

  it('mcp asking - 2025-11-25 with elicitation: the question is an elicitation/create in the middle of the call, the answer the reply', async () => {
    const { client, asked } = await elicitingClient({ city: 'Oslo' });
    const messageId = `ask-session-${process.pid}`;
    const answer = toolAnswer(
      await client.callTool({ name: 'reach_send', arguments: { ...weather(), message_id: messageId } }),
    );
    assert.equal(answer.isError, false, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.result, { forecast: 'sunny in Oslo' });
    assert.deepEqual(asked, [{ message: 'Which city?', schema: CITY }]);
    assert.deepEqual(turnsOf(messageId), [1, 2]);

    const routed = toolAnswer(
      await (
        await elicitingClient({ order_id: '2024090888' })
      ).client.callTool({ name: 'reach_send', arguments: { intent: 'please refund my order' } }),
    );
    assert.equal(routed.isError, false, JSON.stringify(routed.body));
    assert.deepEqual(routed.body.result, { refunded: '2024090888' });
  });

  it('mcp asking - several questions at once are asked one at a time (2026-07-28 and 2025-11-25), the agent gets one turn', async () => {
    const expected = [
      { message: 'Two things. From where?', schema: CITY },
      { message: 'Two things. When?', schema: DAY },
    ];
    const trip = { target: { agent_id: agentId, capability: 'trip' } };
    const modern = await modernClient({ city: 'Lyon', day: 'Monday' });
    const modernId = `trip-modern-${process.pid}`;
    const first = toolAnswer(
      await modern.client.callTool({ name: 'reach_send', arguments: { ...trip, message_id: modernId } }),
    );
    assert.equal(first.isError, false, JSON.stringify(first.body));
    assert.deepEqual(first.body.result, { from: 'Lyon', on: 'Monday' });
    assert.deepEqual(modern.asked, expected);
    assert.deepEqual(turnsOf(modernId), [1, 2], 'one follow-up turn for both answers');

    const session = await elicitingClient({ city: 'Oslo', day: 'Friday' });
    const sessionId = `trip-session-${process.pid}`;
    const second = toolAnswer(
      await session.client.callTool({ name: 'reach_send', arguments: { ...trip, message_id: sessionId } }),
    );
    assert.equal(second.isError, false, JSON.stringify(second.body));
    assert.deepEqual(second.body.result, { from: 'Oslo', on: 'Friday' });
    assert.deepEqual(session.asked, expected);
    assert.deepEqual(turnsOf(sessionId), [1, 2]);
  });

  it('mcp asking - a client that can be asked nothing is told what is missing, and answers with reach_reply', async () => {
    const client = await mcpClient(system.baseUrl, key);
    stops.push(() => client.close());
    const messageId = `ask-plain-${process.pid}`;
    const waiting = toolAnswer(
      await client.callTool({ name: 'reach_send', arguments: { ...weather(), message_id: messageId } }),
    );
    assert.equal(waiting.isError, false, JSON.stringify(waiting.body));
    assert.equal(waiting.body.state, 'input_required');
    assert.equal(waiting.body.message_id, messageId);
    assert.deepEqual(waiting.body.asks, { message: 'Which city?', schema: CITY });
    assert.match(waiting.body.how, /reach_reply/);

    const bad = toolAnswer(
      await client.callTool({ name: 'reach_reply', arguments: { message_id: messageId, params: { city: 7 } } }),
    );
    assert.equal(bad.isError, true);
    assert.equal(bad.body.error.code, 'invalid_request');
    const done = toolAnswer(
      await client.callTool({ name: 'reach_reply', arguments: { message_id: messageId, params: { city: 'Kyoto' } } }),
    );
    assert.equal(done.isError, false, JSON.stringify(done.body));
    assert.deepEqual(done.body.result, { forecast: 'sunny in Kyoto' });
    assert.deepEqual(turnsOf(messageId), [1, 2]);
    const again = toolAnswer(
      await client.callTool({ name: 'reach_reply', arguments: { message_id: messageId, params: { city: 'Kyoto' } } }),
    );
    assert.equal(again.body.error.code, 'not_waiting_for_input');

    const refused = toolAnswer(
      await client.callTool({ name: 'reach_send', arguments: { intent: 'please refund my order' } }),
    );
    assert.equal(refused.isError, true);
    assert.equal(refused.body.error.code, 'input_required');
    assert.deepEqual(refused.body.error.details.asks.schema.required, ['order_id']);
  });
});
