/**
 * One process for a small setup: `npm run api` with API_RUNS_WORKER=true runs the message worker itself and starts
 * message runs eagerly (the first workflow task comes back with the start). No worker process runs here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { configKeyEntry } from '../../rules/config-keys';
import { freePort, spawnServer, waitUntil, type LocalServer } from '../../supervisor/dev-servers';
import { eventually } from '../helpers/eventually';
import { acceptAndConfirm, startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request, TEST_API_KEY } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';

const ROOT = resolve(__dirname, '../..');
let servers: TestServers;
let api: LocalServer;
let agent: FakeAgent;
let baseUrl: string;
let logFile: string;

before(async () => {
  servers = await startTestServers();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  logFile = join(servers.dataDir, 'api.log');
  api = spawnServer('api', process.execPath, ['--import', 'tsx', join(ROOT, 'api/main.ts')], logFile, {
    ...process.env,
    API_PORT: String(port),
    PUBLIC_URL: baseUrl,
    TEMPORAL_ADDRESS: servers.temporalAddress,
    MONGODB_URI: servers.mongoUri,
    API_KEYS: configKeyEntry('default', ['admin'], TEST_API_KEY),
    ENDPOINT_ALLOW_LOOPBACK: 'true',
    ROUTER_PROVIDER: 'lexical',
    API_RUNS_WORKER: 'true',
    LOG_LEVEL: 'info',
  });
  await waitUntil('api', async () => (await fetch(`${baseUrl}/readyz`)).ok, 120_000, api);
  agent = await startFakeAgent(acceptAndConfirm);
});

after(async () => {
  await agent?.stop();
  await api?.stop();
  await servers?.stop();
});

describe('api runs the worker', () => {
  it('api runs the worker - a message is started eagerly and processed with no worker process', async () => {
    const registered = await registerAgent(baseUrl, agent.url);
    agent.secret = registered.secret;
    const sent = await request('POST', `${baseUrl}/v1/messages`, {
      message_id: 'eager-1',
      target: { agent_id: registered.agent_id, capability: 'echo' },
    });
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    const status = await eventually('the message processed', async () => {
      const answer = await request('GET', `${baseUrl}/v1/messages/eager-1`);
      return answer.body.state === 'processed' ? answer.body : undefined;
    });
    assert.equal(status.agent.agent_id, registered.agent_id);
    const sentLine = readFileSync(logFile, 'utf8')
      .split('\n')
      .find((line) => line.includes('"message_id":"eager-1"') && line.includes('message sent'));
    assert.ok(sentLine, 'the api logged the send');
    assert.equal(JSON.parse(sentLine).eagerly_started, true, 'the first workflow task came back with the start');
  });
});
