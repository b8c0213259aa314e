/**
 * Preloaded (`node --require`) by the processes that run the message worker; it acts only in the Temporal SDK's
 * workflow thread (Node passes `--require` on to worker threads).
 *
 * The SDK records a source-mapped stack trace of every promise a workflow makes, so that the `__stack_trace` query
 * (Temporal UI's "Stack Trace" tab) can show where each run waits. For a message run that was a fifth of the
 * workflow thread's CPU, 10–17 CPU-ms per hop (docs/benchmarks.md, issue 28). Here the SDK's promise hook is not
 * installed: that query answers with no stacks; everything else — replay, deadlock detection, failures — is as
 * before. A message run's own state is what its `status` query answers.
 *
 * Plain JavaScript: it runs before any TypeScript loader.
 */
'use strict';
const { isMainThread } = require('node:worker_threads');
const v8 = require('node:v8');

/** The SDK's workflow sandbox installs its promise hook from this file (`src/….ts` where source maps are on). */
const SDK_SANDBOX = /@temporalio[\\/]worker[\\/](lib|src)[\\/]workflow[\\/]vm-shared\.[jt]s/;

if (!isMainThread) {
  const createHook = v8.promiseHooks.createHook;
  v8.promiseHooks.createHook = function createHookOutsideTheSandbox(hooks) {
    if (SDK_SANDBOX.test(new Error().stack ?? '')) return () => undefined; // the hook's "stop" function
    return createHook.call(this, hooks);
  };
}
