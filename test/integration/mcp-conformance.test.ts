/**
 * The MCP project's own conformance suite (`@modelcontextprotocol/conformance`, pinned, under the Node 22 it needs;
 * test/runner/mcp-conformance-tools.ts) against `/mcp` of the real gateway, once per revision with
 * `--requirements <revision>` and the committed list of expected failures (test/fixtures/mcp-conformance/): the suite
 * exits non-zero when a scenario not listed fails or a listed one passes. Skipped, saying why, where the suite is not
 * installed (`npm run mcp-conformance`); `.ci/run` installs it.
 *
 * The suite sends no credentials: it talks to a relay that adds the API key to each request, as a client's
 * configuration does with its headers, and passes everything else (Host and Origin included) through unchanged.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../supervisor/dev-servers';
import { FIXTURE_AGENT, startFixtureAgent } from '../helpers/mcp-fixture-agent';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';
import { conformanceTools } from '../runner/mcp-conformance-tools';

const REVISIONS = ['2025-11-25', '2026-07-28'];
const EXPECTED_FAILURES = resolve(__dirname, '../fixtures/mcp-conformance');

const tools = conformanceTools();
const skip = 'missing' in tools ? tools.missing : false;

let servers: TestServers;
let system: TestSystem;
let relay: { url: string; stop(): Promise<void> };
let fixture: { stop(): Promise<void> };
let outputDir: string;

/** An HTTP relay of `/mcp` to `target` (path and query) that sets `authorization: Bearer <key>` on every request; streams are piped. */
async function keyRelay(target: string, key: string): Promise<{ url: string; stop(): Promise<void> }> {
  const upstream = new URL(target);
  const port = await freePort();
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${key}` };
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: `${upstream.pathname}${upstream.search}`,
        method: req.method,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return {
    // The suite's DNS-rebinding scenario expects the server to answer for `localhost`.
    url: `http://localhost:${port}/mcp`,
    stop: () => {
      server.closeAllConnections();
      return new Promise((done) => server.close(() => done()));
    },
  };
}

/** Runs the suite for one revision; its exit status and what it printed. */
function runSuite(revision: string): Promise<{ status: number | null; output: string }> {
  if ('missing' in tools) throw new Error(tools.missing);
  const args = [
    tools.cli,
    'server',
    '--url',
    relay.url,
    '--requirements',
    revision,
    '--expected-failures',
    join(EXPECTED_FAILURES, `${revision}.yml`),
    '--timeout',
    '20000',
    '-o',
    join(outputDir, revision),
  ];
  return new Promise((done, fail) => {
    const child = spawn(tools.node, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', fail);
    child.on('close', (status) => done({ status, output }));
  });
}

/**
 * The Tasks extension's checks (scenarios `tasks-*` of 2026-07-28), which the suite reports but does not score in its
 * exit status: `scenario: check` for each one that did not pass (the suite's own skips aside).
 */
function tasksCheckFailures(revision: string): string[] {
  const dir = join(outputDir, revision);
  const scenarios = readdirSync(dir).filter((name) => name.startsWith('server-tasks-'));
  assert.ok(scenarios.length >= 10, `the Tasks scenarios ran: ${scenarios.join(', ')}`);
  return scenarios.flatMap((scenario) => {
    const checks = JSON.parse(readFileSync(join(dir, scenario, 'checks.json'), 'utf8')) as {
      id: string;
      status: string;
    }[];
    return checks
      .filter((check) => check.status !== 'SUCCESS' && check.status !== 'SKIPPED')
      .map((check) => `${scenario}: ${check.id} ${check.status}`);
  });
}

/** The suite's closing part: the summary per scenario and the comparison with the expected failures. */
function summary(output: string): string {
  const at = output.indexOf('=== SUMMARY ===');
  return at < 0 ? output.slice(-4_000) : output.slice(at);
}

describe('mcp conformance', { skip }, () => {
  before(async () => {
    servers = await startTestServers();
    // Progress and log lines every 100 ms: the slow fixtures (FIXTURE_WORK_MS) get several while the gateway waits.
    // The catalogue is re-read every 200 ms: the suite listens for a list change 1.5 s at most, trigger call included.
    system = await startSystem(servers, { MCP_PROGRESS_INTERVAL_MS: '100', CATALOGUE_REFRESH_MS: '200' });
    const key = (await system.keys.create('default', { scopes: ['read', 'send', 'register'] }, 'mcp-conformance')).key;
    fixture = await startFixtureAgent(system.baseUrl, key);
    relay = await keyRelay(`${system.baseUrl}/mcp?agent=${FIXTURE_AGENT}`, key);
    outputDir = mkdtempSync(join(tmpdir(), 'agent-reach-mcp-conformance-'));
  });

  after(async () => {
    await relay?.stop();
    await fixture?.stop();
    await system?.stop();
    await servers?.stop();
    if (outputDir && !process.env.KEEP_CONFORMANCE_OUTPUT) rmSync(outputDir, { recursive: true, force: true });
  });

  for (const revision of REVISIONS) {
    it(`mcp conformance - revision ${revision}: every scenario passes but the expected failures, which still fail`, async () => {
      const { status, output } = await runSuite(revision);
      const shown = summary(output);
      assert.match(shown, /=== SUMMARY ===/, `the suite did not finish:\n${shown}`);
      assert.equal(
        status,
        0,
        `the suite's result differs from test/fixtures/mcp-conformance/${revision}.yml:\n${shown}`,
      );
      // Partial fulfillment (`multi_input`'s two questions, protocol/answers.ts) included.
      if (revision === '2026-07-28') assert.deepEqual(tasksCheckFailures(revision), []);
    });
  }
});
