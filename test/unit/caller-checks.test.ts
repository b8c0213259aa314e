/**
 * The checks an activity makes of the run that scheduled it (activities/caller-checks.ts), with Temporal's answers
 * scripted: local calls pass; a regular call passes only from a gateway run on the gateway's queue, of a message type
 * or `sendMessage`, for the very message it names, whose input (for a message run) carries the gateway's seal.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { callerChecks } from '../../activities/caller-checks';
import { RunProvenance, type StartedRun } from '../../activities/run-provenance';
import type { MessageInput } from '../../messages/message';
import { sealInput, type SealKeys } from '../../messages/seal';

const QUEUE = 'agent-reach';
const sealKeys: SealKeys = {
  keys: ['caller-checks-test-seal-key-0123456789abcdef'],
  since: '2026-01-01T00:00:00.000Z',
};
const STARTED = '2026-12-01T10:00:00.000Z';
const input: MessageInput = {
  tenant: 'acme',
  message_id: 'm-1',
  trace_id: 'a'.repeat(32),
  target: { agent_id: 'agt_1', capability: 'refund' },
  callback_url: 'http://gw/v1/callback',
  accepted_at: STARTED,
  policy: { maxAttempts: 1, initialBackoffMs: 1, maxBackoffMs: 1, attemptTimeoutMs: 1000, defaultAckTimeoutMs: 1000 },
};
const sealed = sealInput(input, sealKeys.keys[0]!, new Date(STARTED));

/** The checks, for an activity scheduled by `run` (a regular activity unless `local`), counting Temporal reads. */
function checksFor(run: Partial<StartedRun>, local = false) {
  const scheduling: StartedRun = {
    workflow_id: 'msg:acme:m-1',
    run_id: 'r-1',
    type: 'leanMessageWorkflow',
    task_queue: QUEUE,
    started_at: STARTED,
    input: sealed,
    ...run,
  };
  let reads = 0;
  const provenance = new RunProvenance({
    gatewayTaskQueue: QUEUE,
    activityInfo: () => ({
      isLocal: local,
      workflowExecution: { workflowId: scheduling.workflow_id, runId: scheduling.run_id },
    }),
    read: async () => {
      reads++;
      return { run: scheduling, inputBytes: 100 };
    },
  });
  return { checks: callerChecks(provenance, sealKeys), reads: () => reads };
}

async function refusal(check: Promise<void>): Promise<string> {
  return check.then(
    () => 'passed',
    (error: unknown) =>
      error instanceof ApplicationFailure && error.nonRetryable ? `${error.type}: ${error.message}` : String(error),
  );
}

describe('caller checks', () => {
  it('caller checks - a local activity passes without reading Temporal; a local-only activity refuses a regular call', async () => {
    const local = checksFor({ task_queue: 'forger' }, true);
    assert.equal(await refusal(local.checks.messageRun('deliverOverSocket', input)), 'passed');
    assert.doesNotThrow(() => local.checks.local('settleMessage'));
    assert.equal(local.reads(), 0);
    assert.throws(
      () => checksFor({}).checks.local('settleMessage'),
      (e: ApplicationFailure) => e.type === 'foreign_caller' && /only as a local activity/.test(e.message),
    );
  });

  it('caller checks - a regular call from a sealed gateway message run (or sendMessage) for its own message passes; the run is read once', async () => {
    const { checks, reads } = checksFor({});
    assert.equal(await refusal(checks.messageRun('deliverOverSocket', input)), 'passed');
    assert.equal(await refusal(checks.messageRun('deliverOverSocket', input)), 'passed');
    assert.equal(reads(), 1, 'kept per run');
    assert.equal(
      await refusal(
        checksFor({ type: 'sendMessage', input: { tenant: 'acme' } }).checks.messageRun('rerouteMessage', input),
      ),
      'passed',
    );
  });

  it('caller checks - refused: a run on a queue of its own (named like ours), of another type, for another message, or unsealed', async () => {
    const cases: [string, Partial<StartedRun>, RegExp][] = [
      ['a foreign queue', { task_queue: 'forger' }, /task queue forger, not the gateway's/],
      ['another type', { type: 'notifyCallerWorkflow' }, /scheduled by a notifyCallerWorkflow run/],
      ['another message', { workflow_id: 'msg:acme:m-2' }, /is not message m-1's/],
      ['an unsealed message run', { input }, /not started by the gateway \(the input carries no gateway seal\)/],
      ['a seal made for another start', { started_at: '2026-12-01T11:00:00.000Z' }, /away from its seal/],
    ];
    for (const [what, run, reason] of cases) {
      const answer = await refusal(checksFor(run).checks.messageRun('deliverOverSocket', input));
      assert.match(answer, /^foreign_caller: deliverOverSocket refused: /, what);
      assert.match(answer, reason, what);
    }
  });
});
