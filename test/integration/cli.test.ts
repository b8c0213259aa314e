/** The `reach` CLI as a real process against a running system. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { acceptAndConfirm } from '../helpers/fake-agent';
import { TEST_API_KEY } from '../helpers/http';
import type { TestSystem } from '../helpers/system';
import { startSystemWithAgent, type SystemWithAgent } from '../helpers/system-with-agent';

const ROOT = resolve(__dirname, '../..');
let world: SystemWithAgent | undefined;
let system: TestSystem;
let agentId: string;

async function reach(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'cli/reach.ts'), '--api', system.baseUrl, ...args],
      {
        cwd: ROOT,
        env: { ...process.env, REACH_API_KEY: TEST_API_KEY },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

before(async () => {
  world = await startSystemWithAgent({ behaviour: acceptAndConfirm, registration: { name: 'cli-echo' } });
  ({ system, agentId } = world);
});

after(() => world?.stop());

describe('cli', () => {
  it('cli - agents ls and show, human and --json', async () => {
    const ls = await reach('agents', 'ls');
    assert.equal(ls.code, 0);
    assert.match(ls.stdout, new RegExp(`${agentId}\\s+online\\s+cli-echo\\s+\\[echo\\]`));
    const json = JSON.parse((await reach('--json', 'agents', 'ls', '--capability', 'echo')).stdout) as {
      agent_id: string;
    }[];
    assert.deepEqual(
      json.map((a) => a.agent_id),
      [agentId],
    );
    const show = await reach('agents', 'show', agentId);
    assert.match(show.stdout, /capability echo/);
    assert.match(show.stdout, /instance i1 http .* healthy online/);
  });

  it('cli - send waits until processed and prints the result; status, trace and redrive', async () => {
    const sent = await reach('send', agentId, 'echo', '--payload', '{"n":1}', '--id', 'cli-1');
    assert.equal(sent.code, 0, sent.stderr);
    assert.match(sent.stderr, /cli-1: accepted/);
    assert.match(sent.stdout, /^cli-1 {2}processed/);
    assert.match(sent.stdout, /result \{"handled":"cli-1"\}/);
    const status = JSON.parse((await reach('--json', 'status', 'cli-1')).stdout) as { state: string; trace_id: string };
    assert.equal(status.state, 'processed');
    const trace = await reach('trace', status.trace_id);
    assert.match(trace.stdout, /cli-1 {2}processed/);
    const redrive = await reach('redrive', 'cli-1');
    assert.equal(redrive.code, 2);
    assert.match(redrive.stderr, /reach: 409 not_redrivable/);
  });

  it('cli - bad input and an unreachable api are reported, not thrown', async () => {
    const bad = await reach('send', agentId, 'echo', '--payload', '{oops');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--payload is not valid JSON/);
    const unknown = await reach('status', 'never-sent');
    assert.match(unknown.stderr, /404 message_not_found/);
    const { stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'cli/reach.ts'), '--api', 'http://127.0.0.1:9', 'status', 'x'],
      { cwd: ROOT },
    ).catch((e) => e as { stderr: string });
    assert.match(stderr, /cannot reach the api/);
  });

  it('cli - route shows the decision for an intent, and the candidates', async () => {
    const routed = await reach('route', 'Echoes', 'the', 'payload', 'back');
    assert.equal(routed.code, 0);
    assert.match(routed.stdout, new RegExp(`^${agentId}/echo on i1, by match; params \\{\\}`));
    assert.match(routed.stdout, /candidates \(threshold [0-9.]+, lexical\):/);
    const refused = JSON.parse((await reach('--json', 'route', 'zzzz', 'qqqq')).stdout) as {
      kind: string;
      code: string;
    };
    assert.deepEqual([refused.kind, refused.code], ['refused', 'no_match']);
  });

  it('cli - keys: new, ls, revoke; --key overrides $REACH_API_KEY and a wrong key is refused', async () => {
    const created = JSON.parse(
      (await reach('--json', 'keys', 'new', '--scope', 'read', '--name', 'cli-reader')).stdout,
    ) as { key: string; key_id: string };
    assert.match(created.key, /^rk_[0-9a-f]{12}_/);
    assert.match((await reach('keys', 'ls')).stdout, new RegExp(`${created.key_id}\\s+read\\s+cli-reader`));
    const asReader = await reach('--key', created.key, 'agents', 'ls');
    assert.equal(asReader.code, 0, asReader.stderr);
    const readerSends = await reach('--key', created.key, 'send', agentId, 'echo', '--no-wait');
    assert.match(readerSends.stderr, /reach: 403 insufficient_scope/);
    assert.equal((await reach('keys', 'revoke', created.key_id)).code, 0);
    const revoked = await reach('--key', created.key, 'agents', 'ls');
    assert.equal(revoked.code, 2);
    assert.match(revoked.stderr, /reach: 401 invalid_api_key/);
  });
});
