/**
 * Runs in flight must survive a deploy: every stored history (recorded from real runs by
 * `npm run record-histories`) is replayed against today's workflow code, which must issue the same commands.
 * Each folder holds the histories of one workflow shape: `classic/` from before the lean-delivery patch, `lean/`
 * after it (both of the `messageWorkflow` type), `lean-type/` runs of `leanMessageWorkflow`, `direct/` runs of the public `sendMessage` entry (`v1-` before direct starts were routed by intent,
 * `v2-` after; `test/tools/record-direct-histories.ts`), and `chains/` runs of `runChain` (`v1-` before the chain limits, `v2-` with them: results by reference, a step over the size cap, both runs of a chain that continued as new; `v3-` since the chain prepares its steps' messages itself (`PREPARED_STEPS`); `v4-` since it starts them itself and awaits them in local activities (`DIRECT_STEPS`); `test/tools/record-chain-histories.ts`).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';

const HISTORIES_DIR = resolve(__dirname, '../fixtures/histories');

function readJson(dir: string, name: string): unknown {
  return JSON.parse(readFileSync(join(dir, name), 'utf8'));
}

function storedHistories(shape: string) {
  const dir = join(HISTORIES_DIR, shape);
  const workflowIds = readJson(dir, 'workflow-ids.json') as Record<string, string>;
  return readdirSync(dir)
    .filter((name) => name in workflowIds)
    .sort()
    .map((name) => ({ workflowId: workflowIds[name]!, history: historyFromJSON(readJson(dir, name)) }));
}

async function replayFailures(histories: ReturnType<typeof storedHistories>): Promise<string[]> {
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories(
    { workflowsPath: require.resolve('../../workflows') },
    histories,
  )) {
    replayed++;
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  assert.equal(replayed, histories.length);
  return failures;
}

describe('workflow replay', () => {
  for (const [shape, atLeast] of [
    ['classic', 15],
    ['lean', 15],
    ['lean-type', 15],
    ['direct', 6],
    ['chains', 15],
  ] as const) {
    it(`workflow replay - every stored ${shape} history replays against the current workflow code without nondeterminism`, async () => {
      const histories = storedHistories(shape);
      assert.ok(histories.length >= atLeast, `found ${histories.length} stored ${shape} histories`);
      assert.deepEqual(await replayFailures(histories), []);
    });
  }
});
