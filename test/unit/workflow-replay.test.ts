/**
 * Runs in flight must survive a deploy: every stored history (recorded from real runs by
 * `npm run record-histories`) is replayed against today's workflow code, which must issue the same commands.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';

const HISTORIES_DIR = resolve(__dirname, '../fixtures/histories');

function readJson(name: string): unknown {
  return JSON.parse(readFileSync(join(HISTORIES_DIR, name), 'utf8'));
}

function storedHistories() {
  const workflowIds = readJson('workflow-ids.json') as Record<string, string>;
  return readdirSync(HISTORIES_DIR)
    .filter((name) => name in workflowIds)
    .sort()
    .map((name) => ({ workflowId: workflowIds[name]!, history: historyFromJSON(readJson(name)) }));
}

describe('workflow replay', () => {
  it('workflow replay - every stored history replays against the current workflow code without nondeterminism', async () => {
    const histories = storedHistories();
    assert.ok(histories.length >= 15, `found ${histories.length} stored histories`);
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories({ workflowsPath: require.resolve('../../workflows') }, histories)) {
      replayed++;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    assert.equal(replayed, histories.length);
    assert.deepEqual(failures, []);
  });
});
