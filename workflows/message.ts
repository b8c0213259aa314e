/**
 * One durable workflow per message: resolve the target, deliver with retries, await the processed receipt.
 * Deterministic: no I/O here; time and randomness come from Temporal's workflow sandbox.
 */
import { condition, proxyActivities, setHandler, startChild, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeliverRequest, DeliverResult } from '../activities/deliver';
import type { SocketActivities } from '../activities/deliver-socket';
import type { DeliveryVerdict } from '../protocol/verdicts';
import type { DeliveryTarget } from '../catalogue/agent-queries';
import { retryDelayMs } from '../rules/backoff';
import {
  type AttemptRecord,
  type CancelInput,
  canTransition,
  isTerminal,
  type MessageInput,
  type MessageState,
  type MessageStatus,
  type Reason,
  type ReceiptInput,
} from '../messages/message';
import { cancelUpdate, receiptUpdate, SA_STATE, statusQuery } from '../messages/temporal';
import { startingStatus } from '../messages/status';
import { INSTANCE_FAILURES_BEFORE_FAILOVER, lookupRefusal, nextStep, outOfTime, type NextStep } from './next-step';
import { notifyCallerWorkflow } from './notify-caller';

/** Margin over the HTTP timeout before Temporal declares the activity itself lost (e.g. worker crash). */
const ACTIVITY_MARGIN_MS = 5_000;

export async function messageWorkflow(input: MessageInput): Promise<MessageStatus> {
  const status = await deliverMessage(input);
  if (input.reply_to) {
    // A child that outlives this run (ABANDON), so the message ends now while the notification retries for hours.
    const info = workflowInfo();
    await startChild(notifyCallerWorkflow, {
      workflowId: `${info.workflowId}:reply:${info.runId}`,
      args: [{ url: input.reply_to.url, retry_initial_ms: input.reply_to.retry_initial_ms, status }],
      parentClosePolicy: 'ABANDON',
    });
  }
  return status;
}

