/**
 * The message workflow's timer paths, on a Temporal dev server with scripted activities (test/helpers/workflow-env.ts
 * says why not the time-skipping server): ack timeout and redelivery, backoff and Retry-After, failover, deadline.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MessageStatus } from '../../messages/message';
import { cancelUpdate } from '../../messages/temporal';
import { messageInput, startWorkflowEnv, uniqueMessageId, type WorkflowEnv } from '../helpers/workflow-env';

let workflows: WorkflowEnv;

before(async () => {
  workflows = await startWorkflowEnv();
});

after(async () => {
  await workflows?.stop();
});

const policy = messageInput('x').policy;
const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
const startedAt = (status: MessageStatus, attempt: number) => Date.parse(status.attempts[attempt - 1]!.started_at);

describe('workflow timers', () => {
  it('workflow timers - no receipt within the ack timeout redelivers under the same id, twice per instance, then fails', async () => {
    const id = uniqueMessageId('ack-timeout');
    const handle = await workflows.start(
      messageInput(id, { policy: { ...policy, maxAttempts: 3, defaultAckTimeoutMs: 300 } }),
      { verdicts: [{ kind: 'accepted' }] },
    );
    const status = (await handle.result()) as MessageStatus;
    assert.equal(status.state, 'failed');
    assert.deepEqual(status.reason, {
      code: 'ack_timeout',
      message: 'no delivery succeeded in 3 attempts; last error: no receipt within 300 ms of delivery',
    });
    const deliveries = workflows.calls(id).deliveries;
    assert.deepEqual(
      deliveries.map((d) => [d.message.message_id, d.attempt, d.target.instance_id]),
      [
        [id, 1, 'inst-a'],
        [id, 2, 'inst-a'],
        [id, 3, 'inst-b'],
      ],
    );
    assert.deepEqual(
      status.attempts.map((a) => a.error),
      Array(3).fill('no receipt within 300 ms'),
    );
    assert.equal(workflows.calls(id).missingReceipts.length, 3);
    assert.ok(startedAt(status, 2) - startedAt(status, 1) >= 300, 'the redelivery waited the ack timeout');
  });

  it('workflow timers - transient errors back off (Retry-After as a floor) and fail over after two failures of one instance', async () => {
    const id = uniqueMessageId('backoff');
    const handle = await workflows.start(
      messageInput(id, { policy: { ...policy, initialBackoffMs: 100, maxBackoffMs: 400 } }),
      {
        verdicts: [
          { kind: 'transient', error: 'HTTP 503' },
          { kind: 'transient', error: 'HTTP 429', retryAfterMs: 800 },
          { kind: 'processed', result: 'ok' },
        ],
      },
    );
    const status = (await handle.result()) as MessageStatus;
    assert.equal(status.state, 'processed');
    assert.equal(status.result, 'ok');
    assert.deepEqual(
      status.attempts.map((a) => [a.outcome, a.instance_id]),
      [
        ['transient_error', 'inst-a'],
        ['transient_error', 'inst-a'],
        ['processed', 'inst-b'],
      ],
    );
    // First retry: 100 ms with equal jitter, so at least 50 ms; second: the agent's Retry-After of 800 ms.
    assert.ok(startedAt(status, 2) - startedAt(status, 1) >= 50, 'backed off before the second attempt');
    assert.ok(startedAt(status, 3) - startedAt(status, 2) >= 800, 'waited at least the Retry-After');
  });

  it('workflow timers - waiting on open circuits spends no tries: the message is delivered when the circuit lets it through', async () => {
    const id = uniqueMessageId('circuit-wait');
    const open = {
      kind: 'no_available_instance' as const,
      instances: [{ instance_id: 'inst-a', reason: 'circuit_open' }],
    };
    const handle = await workflows.start(
      messageInput(id, { policy: { ...policy, maxAttempts: 2, initialBackoffMs: 20, maxBackoffMs: 40 } }),
      {
        lookups: [open, open, open, open],
        verdicts: [{ kind: 'processed', result: 'ok' }],
      },
    );
    const status = (await handle.result()) as MessageStatus;
    assert.equal(status.state, 'processed', JSON.stringify(status.reason));
    assert.equal(
      status.attempts.filter((a) => a.outcome === 'unavailable').length,
      4,
      'four waits, more than maxAttempts',
    );
    assert.equal(workflows.calls(id).deliveries.length, 1);
  });

  it('workflow timers - an instance that is offline (not merely circuit-open) spends tries as before', async () => {
    const id = uniqueMessageId('offline-spends');
    const offline = {
      kind: 'no_available_instance' as const,
      instances: [{ instance_id: 'inst-a', reason: 'offline' }],
    };
    const handle = await workflows.start(
      messageInput(id, { policy: { ...policy, maxAttempts: 2, initialBackoffMs: 20, maxBackoffMs: 40 } }),
      {
        lookups: [offline, offline, offline],
        verdicts: [{ kind: 'processed', result: 'ok' }],
      },
    );
    const status = (await handle.result()) as MessageStatus;
    assert.equal(status.state, 'failed');
    assert.equal(status.reason?.code, 'no_available_instance');
    assert.equal(workflows.calls(id).deliveries.length, 0);
  });

  it('workflow timers - the deadline ends the wait for a receipt long before the ack timeout', async () => {
    const id = uniqueMessageId('deadline');
    const deadline = inSeconds(2);
    const handle = await workflows.start(
      messageInput(id, { deadline, policy: { ...policy, defaultAckTimeoutMs: 120_000 } }),
      { verdicts: [{ kind: 'accepted' }] },
    );
    const status = (await handle.result()) as MessageStatus;
    assert.equal(status.state, 'expired');
    assert.deepEqual(status.reason, {
      code: 'deadline_exceeded',
      message: `the deadline ${deadline} passed before the message was processed`,
    });
    assert.equal(status.attempts.length, 1);
    const lateBy = Date.parse(status.completed_at!) - Date.parse(deadline);
    assert.ok(lateBy >= 0 && lateBy < 10_000, `expired ${lateBy} ms after the deadline`);
  });

  it('workflow timers - the deadline cuts a long backoff short', async () => {
    const id = uniqueMessageId('deadline-backoff');
    const deadline = inSeconds(2);
    const handle = await workflows.start(messageInput(id, { deadline }), {
      verdicts: [{ kind: 'transient', error: 'HTTP 503', retryAfterMs: 300_000 }],
    });
    const status = (await handle.result()) as MessageStatus;
    assert.equal(status.state, 'expired');
    assert.equal(status.reason?.code, 'deadline_exceeded');
    assert.deepEqual(
      status.attempts.map((a) => a.outcome),
      ['transient_error'],
    );
  });

  it('workflow timers - an A2A task under way is polled with GetTask until it completes: its artifacts are the result, one delivery', async () => {
    const id = uniqueMessageId('a2a-poll');
    const working = { outcome: { kind: 'pending' as const, state: 'working' } };
    const handle = await workflows.start(messageInput(id), {
      transport: 'a2a',
      verdicts: [{ kind: 'accepted' }],
      polls: [
        working,
        working,
        { outcome: { kind: 'ended', state: 'completed', outcome: { status: 'processed', result: { rate: 0.9 } } } },
      ],
    });
    const status = (await handle.result()) as MessageStatus;
    assert.equal(status.state, 'processed');
    assert.deepEqual(status.result, { rate: 0.9 });
    assert.equal(status.attempts.length, 1);
    assert.equal(status.attempts[0]!.a2a_task_id, 'task-1');
    assert.deepEqual(workflows.calls(id).polls, ['task-1', 'task-1', 'task-1']);
    assert.equal(workflows.calls(id).deliveries.length, 1);
  });

  it('workflow timers - an A2A task that keeps working is not redelivered at the ack timeout; one whose agent stops answering is', async () => {
    const working = { outcome: { kind: 'pending' as const, state: 'working' } };
    const slowId = uniqueMessageId('a2a-working');
    const slow = await workflows.start(messageInput(slowId, { policy: { ...policy, defaultAckTimeoutMs: 500 } }), {
      transport: 'a2a',
      verdicts: [{ kind: 'accepted' }],
      // Working for longer than the ack timeout (250 + 500 + 1000 ms of polls), then done.
      polls: [
        working,
        working,
        working,
        { outcome: { kind: 'ended', state: 'completed', outcome: { status: 'processed', result: 'late' } } },
      ],
    });
    const slowStatus = (await slow.result()) as MessageStatus;
    assert.equal(slowStatus.state, 'processed');
    assert.equal(workflows.calls(slowId).deliveries.length, 1, 'word from the agent keeps the task followed');

    const goneId = uniqueMessageId('a2a-gone');
    const gone = await workflows.start(
      messageInput(goneId, { policy: { ...policy, maxAttempts: 2, defaultAckTimeoutMs: 400 } }),
      {
        transport: 'a2a',
        verdicts: [{ kind: 'accepted' }],
        polls: [{ failure: { transient: true, error: 'ECONNREFUSED' } }],
      },
    );
    const goneStatus = (await gone.result()) as MessageStatus;
    assert.equal(goneStatus.state, 'failed');
    assert.equal(goneStatus.reason?.code, 'ack_timeout');
    assert.deepEqual(
      workflows.calls(goneId).deliveries.map((d) => d.message.message_id),
      [goneId, goneId],
      'redelivered under the same id',
    );
  });

  it('workflow timers - an A2A task the agent fails ends the message failed with its reason; a cancel sends CancelTask', async () => {
    const failedId = uniqueMessageId('a2a-failed');
    const failed = await workflows.start(messageInput(failedId), {
      transport: 'a2a',
      verdicts: [{ kind: 'accepted' }],
      polls: [
        {
          outcome: {
            kind: 'ended',
            state: 'input-required',
            outcome: {
              status: 'failed',
              error: { code: 'a2a_input_required', message: 'Which currency?', retryable: false },
            },
          },
        },
      ],
    });
    const failedStatus = (await failed.result()) as MessageStatus;
    assert.equal(failedStatus.state, 'failed');
    assert.deepEqual(failedStatus.error, { code: 'a2a_input_required', message: 'Which currency?', retryable: false });
    assert.equal(workflows.calls(failedId).deliveries.length, 1, 'a failure the agent reports is not retried');

    const cancelId = uniqueMessageId('a2a-cancel');
    const running = await workflows.start(messageInput(cancelId), {
      transport: 'a2a',
      verdicts: [{ kind: 'accepted' }],
    });
    for (let i = 0; i < 100 && workflows.calls(cancelId).polls.length === 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    await running.executeUpdate(cancelUpdate, { args: [{ reason: 'changed my mind' }] });
    const cancelled = (await running.result()) as MessageStatus;
    assert.equal(cancelled.state, 'cancelled');
    assert.deepEqual(workflows.calls(cancelId).a2aCancels, ['task-1']);
    assert.deepEqual(workflows.calls(cancelId).cancels, [], 'no HTTP cancel notice to an A2A agent');
  });
});
