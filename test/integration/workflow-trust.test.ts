/**
 * What the message workflow does with inputs the gateway did not build, and with an outage of its own catalogue's
 * database, on a Temporal dev server with scripted activities (test/helpers/workflow-env.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MessageStatus } from '../../messages/message';
import {
  cancelUpdate,
  EARLIER_MESSAGE_WORKFLOW,
  MESSAGE_WORKFLOW,
  MESSAGE_WORKFLOW_TYPES,
} from '../../messages/temporal';
import {
  messageInput,
  startWorkflowEnv,
  TEST_SEAL_KEYS,
  uniqueMessageId,
  type WorkflowEnv,
} from '../helpers/workflow-env';
import { sealInput } from '../../messages/seal';

let workflows: WorkflowEnv;

before(async () => {
  workflows = await startWorkflowEnv();
});

after(async () => {
  await workflows?.stop();
});

const policy = messageInput('x').policy;
const replyTo = { url: 'http://caller.example/hook', retry_initial_ms: 100 };

describe('workflow trust', () => {
  for (const workflowType of MESSAGE_WORKFLOW_TYPES) {
    it(`workflow trust - a run of ${workflowType} started by a namespace client with its own input (no caller, reply_to) delivers and notifies nothing`, async () => {
      const id = uniqueMessageId('forged');
      const { caller: _dropped, ...forged } = messageInput(id, { reply_to: replyTo });
      const status = (await (
        await workflows.start(
          forged,
          { verdicts: [{ kind: 'processed', result: 'ok' }] },
          { sealed: false, workflowType },
        )
      ).result()) as MessageStatus;
      assert.equal(status.state, 'rejected');
      assert.equal(status.reason?.code, 'invalid_access_token');
      assert.match(status.reason!.message, /not built by the gateway \(the input carries no gateway seal\)/);
      const calls = workflows.calls(id);
      assert.deepEqual(
        [calls.deliveries.length, calls.callerNotifications.length, calls.settlements.length],
        [0, 0, 0],
      );
    });
  }

  it(`workflow trust - a ${MESSAGE_WORKFLOW} run writes no patch marker and no TemporalChangeVersion; a new ${EARLIER_MESSAGE_WORKFLOW} run is lean behind its patch`, async () => {
    const markersOf = async (workflowType: string) => {
      const id = uniqueMessageId(`markers-${workflowType}`);
      const handle = await workflows.start(
        messageInput(id),
        { verdicts: [{ kind: 'processed', result: 'ok' }] },
        { workflowType },
      );
      assert.equal(((await handle.result()) as MessageStatus).state, 'processed');
      assert.equal(workflows.calls(id).deliveries.length, 1);
      const events = (await handle.fetchHistory()).events ?? [];
      const patches = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length;
      const changeVersions = events.filter(
        (e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion,
      ).length;
      return { patches, changeVersions };
    };
    assert.deepEqual(await markersOf(MESSAGE_WORKFLOW), { patches: 0, changeVersions: 0 });
    assert.deepEqual(await markersOf(EARLIER_MESSAGE_WORKFLOW), { patches: 1, changeVersions: 1 });
  });

  it('workflow trust - a sealed input changed afterwards (caller dropped to skip the ACL) is refused the same way', async () => {
    const id = uniqueMessageId('tampered');
    const { caller: _dropped, ...tampered } = sealInput(messageInput(id), TEST_SEAL_KEYS.keys[0]!, new Date());
    const status = (await (
      await workflows.start(tampered, { verdicts: [{ kind: 'processed', result: 'ok' }] }, { sealed: false })
    ).result()) as MessageStatus;
    assert.equal(status.state, 'rejected');
    assert.match(status.reason!.message, /the gateway seal does not match the input/);
    assert.equal(workflows.calls(id).deliveries.length, 0);
  });

  it('workflow trust - an outage of the catalogue longer than the lookup’s own retries costs time, not tries: the message is processed once', async () => {
    const id = uniqueMessageId('db-outage');
    // The lookup activity gives up after 4 tries (about 7 s); the outage lasts twice as long.
    const short = { ...policy, maxAttempts: 1, attemptTimeoutMs: 500, initialBackoffMs: 200, maxBackoffMs: 500 };
    const handle = await workflows.start(messageInput(id, { policy: short }), {
      verdicts: [{ kind: 'processed', result: 'ok' }],
      outageMs: 14_000,
    });
    const status = (await handle.result()) as MessageStatus;
    assert.equal(status.state, 'processed', JSON.stringify(status.reason));
    assert.equal(workflows.calls(id).deliveries.length, 1);
    assert.deepEqual(
      status.attempts.map((a) => a.outcome),
      ['processed'],
    );
  });

  it('workflow trust - a message cancelled during such an outage ends cancelled at the next look, not failed', async () => {
    const id = uniqueMessageId('db-outage-cancel');
    const short = { ...policy, maxAttempts: 1, attemptTimeoutMs: 500, initialBackoffMs: 200, maxBackoffMs: 500 };
    const handle = await workflows.start(messageInput(id, { policy: short }), {
      verdicts: [{ kind: 'processed', result: 'ok' }],
      outageMs: 120_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const cancelAsked = Date.now();
    await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'changed my mind' }] });
    const status = (await handle.result()) as MessageStatus;
    assert.equal(status.state, 'cancelled');
    assert.equal(workflows.calls(id).deliveries.length, 0);
    assert.ok(Date.now() - cancelAsked < 60_000, 'ended well before the outage did');
  });
});
