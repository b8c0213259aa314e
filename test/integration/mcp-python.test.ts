/**
 * The MCP face against an independent client: the Python `mcp` package from PyPI, in the venv `npm test` makes at
 * `<cache>/venv` (cache: AGENT_REACH_CACHE_DIR, else ~/.cache/agent-reach). The test skips, saying why, when that
 * venv has no `mcp`; REQUIRE_ALL_SUITES=1 (`.ci/run`) makes that skip fail the run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InputRequiredError } from '../../sdk';
import { mcpClient, sdkAgent } from '../helpers/mcp';
import { pythonModule, runPythonClient } from '../helpers/python';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

const { skip } = pythonModule('mcp', 'mcp');
const CITY = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

let servers: TestServers;
let system: TestSystem;
const stops: (() => Promise<unknown> | void)[] = [];

before(async () => {
  if (skip) return;
  servers = await startTestServers();
  system = await startSystem(servers);
});

after(async () => {
  for (const stop of stops.reverse()) await stop();
  await system?.stop();
  await servers?.stop();
});

describe('mcp python', () => {
  it(
    'mcp python - the PyPI client lists, routes, sends to an SDK agent, reads the status; an ACL hides and refuses; the agent asking is an elicitation',
    { skip },
    async () => {
      const name = `py-${process.pid}`;
      const worker = await sdkAgent(
        system.baseUrl,
        {
          name,
          capabilities: [
            {
              name: 'refund',
              description: 'Refunds an order',
              parameters: { type: 'object', properties: { order_id: { type: 'integer' } } },
            },
            { name: 'payout', description: 'Pays a supplier', acl: { scopes: ['payouts'] } },
            { name: 'weather', description: 'The weather in a city; asks which city first' },
          ],
        },
        (d) => {
          if (d.capability !== 'weather') return { refund_id: `r-${(d.params as { order_id: number }).order_id}` };
          if ((d.turn ?? 1) < 2) throw new InputRequiredError('Which city?', CITY);
          return { forecast: `sunny in ${String(d.params.city)}`, turn: d.turn };
        },
      );
      stops.push(worker.stop);
      const key = (await system.keys.create('default', { scopes: ['read', 'send'] }, 'mcp-python')).key;
      const messageId = `py-msg-${process.pid}`;

      const report = await runPythonClient('mcp_client.py', {
        url: `${system.baseUrl}/mcp`,
        key,
        agent_id: worker.agentId,
        capability: 'refund',
        message_id: messageId,
        params: { order_id: 77 },
        hidden_tool: `${name}__payout`,
        ask: {
          arguments: { message_id: `${messageId}-ask`, target: { agent_id: worker.agentId, capability: 'weather' } },
          answer: { city: 'Lima' },
        },
      });

      assert.equal(report.server, 'agent-reach');
      assert.deepEqual(report.tools, [
        'reach_plan_and_run',
        'reach_reply',
        'reach_route',
        'reach_search_agents',
        'reach_send',
        'reach_status',
      ]);
      assert.equal(report.route.body.kind, 'routed');
      assert.equal(report.send.is_error, false, JSON.stringify(report.send.body));
      assert.equal(report.send.body.state, 'processed');
      assert.deepEqual(report.send.body.result, { refund_id: 'r-77' });
      assert.equal(report.status.body.state, 'processed');
      assert.equal(report.bad.is_error, true);
      assert.equal(report.bad.body.error.code, 'invalid_request');
      assert.equal(report.after_bad, 6);
      assert.ok(report.capability_tools.includes(`${name}__refund`));
      assert.ok(!report.capability_tools.includes(`${name}__payout`));
      assert.equal(report.forbidden.is_error, true);
      assert.equal(report.forbidden.body.error.code, 'capability_forbidden');
      // The agent asked; the client's elicitation callback answered in the middle of the call; the same message went on.
      assert.deepEqual(report.asked, [{ message: 'Which city?', schema: CITY }]);
      assert.equal(report.ask.is_error, false, JSON.stringify(report.ask.body));
      assert.equal(report.ask.body.message_id, `${messageId}-ask`);
      assert.deepEqual(report.ask.body.result, { forecast: 'sunny in Lima', turn: 2 });
      // And the TypeScript client sees the same message the Python one sent.
      const ts = await mcpClient(system.baseUrl, key);
      stops.push(() => ts.close());
      const read = await ts.readResource({ uri: `reach://messages/${messageId}` });
      assert.equal(JSON.parse((read.contents[0] as { text: string }).text).state, 'processed');
    },
  );
});
