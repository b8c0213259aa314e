/**
 * Stopping is not crashing: the api and the worker, run as processes the way `npm run api` / `npm run worker` (and
 * embedded and cluster mode) run them, are stopped with SIGTERM, or SIGINT then SIGTERM (Ctrl-C in a terminal, then
 * the supervisor's stop). Each exits 0 and logs its stop, with no error, fatal or "unexpected error" line.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { configKeyEntry } from '../../rules/config-keys';
import { locateModel } from '../../router/embeddings/model-files';
import { freePort, spawnServer, waitUntil, type LocalServer } from '../../supervisor/dev-servers';
import { eventually } from '../helpers/eventually';
import { TEST_API_KEY } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';

const ROOT = resolve(__dirname, '../..');
let servers: TestServers;

before(async () => {
  servers = await startTestServers();
});

after(async () => {
  await servers?.stop();
});

function start(name: 'api' | 'worker', env: NodeJS.ProcessEnv): { process: LocalServer; logFile: string } {
  const logFile = join(servers.dataDir, `${name}.log`);
  const child = spawnServer(name, process.execPath, ['--import', 'tsx', join(ROOT, name, 'main.ts')], logFile, {
    ...process.env,
    TEMPORAL_ADDRESS: servers.temporalAddress,
    MONGODB_URI: servers.mongoUri,
    API_KEYS: configKeyEntry('default', ['admin'], TEST_API_KEY),
    ROUTER_PROVIDER: 'lexical',
    LOG_LEVEL: 'info',
    ...env,
  });
  return { process: child, logFile };
}

/** The log's lines as JSON where they are JSON (pino), as text where not (a crash's stack on stderr). */
function logLines(logFile: string): { level?: number; msg?: string; text: string }[] {
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((text) => {
      try {
        return { ...(JSON.parse(text) as { level?: number; msg?: string }), text };
      } catch {
        return { text };
      }
    });
}

function assertCleanStop(logFile: string, stoppedMessage: string): void {
  const lines = logLines(logFile);
  const bad = lines.filter(
    (line) => (line.level ?? 0) >= 50 || /unexpected error|IllegalStateError|unhandledRejection/.test(line.text),
  );
  assert.deepEqual(
    bad.map((line) => line.text),
    [],
    'no error, fatal or unexpected-error line',
  );
  assert.ok(
    lines.some((line) => line.msg === stoppedMessage),
    `"${stoppedMessage}" is logged:\n${lines.map((l) => l.text).join('\n')}`,
  );
}

describe('clean stop', () => {
  it('clean stop - the api stopped with SIGTERM exits 0 and logs a stop, not an error', async () => {
    const port = await freePort();
    const api = start('api', { API_PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
    await waitUntil('api', async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, 120_000, api.process);
    api.process.child!.kill('SIGTERM');
    assert.equal(await api.process.exited, 0);
    assertCleanStop(api.logFile, 'api stopped');
  });

  it(
    'clean stop - the api stopped while its local models embed a new catalogue exits 0 (the model threads finish their batch first)',
    {
      skip:
        locateModel('multilingual-e5-small') && locateModel('bge-small-en-v1.5-q')
          ? false
          : 'local models not obtained (npm run models)',
    },
    async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const api = start('api', {
        API_PORT: String(port),
        PUBLIC_URL: base,
        ROUTER_PROVIDER: 'local',
        ENDPOINT_ALLOW_LOOPBACK: 'true',
      });
      await waitUntil('api', async () => (await fetch(`${base}/readyz`)).ok, 120_000, api.process);
      const headers = { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' };
      // Enough text that embedding it takes seconds on two cores.
      const capabilities = Array.from({ length: 40 }, (_, c) => ({
        name: `capability_${c}`,
        description: `Handles requests of kind ${c} for the test catalogue`,
        examples: Array.from(
          { length: 10 },
          (_, e) => `please handle request number ${e} of kind ${c} with some extra words`,
        ),
      }));
      const registered = await fetch(`${base}/v1/agents`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'big-agent', endpoint: 'http://127.0.0.1:9/deliveries', capabilities }),
      });
      assert.equal(registered.status, 201, await registered.text());
      // A route request makes the api embed the new catalogue; the stop comes while it does.
      void fetch(`${base}/v1/route`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ intent: 'please handle request number 3 of kind 7' }),
      }).catch(() => undefined);
      // Embedding 440 texts with each of two models takes seconds here: the stop lands in the middle of it.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      api.process.child!.kill('SIGTERM');
      assert.equal(await api.process.exited, 0);
      assertCleanStop(api.logFile, 'api stopped');
      assert.ok(!/terminate called/.test(readFileSync(api.logFile, 'utf8')), 'no thread stopped inside a native call');
    },
  );

  it('clean stop - the worker stopped with SIGINT then SIGTERM (Ctrl-C, then a supervisor) exits 0 and logs a stop', async () => {
    const worker = start('worker', {});
    await eventually(
      'the worker to run',
      async () => (logLines(worker.logFile).some((line) => line.msg === 'message worker running') ? true : undefined),
      {
        timeoutMs: 120_000,
        intervalMs: 200,
      },
    );
    worker.process.child!.kill('SIGINT');
    // The supervisor's SIGTERM comes while the worker drains (the SDK has let go of the signals by then).
    await eventually('the worker to log its stop', async () =>
      logLines(worker.logFile).some((line) => line.msg === 'worker stopping') ? true : undefined,
    );
    worker.process.child!.kill('SIGTERM');
    assert.equal(await worker.process.exited, 0);
    assertCleanStop(worker.logFile, 'worker stopped');
  });
});