async function deliverMessage(input: MessageInput): Promise<MessageStatus> {
  const now = () => new Date().toISOString();
  const status = startingStatus(input, now());
  let receipt: ReceiptInput | undefined;
  let cancelRequest: CancelInput | undefined;
  const deadlineMs = input.deadline ? Date.parse(input.deadline) : Number.POSITIVE_INFINITY;

  const moveTo = (state: MessageState) => {
    if (status.state === state) return;
    if (!canTransition(status.state, state)) throw new Error(`illegal transition ${status.state} → ${state}`);
    status.state = state;
    status.updated_at = now();
    upsertSearchAttributes([{ key: SA_STATE, value: state }]);
  };
  const finish = (state: MessageState, reason?: Reason): MessageStatus => {
    moveTo(state);
    if (reason) status.reason = reason;
    status.completed_at = status.updated_at;
    return status;
  };
  const finishAs = (step: NextStep & { kind: 'finish' }): MessageStatus => {
    if ('result' in step) status.result = step.result;
    if (step.error) status.error = step.error;
    return finish(step.state, step.reason);
  };
  /** The receipt that came, consumed so that a redelivery's receipt can come too. */
  const takeReceipt = (): ReceiptInput => {
    const taken = receipt!;
    receipt = undefined;
    return taken;
  };

  setHandler(statusQuery, () => status);
  setHandler(cancelUpdate, (request) => {
    if (isTerminal(status.state)) return { cancelled: false, state: status.state };
    cancelRequest ??= request;
    return { cancelled: true, state: 'cancelled' };
  });
  /** Waits until `done()` or `ms` pass, but never past the deadline or a cancel request; returns `done()`. */
  const waitFor = async (done: () => boolean, ms: number): Promise<boolean> => {
    const bounded = Math.max(0, Math.min(ms, deadlineMs - Date.now()));
    await condition(() => done() || cancelRequest !== undefined, bounded);
    return done();
  };
  /** The end state when the caller cancelled or the deadline passed, else undefined. */
  const interruption = async (): Promise<MessageStatus | undefined> => {
    if (cancelRequest) {
      // Best effort, and over HTTP only: a WebSocket agent learns of it when its receipt is answered "not applied".
      const delivered = status.attempts.filter((a) => (a.outcome === 'accepted' || a.outcome === 'duplicate') && a.endpoint?.startsWith('http')).at(-1);
      if (delivered?.endpoint) {
        await notifyCancel({ message: input, agent_id: delivered.agent_id, endpoint: delivered.endpoint }).catch(() => undefined);
      }
      return finish('cancelled', { code: 'cancelled_by_caller', message: cancelRequest.reason ?? 'cancelled by the caller' });
    }
    if (Date.now() >= deadlineMs) {
      return finish('expired', { code: 'deadline_exceeded', message: `the deadline ${input.deadline} passed before the message was processed` });
    }
    return undefined;
  };
  setHandler(
    receiptUpdate,
    (r) => {
      if (receipt || isTerminal(status.state)) return { applied: false, state: status.state };
      receipt = r;
      return { applied: true, state: r.status === 'processed' ? 'processed' : 'failed' };
    },
    {
      validator: (r) => {
        if (!status.agent || r.agent_id !== status.agent.agent_id) {
          throw new Error('not_your_message: this message was not delivered to the agent sending the receipt');
        }
      },
    },
  );

  const { resolveTarget } = proxyActivities<Activities>({
    startToCloseTimeout: '30s',
    scheduleToCloseTimeout: '5m',
    retry: { maximumInterval: '10s' },
  });
  const { deliver } = proxyActivities<Activities>({
    startToCloseTimeout: input.policy.attemptTimeoutMs + ACTIVITY_MARGIN_MS,
    retry: { maximumAttempts: 3 },
  });
  /** HTTP from any worker, or WebSocket from the api replica holding the socket; a lost activity is transient. */
  const deliverTo = async (target: DeliveryTarget, request: DeliverRequest): Promise<DeliverResult> => {
    try {
      if (target.transport !== 'websocket' || !target.ws_task_queue) return await deliver(request);
      const { deliverOverSocket } = proxyActivities<SocketActivities>({
        taskQueue: target.ws_task_queue,
        startToCloseTimeout: input.policy.attemptTimeoutMs + ACTIVITY_MARGIN_MS,
        scheduleToStartTimeout: '5s', // the replica holding the socket is gone: move on
        retry: { maximumAttempts: 1 },
      });
      return await deliverOverSocket(request);
    } catch (error) {
      return { verdict: { kind: 'transient', error: `delivery activity failed: ${(error as Error).message}` }, started_at: now(), latency_ms: 0 };
    }
  };
  const { recordMissingReceipt } = proxyActivities<Activities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 3 } });
  const { notifyCancel } = proxyActivities<Activities>({
    startToCloseTimeout: input.policy.attemptTimeoutMs + ACTIVITY_MARGIN_MS,
    retry: { maximumAttempts: 1 }, // best effort
  });

  moveTo('routing');
  if (input.rejection) return finish('rejected', input.rejection);
  // Instances that failed this message twice (errors or missing receipts): the next attempts go elsewhere if they can.
  const failed = new InstanceFailures(INSTANCE_FAILURES_BEFORE_FAILOVER);
  // A redriven run numbers its attempts after the earlier runs' ones, with a fresh budget of attempts.
  const earlierAttempts = status.attempts.length;
  // The capability may set its own caps on attempts and on total delivery time.
  let maxAttempts = input.policy.maxAttempts;
  let giveUpAt = Number.POSITIVE_INFINITY;
  let lastFailure: Reason = { code: 'delivery_exhausted', message: 'no delivery was attempted' };
  for (let tries = 1; ; tries++) {
    const progress = () => ({ tries, maxAttempts, lastFailure });
    const attempt = earlierAttempts + tries;
    const interrupted = await interruption();
    if (interrupted) return interrupted;
    if (Date.now() >= giveUpAt) return finish('failed', outOfTime(lastFailure));
    // Resolved before every attempt: a moved or restarted agent is found at its new address.
    const lookup = await resolveTarget({ tenant: input.tenant, target: input.target, avoid: failed.excluded(), ...(input.caller ? { caller: input.caller } : {}) });
    if (lookup.kind === 'unknown_agent' || lookup.kind === 'unknown_capability' || lookup.kind === 'forbidden') {
      const reason = lookupRefusal(lookup.kind, input.target);
      return status.state === 'routing' ? finish('rejected', reason) : finish('failed', reason);
    }
    let step: NextStep;
    let target: DeliveryTarget | undefined;
    if (lookup.kind === 'no_available_instance') {
      const error = `no available instance (${lookup.instances.map((i) => `${i.instance_id}: ${i.reason}`).join(', ') || 'none registered'})`;
      status.attempts.push({ attempt, agent_id: input.target.agent_id, started_at: now(), latency_ms: 0, outcome: 'unavailable', error });
      step = nextStep({ kind: 'unavailable', error }, progress());
    } else {
      target = lookup.target;
      maxAttempts = target.max_attempts ?? input.policy.maxAttempts;
      if (target.max_delivery_ms) giveUpAt = Date.parse(input.accepted_at) + target.max_delivery_ms;
      status.agent = { agent_id: target.agent_id, capability: target.capability, instance_id: target.instance_id };
      moveTo('delivering');
      const result = await deliverTo(target, { message: input, target, attempt });
      const record = result.verdict.kind === 'too_late' ? undefined : recordAttempt(status, target, attempt, result, result.verdict);
      step = nextStep({ kind: 'answered', verdict: result.verdict }, progress());
      if (step.kind === 'await_receipt') {
        status.delivered_at = now();
        if (!receipt) moveTo('delivered');
        const ackTimeoutMs = target.ack_timeout_ms ?? input.policy.defaultAckTimeoutMs;
        if (await waitFor(() => receipt !== undefined, ackTimeoutMs)) {
          step = nextStep({ kind: 'receipt', receipt: takeReceipt() }, progress());
        } else {
          const stopped = await interruption();
          if (stopped) return stopped;
          // No receipt in time: redeliver under the same message id — to this instance once more, then elsewhere.
          record!.error = `no receipt within ${ackTimeoutMs} ms`;
          failed.add(target.instance_id);
          await recordMissingReceipt({ agent_id: target.agent_id, instance_id: target.instance_id }).catch(() => undefined);
          step = nextStep({ kind: 'receipt_missing', ackTimeoutMs }, progress());
        }
      }
    }
    switch (step.kind) {
      case 'finish':
        return finishAs(step);
      case 'give_up':
        if (step.error) status.error = step.error;
        return finish('failed', step.reason);
      case 'await_receipt':
        throw new Error('unreachable: the receipt was awaited above');
      case 'attempt_now':
        continue;
      case 'redeliver':
        lastFailure = step.failure;
        continue;
      case 'back_off': {
        if (step.blameInstance && target) failed.add(target.instance_id);
        if (step.error) status.error = step.error;
        lastFailure = step.failure;
        // A receipt can still arrive while we back off (the agent worked but its answer was lost): it wins.
        const delay = Math.min(retryDelayMs(tries, input.policy, Math.random(), step.retryAfterMs), Math.max(0, giveUpAt - Date.now()));
        if (await waitFor(() => receipt !== undefined, delay)) {
          const cutShort = nextStep({ kind: 'receipt_while_backing_off', receipt: takeReceipt() }, progress());
          if (cutShort.kind === 'finish') return finishAs(cutShort);
          if (cutShort.kind === 'attempt_now' && cutShort.error) status.error = cutShort.error;
        }
      }
    }
  }
}

/** Counts failures per instance; an instance that reached the limit is excluded from this message. */
class InstanceFailures {
  private readonly counts = new Map<string, number>();

  constructor(private readonly limit: number) {}

  add(instanceId: string): void {
    this.counts.set(instanceId, (this.counts.get(instanceId) ?? 0) + 1);
  }

  excluded(): string[] {
    return [...this.counts].filter(([, n]) => n >= this.limit).map(([id]) => id);
  }
}

function recordAttempt(
  status: MessageStatus,
  target: DeliveryTarget,
  attempt: number,
  result: DeliverResult,
  verdict: Exclude<DeliveryVerdict, { kind: 'too_late' }>,
): AttemptRecord {
  const record: AttemptRecord = {
    attempt,
    agent_id: target.agent_id,
    instance_id: target.instance_id,
    endpoint: target.endpoint,
    started_at: result.started_at,
    latency_ms: result.latency_ms,
    outcome: verdict.kind === 'transient' ? 'transient_error' : verdict.kind,
    ...(result.http_status === undefined ? {} : { http_status: result.http_status }),
    ...('error' in verdict && typeof verdict.error === 'string' ? { error: verdict.error } : {}),
  };
  status.attempts.push(record);
  return record;
}
