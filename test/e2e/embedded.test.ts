/**
 * End to end, like a user: start embedded mode (`supervisor/embedded.ts`, what `npm start` runs) as a real process,
 * run a tiny HTTP agent, and drive the slice over HTTP. Then Ctrl-C, restart on the same data folder (history and
 * catalogue survive, this time with the worker as a process of its own), and kill the worker to see the supervisor
 * report it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, portAcceptsConnections } from '../../supervisor/dev-servers';
import { eventually } from '../helpers/eventually';
import { startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request } from '../helpers/http';

const ROOT = resolve(__dirname, '../..');

interface Embedded {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

let dataDir: string;
let env: NodeJS.ProcessEnv;
let apiUrl: string;
let uiPort: number;
let temporalPort: number;
let mongoPort: number;
let agent: FakeAgent;
let running: Embedded | undefined;
/** The development key embedded mode printed. */
let apiKey: string;
const withKey = () => ({ authorization: `Bearer ${apiKey}` });

function startEmbedded(extraEnv: NodeJS.ProcessEnv = {}): Embedded {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'supervisor/embedded.ts')], {
    cwd: ROOT,
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // a process group of its own, as in a terminal: Ctrl-C signals the whole group
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, output: () => output, exit };
}

async function waitRunning(embedded: Embedded): Promise<void> {
  await eventually(
    'embedded mode to print its URLs',
    async () => {
      if (embedded.child.exitCode !== null) throw new Error(`embedded mode exited:\n${embedded.output()}`);
      return embedded.output().includes('Agent-Reach is running') ? true : undefined;
    },
    { timeoutMs: 150_000, intervalMs: 200 },
  );
}

/** The process group of `pid` (Linux /proc). */
function processGroup(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

/** Pids of the direct children of `pid` (Linux /proc). */
function childPids(pid: number): { pid: number; cmdline: string }[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid !== pid) return [];
        return [{ pid: Number(name), cmdline: readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ') }];
      } catch {
        return [];
      }
    });
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'agent-reach-e2e-'));
  const apiPort = await freePort();
  [uiPort, temporalPort, mongoPort] = [await freePort(), await freePort(), await freePort()];
  apiUrl = `http://127.0.0.1:${apiPort}`;
  env = { ...process.env };
  delete env.TEMPORAL_ADDRESS;
  delete env.MONGODB_URI;
  Object.assign(env, {
    API_PORT: String(apiPort),
    EMBEDDED_TEMPORAL_PORT: String(temporalPort),
    EMBEDDED_TEMPORAL_UI_PORT: String(uiPort),
    EMBEDDED_MONGODB_PORT: String(mongoPort),
    DATA_DIR: dataDir,
    DELIVERY_INITIAL_BACKOFF_MS: '100',
  });
  agent = await startFakeAgent();
});

