/**
 * The cancel notice and the reply_to notice: each has its own `webhook-id` (not the delivery's), the same on every
 * retry, and neither is sent where the endpoint policy refuses, IP literals included.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { Webhook } from 'standardwebhooks';
import { createNotifyCaller } from '../../activities/notify-caller';
import { RunProvenance, type StartedRun } from '../../activities/run-provenance';
import { sealInput, type SealKeys } from '../../messages/seal';
import { createNotifyCancel } from '../../activities/notify-cancel';
import type { MessageInput, MessageStatus } from '../../messages/message';
import type { ChainStatus } from '../../chains/chain';
import { loadConfig } from '../../platform/config';
import { endpointPolicy } from '../../rules/endpoint-policy';
import { newSigningSecret } from '../../rules/signing';

const message: MessageInput = {
  tenant: 'default',
  message_id: 'm-1',
  trace_id: 'a'.repeat(32),
  target: { agent_id: 'agt_1', capability: 'refund' },
  callback_url: 'http://gw/v1/callback',
  accepted_at: '2026-11-30T10:00:00.000Z',
  policy: { maxAttempts: 5, initialBackoffMs: 10, maxBackoffMs: 20, attemptTimeoutMs: 1000, defaultAckTimeoutMs: 1000 },
};
const status = {
  message_id: 'm-1',
  trace_id: 'a'.repeat(32),
  tenant: 'default',
  state: 'processed',
  target: { agent_id: 'agt_1', capability: 'refund' },
  attempts: [],
  accepted_at: '2026-11-30T10:00:00.000Z',
  updated_at: '2026-11-30T10:00:02.000Z',
  completed_at: '2026-11-30T10:00:02.000Z',
} as MessageStatus;

const strict = endpointPolicy(loadConfig({}));

const sealKeys: SealKeys = {
  keys: ['unit-test-seal-key-0123456789abcdefghijklmnop'],
  since: '2026-11-01T00:00:00.000Z',
};
const GATEWAY_QUEUE = 'agent-reach';
const NOTIFICATION = { workflow_id: 'msg:default:m-1:reply:run-1', run_id: 'reply-run-1' };
const PARENT = { workflow_id: 'msg:default:m-1', run_id: 'run-1' };

/** A run as Temporal would tell it; on the gateway's queue unless said otherwise. */
function startedRun(run: Partial<StartedRun> & Pick<StartedRun, 'type'>): StartedRun {
  return {
    workflow_id: PARENT.workflow_id,
    run_id: PARENT.run_id,
    task_queue: GATEWAY_QUEUE,
    started_at: '2026-11-30T10:00:00.000Z',
    input: {},
    ...run,
  };
}

/**
 * Who scheduled the activity, as Temporal would say: a notification run (its start, queue and parent) and its parent
 * run, if any. The activity is a regular one, as the gateway schedules it.
 */
function provenanceOf(notification: Partial<StartedRun>, parent?: StartedRun) {
  const runs = new Map<string, StartedRun>();
  runs.set(
    NOTIFICATION.run_id,
    startedRun({
      type: 'notifyCallerWorkflow',
      ...NOTIFICATION,
      started_at: '2026-11-30T10:00:02.000Z',
      parent: PARENT,
      ...notification,
    }),
  );
  if (parent) runs.set(parent.run_id, parent);
  return new RunProvenance({
    gatewayTaskQueue: GATEWAY_QUEUE,
    activityInfo: () => ({
      isLocal: false,
      workflowExecution: { workflowId: NOTIFICATION.workflow_id, runId: NOTIFICATION.run_id },
    }),
    read: async (workflowId, runId) => {
      const run = runs.get(runId);
      if (!run) throw new Error(`no run ${workflowId}/${runId}`);
      return { run, inputBytes: 10 };
    },
  });
}
/** A notification started, as the gateway starts them, by a run of the public entry workflow. */
const fromEntry = () =>
  provenanceOf({}, startedRun({ type: 'sendMessage', input: { reply_to: { url: 'http://caller.example/hook' } } }));
const fromEntryTo = (url: string) =>
  provenanceOf({}, startedRun({ type: 'sendMessage', input: { reply_to: { url } } }));

function recordingFetch() {
  const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url, headers: init.headers as Record<string, string>, body: String(init.body) });
    return new Response(null, { status: 204 });
  }) as typeof globalThis.fetch;
  return { sent, fetch };
}

