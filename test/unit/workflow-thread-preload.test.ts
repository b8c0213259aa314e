/**
 * The workflow thread's preload (worker/workflow-thread-preload.cjs): in a worker thread started with it, the
 * Temporal SDK's sandbox records no stack trace per promise; without it, it does (the check that fails if it broke).
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { workflowThreadFlags } from '../../worker/workflow-thread';

const THREAD = resolve(__dirname, '../fixtures/workflow-thread-stacks.cjs');

function stacksRecorded(execArgv: string[]): Promise<number> {
  return new Promise((done, fail) => {
    const thread = new Worker(THREAD, { execArgv });
    thread.once('message', (answer: { stacks: number }) => {
      done(answer.stacks);
      void thread.terminate();
    });
    thread.once('error', fail);
  });
}

describe('workflow thread preload', () => {
  it('workflow thread preload - the SDK sandbox records a stack per workflow promise without it, none with it', async () => {
    const flags = workflowThreadFlags();
    assert.deepEqual(flags.slice(0, 1), ['--require']);
    assert.ok((await stacksRecorded([])) > 0, 'the SDK records stacks by default');
    assert.equal(await stacksRecorded(flags), 0);
    // As our processes run it: with tsx, whose source maps name the SDK's file `src/workflow/vm-shared.ts`.
    assert.equal(await stacksRecorded([...flags, '--import', 'tsx']), 0);
  });

  it('workflow thread preload - promise hooks installed by anything else still work', async () => {
    const probe = `
      const v8 = require('node:v8');
      let seen = 0;
      v8.promiseHooks.createHook({ init: () => seen++ });
      Promise.resolve();
      require('node:worker_threads').parentPort.postMessage({ stacks: seen });`;
    const seen = await new Promise<number>((done, fail) => {
      const thread = new Worker(probe, { eval: true, execArgv: workflowThreadFlags() });
      thread.once('message', (answer: { stacks: number }) => done(answer.stacks));
      thread.once('error', fail);
    });
    assert.ok(seen > 0);
  });
});
