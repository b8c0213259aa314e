/**
 * The seeds' double refund, prevented: the SDK refund agent refunds, then crashes before its receipt. The gateway
 * redelivers the same message id to the restarted agent, whose persistent store answers "duplicate" with the
 * remembered result. The ledger shows one refund.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../supervisor/dev-servers';
import { eventually } from '../helpers/eventually';
import { request, TEST_API_KEY } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

const ROOT = resolve(__dirname, '../..');
let servers: TestServers;
let system: TestSystem;
let dataDir: string;

function runRefundAgent(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'demo/refund-agent.ts')], {
    cwd: ROOT,
    env: { ...process.env, REACH_API_KEY: TEST_API_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, exit, output: () => output };
}

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers);
  dataDir = mkdtempSync(join(tmpdir(), 'agent-reach-refund-'));
});

after(async () => {
  await system?.stop();
  await servers?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('sdk refund', () => {
  it('sdk refund - a crash after refunding and before the receipt still refunds exactly once', async () => {
    const env = { GATEWAY: system.baseUrl, PORT: String(await freePort()), DATA_DIR: dataDir, ACK_TIMEOUT_MS: '1500' };
    const crashing = runRefundAgent({ ...env, CRASH_AFTER_REFUND: '1' });
    const agentId = await eventually(
      'the agent to register',
      async () => /ready (agt_[0-9a-f]{24})/.exec(crashing.output())?.[1],
      { timeoutMs: 30_000 },
    );

    const messageId = `refund-${Date.now()}`;
    const sent = await request('POST', `${system.baseUrl}/v1/messages`, {
      message_id: messageId,
      target: { agent_id: agentId, capability: 'refund' },
      payload: { order_id: 'o-1042', amount: 25.5 },
    });
    assert.equal(sent.status, 202);
    assert.equal(await crashing.exit, 137, 'the agent died after refunding');

    const restarted = runRefundAgent(env);
    try {
      const again = await eventually(
        'the restarted agent',
        async () => /ready (agt_[0-9a-f]{24})/.exec(restarted.output())?.[1],
        { timeoutMs: 30_000 },
      );
      assert.equal(again, agentId, 'the restarted agent reused its identity');
      const status = await eventually(
        'processed',
        async () => {
          const response = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
          return response.body.state === 'processed' ? response.body : undefined;
        },
        { timeoutMs: 30_000 },
      );
      assert.deepEqual(status.attempts.map((a: { outcome: string }) => a.outcome).slice(-1), ['duplicate']);
      assert.equal(status.result.refund_id, `r-${messageId}`);
      const ledger = join(dataDir, 'refunds.jsonl');
      assert.ok(existsSync(ledger));
      const refunds = readFileSync(ledger, 'utf8').trim().split('\n');
      assert.equal(refunds.length, 1, 'one refund in the ledger');
    } finally {
      restarted.child.kill('SIGTERM');
      await restarted.exit;
    }
  });
});