describe('notifications', () => {
  it('notifications - the cancel notice has its own webhook-id, the same on a retry, and is signed with it', async () => {
    const secret = newSigningSecret();
    const { sent, fetch } = recordingFetch();
    const notifyCancel = createNotifyCancel({
      fetch,
      now: Date.now,
      queries: { signingSecrets: async () => [secret] },
    });
    const request = { message, agent_id: 'agt_1', endpoint: 'http://agent.example/deliveries' };
    assert.deepEqual(await notifyCancel(request), { http_status: 204 });
    await notifyCancel(request);
    assert.equal(sent.length, 2);
    assert.equal(sent[0]!.headers['webhook-id'], 'm-1/cancelled');
    assert.notEqual(sent[0]!.headers['webhook-id'], message.message_id, 'not the delivery id');
    assert.equal(sent[1]!.headers['webhook-id'], sent[0]!.headers['webhook-id']);
    assert.ok(new Webhook(secret).verify(sent[0]!.body, sent[0]!.headers));
  });

  it('notifications - the cancel notice is not sent where the endpoint policy refuses (an IP literal included)', async () => {
    const { sent, fetch } = recordingFetch();
    const notifyCancel = createNotifyCancel({
      fetch,
      now: Date.now,
      queries: { signingSecrets: async () => [newSigningSecret()] },
      endpointPolicy: strict,
    });
    for (const endpoint of [
      'http://169.254.169.254/latest/meta-data',
      'http://127.0.0.1:9/x',
      'http://[::1]:9/x',
      'http://10.0.0.7/x',
    ]) {
      const result = await notifyCancel({ message, agent_id: 'agt_1', endpoint });
      assert.match(result.error ?? '', /^endpoint not allowed: /, endpoint);
    }
    assert.equal(sent.length, 0);
  });

  it('notifications - the reply_to notice has its own webhook-id, the same on every retry, new when the message ends again', async () => {
    const secret = `whsec_${Buffer.from('caller-secret-for-tests-0123456789').toString('base64')}`;
    const { sent, fetch } = recordingFetch();
    const notifyCaller = createNotifyCaller({
      fetch,
      now: Date.now,
      callerWebhookSecret: secret,
      sealKeys,
      provenance: fromEntry(),
    });
    await notifyCaller({ url: 'http://caller.example/hook', status });
    await notifyCaller({ url: 'http://caller.example/hook', status });
    await notifyCaller({
      url: 'http://caller.example/hook',
      status: { ...status, completed_at: '2026-11-30T11:00:00.000Z' },
    });
    assert.equal(sent[0]!.headers['webhook-id'], 'm-1/ended/2026-11-30T10:00:02.000Z');
    assert.equal(sent[1]!.headers['webhook-id'], sent[0]!.headers['webhook-id']);
    assert.equal(sent[2]!.headers['webhook-id'], 'm-1/ended/2026-11-30T11:00:00.000Z');
    assert.ok(new Webhook(secret).verify(sent[0]!.body, sent[0]!.headers));
  });

  it('notifications - the reply_to notice is refused, not retried, where the endpoint policy refuses', async () => {
    const { sent, fetch } = recordingFetch();
    const url = 'http://[fd00:ec2::254]/hook';
    const notifyCaller = createNotifyCaller({
      fetch,
      now: Date.now,
      callerWebhookSecret: newSigningSecret(),
      endpointPolicy: strict,
      sealKeys,
      provenance: fromEntryTo(url),
    });
    await assert.rejects(notifyCaller({ url, status }), (error: unknown) => {
      assert.ok(error instanceof ApplicationFailure);
      assert.equal(error.type, 'ReplyToNotAllowed');
      assert.equal(error.nonRetryable, true);
      return true;
    });
    assert.equal(sent.length, 0);
  });
  describe('notifications - a reply_to notice is posted only when a gateway run asks, as Temporal says', () => {
    const url = 'http://caller.example/hook';
    const started = '2026-11-30T10:00:00.000Z';
    const sealed = sealInput(
      { ...message, reply_to: { url, retry_initial_ms: 5000 } },
      sealKeys.keys[0]!,
      new Date(started),
    );
    /** The notification run as Temporal tells it (`notification`), with `parent` as its parent run. */
    const attempt = async (
      notification: Partial<StartedRun>,
      parent: StartedRun | undefined,
      request: { url?: string; parent?: unknown; run_started_at?: string } = {},
    ) => {
      const { sent, fetch } = recordingFetch();
      const notifyCaller = createNotifyCaller({
        fetch,
        now: Date.now,
        callerWebhookSecret: newSigningSecret(),
        sealKeys,
        provenance: provenanceOf(notification, parent),
      });
      const outcome = await notifyCaller({ url, status, ...request } as Parameters<typeof notifyCaller>[0]).then(
        () => 'posted',
        (error: unknown) =>
          error instanceof ApplicationFailure && error.nonRetryable ? `${error.type}: ${error.message}` : String(error),
      );
      return { outcome, sent: sent.length };
    };
    const messageRun = (type: string, input: unknown = sealed) => startedRun({ type, started_at: started, input });

    it('notifications - posted for a message run (either message workflow type) whose sealed input names this URL', async () => {
      for (const type of ['leanMessageWorkflow', 'messageWorkflow']) {
        assert.deepEqual(await attempt({}, messageRun(type)), { outcome: 'posted', sent: 1 }, type);
      }
    });
    it('notifications - refused when no gateway run started it (a namespace client did), whatever the request claims', async () => {
      const { outcome, sent } = await attempt({ parent: undefined }, undefined, {
        parent: PARENT,
        run_started_at: '2026-10-01T00:00:00.000Z',
      });
      assert.match(outcome, /^NotificationRefused: notification refused: not started by a gateway run/);
      assert.equal(sent, 0);
    });
    it('notifications - refused when its parent is a workflow of another type', async () => {
      const { outcome, sent } = await attempt({}, messageRun('forgerWorkflow'));
      assert.match(outcome, /^NotificationRefused: .*started by a forgerWorkflow run/);
      assert.equal(sent, 0);
    });
    it('notifications - refused when its parent is named like a gateway run but runs on a task queue of its own', async () => {
      for (const type of ['sendMessage', 'leanMessageWorkflow', 'runChain']) {
        const { outcome, sent } = await attempt(
          {},
          { ...messageRun(type, { reply_to: { url } }), task_queue: 'forger' },
        );
        assert.match(outcome, /^NotificationRefused: .*on task queue forger/, type);
        assert.equal(sent, 0);
      }
    });
    it('notifications - refused when the activity was scheduled by a foreign run (not a notification run on the gateway queue)', async () => {
      const { outcome, sent } = await attempt({ task_queue: 'forger' }, messageRun('leanMessageWorkflow'));
      assert.match(outcome, /^NotificationRefused: .*task queue forger/);
      assert.equal(sent, 0);
    });
    it('notifications - refused when the parent message run has an input the gateway did not seal', async () => {
      const forged = { ...sealed, caller: undefined, seal: undefined };
      const { outcome, sent } = await attempt({}, messageRun('messageWorkflow', forged));
      assert.match(outcome, /^NotificationRefused: .*no gateway seal/);
      assert.equal(sent, 0);
    });
    it('notifications - refused when the URL is not the reply_to of the run that asked', async () => {
      const { outcome, sent } = await attempt({}, messageRun('messageWorkflow'), { url: 'http://attacker.example/x' });
      assert.match(outcome, /^NotificationRefused: .*not the reply_to of the run that asked/);
      assert.equal(sent, 0);
      const entry = await attempt({}, messageRun('sendMessage', { reply_to: { url: 'http://caller.example/other' } }));
      assert.match(entry.outcome, /not the reply_to of the run that asked/, 'a sendMessage parent too');
    });
    it("notifications - a notification run started before the deployment sealed (an earlier gateway) is posted as it was; its start is Temporal's", async () => {
      assert.deepEqual(await attempt({ parent: undefined, started_at: '2026-10-01T00:00:00.000Z' }, undefined), {
        outcome: 'posted',
        sent: 1,
      });
    });
  });
  describe("notifications - a chain's reply_to notice", () => {
    const url = 'http://caller.example/chain-hook';
    const chainStatus: ChainStatus = {
      chain_id: 'c-1',
      tenant: 'default',
      state: 'compensated',
      steps: [],
      started_at: '2026-11-30T10:00:00.000Z',
      ended_at: '2026-11-30T10:00:05.000Z',
    };
    const chainRun = (reply: string) =>
      provenanceOf(
        {},
        startedRun({
          type: 'runChain',
          workflow_id: 'chain:default:c-1',
          input: { tenant: 'default', chain_id: 'c-1', steps: [], reply_to: { url: reply } },
        }),
      );

    it("notifications - posted for a runChain run whose input names this URL, as chain.ended with the chain's webhook-id", async () => {
      const secret = newSigningSecret();
      const { sent, fetch } = recordingFetch();
      const notifyCaller = createNotifyCaller({
        fetch,
        now: Date.now,
        callerWebhookSecret: secret,
        sealKeys,
        provenance: chainRun(url),
      });
      await notifyCaller({ url, status: chainStatus });
      assert.equal(sent.length, 1);
      assert.equal(sent[0]!.headers['webhook-id'], 'c-1/chain-ended/2026-11-30T10:00:05.000Z');
      assert.equal(sent[0]!.headers.traceparent, undefined);
      const verified = new Webhook(secret).verify(sent[0]!.body, sent[0]!.headers) as {
        type: string;
        data: ChainStatus;
      };
      assert.equal(verified.type, 'chain.ended');
      assert.equal(verified.data.state, 'compensated');
    });

    it("notifications - refused when the URL is not the chain's reply_to", async () => {
      const { sent, fetch } = recordingFetch();
      const notifyCaller = createNotifyCaller({
        fetch,
        now: Date.now,
        callerWebhookSecret: newSigningSecret(),
        sealKeys,
        provenance: chainRun('http://caller.example/other'),
      });
      await assert.rejects(notifyCaller({ url, status: chainStatus }), /not the reply_to of the run that asked/);
      assert.equal(sent.length, 0);
    });
  });
});
