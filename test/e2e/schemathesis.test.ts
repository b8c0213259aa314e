/**
 * Schemathesis (from PyPI, in the venv `npm test` makes under the cache folder) against the live api: examples,
 * coverage, fuzzing and stateful phases, positive and negative data, every check, within a time budget. It fails on
 * any 5xx, any status the OpenAPI document does not state, any body that does not match its schema, a schema-valid
 * request refused with 400 or a schema-invalid one accepted, and an unsupported method not answered 405 with Allow.
 * It skips, saying so, only when the venv has no `st` (pip could not install it); REQUIRE_ALL_SUITES=1 fails that.
 * `SCHEMATHESIS_SEED` and `SCHEMATHESIS_MAX_TIME` (seconds) override the defaults.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OPERATIONS } from '../../api/openapi';
import { cacheDir } from '../../platform/cache-dir';
import { acceptAndConfirm, startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request, TEST_API_KEY } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

const ST = join(cacheDir(), 'venv', 'bin', 'st');
const CONFIG = resolve(__dirname, 'schemathesis.toml');
const MAX_TIME_S = Number(process.env.SCHEMATHESIS_MAX_TIME ?? 120);
const SEED = process.env.SCHEMATHESIS_SEED ?? '20261201';
const skip = existsSync(ST) ? false : `Schemathesis is not installed (${ST}); npm run python-tools installs it`;

let servers: TestServers;
let system: TestSystem;
let agent: FakeAgent;
let workDir: string;
/** A WebSocket agent whose secret the agents' operations are sent with (schemathesis.toml). */
let target: { agent_id: string; secret: string };

/** Runs `st` without blocking this process's event loop (the api under test lives in it). */
function runSchemathesis(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(ST, args, {
      cwd,
      env: { ...process.env, ...env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, output }));
  });
}

describe('schemathesis', { skip }, () => {
  before(async () => {
    servers = await startTestServers();
    // The tenant's rate limit would answer most of the run 429 (documented, but it tests nothing else).
    system = await startSystem(servers, { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' });
    agent = await startFakeAgent(acceptAndConfirm);
    // An HTTP agent to route and deliver to; the examples register a WebSocket one.
    const registered = await registerAgent(system.baseUrl, agent.url, { name: 'schemathesis-echo' });
    agent.secret = registered.secret;
    target = await registerAgent(system.baseUrl, 'http://127.0.0.1:9/unused', {
      name: 'schemathesis-target',
      endpoint: undefined,
      instances: [{ instance_id: 'ws-1', transport: 'websocket' }],
      // Not `echo`: routed messages go to the HTTP agent above, not to this one, which never connects.
      capabilities: [{ name: 'schemathesis-target', description: 'Receives only what names it' }],
    });
    workDir = mkdtempSync(join(tmpdir(), 'agent-reach-schemathesis-'));
  });

  after(async () => {
    await agent?.stop();
    await system?.stop();
    await servers?.stop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it(
    'schemathesis - every phase against the live api: no 5xx, no undocumented status, every body as documented',
    { timeout: (MAX_TIME_S + 240) * 1000 },
    async () => {
      const { code, output } = await runSchemathesis(
        [
          '--config-file',
          CONFIG,
          'run',
          `${system.baseUrl}/openapi.json`,
          '--phases',
          'examples,coverage,fuzzing,stateful',
          '--checks',
          'all',
          '--mode',
          'all',
          '--max-examples',
          '25',
          '--max-time',
          String(MAX_TIME_S),
          '--request-timeout',
          '30',
          '--seed',
          SEED,
          '--generation-database',
          'none',
          '--continue-on-failure',
          '--no-color',
        ],
        workDir,
        { ST_API_KEY: TEST_API_KEY, ST_AGENT_ID: target.agent_id, ST_AGENT_SECRET: target.secret },
      );
      const summary = output.slice(output.lastIndexOf('SUMMARY'));
      console.log(`[schemathesis] ${summary.replace(/\n+/g, '\n[schemathesis] ')}`);
      assert.equal(code, 0, `Schemathesis found failures:\n${output.slice(-20_000)}`);
      // Every operation but `/openapi.json` itself, which Schemathesis leaves out, was selected and tested.
      const [, selected, total, tested] = /Selected: (\d+)\/(\d+)\s+Tested: (\d+)/.exec(summary) ?? [];
      assert.equal(Number(total), OPERATIONS.length - 1, summary);
      assert.equal(selected, total);
      assert.equal(tested, total, 'every operation was tested');
      // The api stayed up through the run.
      assert.equal((await request('GET', `${system.baseUrl}/healthz`)).status, 200);
    },
  );
});