after(async () => {
  if (running && running.child.exitCode === null) {
    running.child.kill('SIGINT');
    await running.exit;
  }
  await agent?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded mode', () => {
  let agentId: string;
  const messageId = `e2e-${Date.now()}`;

  it('embedded mode - starts everything and prints the URLs', async () => {
    running = startEmbedded();
    await waitRunning(running);
    const banner = running.output();
    assert.match(banner, new RegExp(`API {10}http://127\\.0\\.0\\.1:${new URL(apiUrl).port}`));
    assert.match(banner, new RegExp(`Temporal UI {2}http://127\\.0\\.0\\.1:${uiPort}`));
    assert.ok((await fetch(`http://127.0.0.1:${uiPort}/`)).ok, 'Temporal UI answers');
    // The api's activity-only workers (routing, socket delivery) serve no workflows by design: no warning says so.
    assert.doesNotMatch(banner, /No workflows registered/);
    apiKey =
      /API key {6}(rk_\S+) \(tenant default, admin/.exec(banner)?.[1] ??
      assert.fail(`no API key in the banner:\n${banner}`);
    assert.equal(
      (await request('GET', `${apiUrl}/v1/agents`, undefined, { authorization: '' })).status,
      401,
      'the api wants a key',
    );
    assert.equal(
      (await request('GET', `${apiUrl}/v1/agents`, undefined, withKey())).status,
      200,
      'the printed key opens it',
    );
  });

  it('embedded mode - a message goes caller → workflow → agent → callback → processed', async () => {
    const registered = await registerAgent(apiUrl, agent.url, {}, withKey());
    agentId = registered.agent_id;
    agent.secret = registered.secret;
    const sent = await request(
      'POST',
      `${apiUrl}/v1/messages`,
      {
        message_id: messageId,
        target: { agent_id: agentId, capability: 'echo' },
        intent: 'say hello',
        payload: { hello: 'world' },
      },
      withKey(),
    );
    assert.equal(sent.status, 202);
    assert.match(
      sent.body.links.temporal_ui,
      new RegExp(`^http://127\\.0\\.0\\.1:${uiPort}/namespaces/default/workflows/`),
    );
    const done = await eventually('processed', async () => {
      const status = await request('GET', `${apiUrl}/v1/messages/${messageId}`, undefined, withKey());
      return status.body.state === 'processed' ? status.body : undefined;
    });
    assert.deepEqual(done.result, { handled: messageId });
    // The api runs the worker in embedded mode: the run's first workflow task came back with its start.
    const sentLine = running!
      .output()
      .split('\n')
      .find((line) => line.includes(`"message_id":"${messageId}"`) && line.includes('message sent'));
    assert.match(sentLine ?? assert.fail('the api logged no send'), /"eagerly_started":true/);
    const receiptAnswer = await eventually('the receipt answer', async () => agent.receiptAnswers[0]);
    assert.equal(receiptAnswer.status, 200);
    const again = await request(
      'POST',
      `${apiUrl}/v1/messages`,
      {
        message_id: messageId,
        target: { agent_id: agentId, capability: 'echo' },
        intent: 'say hello',
        payload: { hello: 'world' },
      },
      withKey(),
    );
    assert.equal(again.status, 200);
    assert.equal(agent.deliveries.length, 1, 'the repeat was not delivered again');
  });

  it('embedded mode - Ctrl-C (SIGINT to the process group, as a terminal sends it) stops every child cleanly', async () => {
    const supervisor = running!;
    // Our three children (the api runs the message worker by default); tsx's own esbuild helper is left out (it
    // exits by itself once its parent is gone).
    const children = childPids(supervisor.child.pid!).filter((c) =>
      /temporal|ferretdb|api\/main\.ts|worker\/main\.ts/.test(c.cmdline),
    );
    assert.equal(
      children.length,
      3,
      `expected temporal, ferretdb and api; saw ${children.map((c) => c.cmdline).join(' | ')}`,
    );
    // Each child in a group of its own: the terminal's SIGINT reaches the supervisor alone, which stops them in order
    // (with the servers in its group, they died at once and the api's last calls to them were retried, then killed).
    for (const child of children)
      assert.notEqual(processGroup(child.pid), supervisor.child.pid, `${child.cmdline} is in the supervisor's group`);
    const before = supervisor.output().length;
    process.kill(-supervisor.child.pid!, 'SIGINT');
    assert.equal(await supervisor.exit, 0, supervisor.output());
    const stopping = supervisor.output().slice(before);
    assert.match(stopping, /"msg":"api stopped"/);
    // Neither a crash nor the servers going first (the api's calls to a Temporal already gone are retried, WARN).
    assert.doesNotMatch(
      stopping,
      /unexpected error|IllegalStateError|unhandledRejection|"level":[4-6]0| WARN /,
      'a stop, not a crash',
    );
    for (const child of children) assert.ok(!existsProcess(child.pid), `child still alive: ${child.cmdline}`);
    assert.equal(await portAcceptsConnections(temporalPort), false);
    assert.equal(await portAcceptsConnections(mongoPort), false);
  });

  it('embedded mode - a restart on the same folder keeps history and catalogue (API_RUNS_WORKER=false: a worker process)', async () => {
    running = startEmbedded({ API_RUNS_WORKER: 'false' });
    await waitRunning(running);
    assert.ok(running.output().includes(apiKey), 'the same development key after a restart');
    const status = await request('GET', `${apiUrl}/v1/messages/${messageId}`, undefined, withKey());
    assert.equal(status.status, 200);
    assert.equal(status.body.state, 'processed');
    const registered = await request('GET', `${apiUrl}/v1/agents/${agentId}`, undefined, withKey());
    assert.equal(registered.status, 200);
  });

  it('embedded mode - a child that dies is reported and stops the rest', async () => {
    const supervisor = running!;
    const worker = childPids(supervisor.child.pid!).find((c) => c.cmdline.includes('worker/main.ts'));
    assert.ok(worker, 'the worker runs as a child');
    process.kill(worker.pid, 'SIGKILL');
    assert.equal(await supervisor.exit, 1);
    assert.match(supervisor.output(), /worker exited unexpectedly \(SIGKILL\); stopping everything/);
    assert.equal(await portAcceptsConnections(temporalPort), false);
  });
});

function existsProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
