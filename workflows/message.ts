/**
 * One durable workflow per message: resolve the target, deliver with retries, await the processed receipt.
 * Deterministic: no I/O here; time and randomness come from Temporal's workflow sandbox.
 *
 * Two shapes share this code. Runs started before the `LEAN_SHAPE` patch ("classic") resolve and deliver in
 * regular activities and upsert `ReachState` at every state change. Runs started since ("lean") resolve and deliver
 * over HTTP in local activities (no task round trip through the server), and upsert `ReachState` only when the
 * message ends, and once more when its receipt is slow to come (see RECEIPT_VISIBLE_AFTER_MS).
 *
 * Two types run them. `leanMessageWorkflow`, which the gateway starts now, is lean from its first task with no
 * patch: a `patched()` call writes a marker and upserts Temporal's `TemporalChangeVersion` search attribute in every
 * run. `messageWorkflow` is kept for the runs started before it (classic and patched lean ones) and for `sendMessage`,
 * whose own earlier runs called it.
 */
import { condition, patched, proxyActivities, proxyLocalActivities, setHandler, startChild, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeliverRequest, DeliverResult } from '../activities/deliver';
import type { ResolveAndDeliverRequest, ResolveAndDeliverResult } from '../activities/resolve-and-deliver';
import type { RerouteActivities, RerouteRequest, RerouteResult } from '../activities/reroute-message';
import { routingTaskQueue } from '../messages/direct';
import type { SocketActivities } from '../activities/deliver-socket';
import type { A2aPoll } from '../activities/deliver-a2a';
import type { DeliveryTarget } from '../catalogue/agent-queries';
import type { MessageState } from '../messages/message';
import { retryDelayMs } from '../rules/backoff';
import { deliversOverSocket, speaksA2a } from '../rules/transport';
import { isTerminal, type CancelInput, type DeliveryPolicy, type MessageInput, type MessageStatus, type Reason, type ReceiptInput } from '../messages/message';
import { a2aTaskChangedSignal, cancelUpdate, receiptUpdate, SA_STATE, statusQuery } from '../messages/temporal';
import { InstanceFailures, lookupRefusal, nextStep, outOfTime, unavailability, unsealedRefusal, waitsOnCircuits, type NextStep } from './next-step';
import { notifyCallerWorkflow } from './notify-caller';
import { settlementOf, StatusRecord } from './status-record';

/** Margin over the HTTP timeout before Temporal declares the activity itself lost (e.g. worker crash). */
const ACTIVITY_MARGIN_MS = 5_000;

/** Tries of one lean lookup-and-delivery activity before the run itself backs off (see leanActivities). */
const LOOKUP_TRIES = 4;

/**
 * An A2A task under way is first read within the delivery's worker for up to A2A_FIRST_READ_WAIT_MS (GetTask after
 * 50 ms, then twice as long each time: most tasks of a quick agent end there, with no Temporal timer, whose
 * resolution on the dev server is about a second); then after A2A_POLL_FIRST_MS, twice as long each time, up to
 * A2A_POLL_MAX_MS.
 */
export const A2A_FIRST_READ_WAIT_MS = 1_000;
export const A2A_POLL_FIRST_MS = 1_000;
export const A2A_POLL_MAX_MS = 5_000;

/** The patch that moved delivery to local activities and `ReachState` upserts to the end of the run. */
export const LEAN_SHAPE = 'lean-delivery-v1';

/**
 * A lean run waiting this long for a receipt shows `delivered` in the visibility store (`GET /v1/messages?state=
 * delivered` finds messages stuck there); receipts that come sooner cost no visibility write.
 */
export const RECEIPT_VISIBLE_AFTER_MS = 2_000;

/** How long a misrouted message waits for an api replica to route it again. */
const REROUTE_WAIT = '2m';

/** A message run of the type the gateway starts now: the lean shape, no patch marker. */
export async function leanMessageWorkflow(input: MessageInput): Promise<MessageStatus> {
  return runMessage(input, true);
}

/** A message run of the earlier type: classic before the `LEAN_SHAPE` patch, lean since. */
export async function messageWorkflow(input: MessageInput): Promise<MessageStatus> {
  return runMessage(input, patched(LEAN_SHAPE));
}

async function runMessage(input: MessageInput, lean: boolean): Promise<MessageStatus> {
  const seen = { receipt: false, unsealed: false };
  const status = await deliverMessage(input, lean, seen);
  // A run the gateway did not start (no seal) ends there: nothing settled, nobody notified.
  if (seen.unsealed) return status;
  const settlement = lean ? settlementOf(status, seen.receipt) : undefined;
  if (settlement) await leanActivities(input.policy, () => new Date().toISOString()).settleMessage(settlement).catch(() => undefined);
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

/** What a run saw, beyond its status: a receipt (for the settlement), a refusal of its unsealed input. */
interface RunFacts {
  receipt: boolean;
  unsealed: boolean;
}

async function deliverMessage(input: MessageInput, lean: boolean, seen: RunFacts): Promise<MessageStatus> {
  const now = () => new Date().toISOString();
  const showState = (state: MessageState) => upsertSearchAttributes([{ key: SA_STATE, value: state }]);
  const record = new StatusRecord(input, now, (state) => {
    if (!lean || isTerminal(state)) showState(state);
  });
  const status = record.status;
  let receipt: ReceiptInput | undefined;
  let cancelRequest: CancelInput | undefined;
  const deadlineMs = input.deadline ? Date.parse(input.deadline) : Number.POSITIVE_INFINITY;

  /** The receipt that came, consumed so that a redelivery's receipt can come too. */
  const takeReceipt = (): ReceiptInput => {
    const taken = receipt!;
    receipt = undefined;
    seen.receipt = true;
    return taken;
  };
  // A push notification from an A2A agent: its task changed, read it now (a2aOutcomeWithin).
  let taskChanged = false;
  setHandler(a2aTaskChangedSignal, () => {
    taskChanged = true;
  });
  setHandler(statusQuery, () => status);
  setHandler(cancelUpdate, (request) => {
    if (isTerminal(status.state)) return { cancelled: false, state: status.state };
    cancelRequest ??= request;
    return { cancelled: true, state: 'cancelled' };
  });
  setHandler(
    receiptUpdate,
    (r) => {
      if (receipt || isTerminal(status.state)) return { applied: false, state: status.state };
      receipt = r;
      return { applied: true, state: r.status === 'processed' ? 'processed' : r.status === 'misrouted' ? 'routing' : 'failed' };
    },
    {
      validator: (r) => {
        if (!status.agent || r.agent_id !== status.agent.agent_id) {
          throw new Error('not_your_message: this message was not delivered to the agent sending the receipt');
        }
      },
    },
  );

  const { reach, deliverTo, recordMissingReceipt, notifyCancel } = lean ? leanActivities(input.policy, now) : classicActivities(input.policy, now);
  const { pollA2aTask } = a2aActivities(input.policy);

  /** Waits until a receipt comes or `ms` pass, but never past the deadline or a cancel request; true if it came. */
  const receiptWithin = async (ms: number): Promise<boolean> => {
    const bounded = Math.max(0, Math.min(ms, deadlineMs - Date.now()));
    await condition(() => receipt !== undefined || cancelRequest !== undefined, bounded);
    return receipt !== undefined;
  };
  /** As receiptWithin, after a delivery: a lean run shows `delivered` to the visibility store once the wait is long. */
  const receiptAfterDelivery = async (ms: number): Promise<boolean> => {
    if (!lean || ms <= RECEIPT_VISIBLE_AFTER_MS) return receiptWithin(ms);
    const waitStarted = Date.now();
    if (await receiptWithin(RECEIPT_VISIBLE_AFTER_MS)) return true;
    if (cancelRequest || Date.now() >= deadlineMs) return false;
    if (status.state === 'delivered') showState('delivered');
    return receiptWithin(ms - (Date.now() - waitStarted));
  };
  /**
   * Follows an A2A agent's task with GetTask — at once for a while in the worker, then backing off (a push
   * notification cuts a pause short) — until it ends (its outcome is then the receipt), the agent says nothing for
   * `ackTimeoutMs` (reads that fail; an answer "still working" counts as word from it), or a cancel or the deadline
   * interrupts. True when the outcome came.
   */
  const a2aOutcomeWithin = async (target: DeliveryTarget, taskId: string, ackTimeoutMs: number): Promise<boolean> => {
    const followed = Date.now();
    let heardAt = followed;
    let shown = !lean;
    for (let poll = 0; ; poll++) {
      const untilDeadline = Math.max(0, deadlineMs - Date.now());
      if (poll > 0) {
        const pause = Math.min(A2A_POLL_FIRST_MS * 2 ** (poll - 1), A2A_POLL_MAX_MS, Math.max(0, heardAt + ackTimeoutMs - Date.now()), untilDeadline);
        await condition(() => receipt !== undefined || cancelRequest !== undefined || taskChanged, pause);
        taskChanged = false;
      }
      if (receipt) return true;
      if (cancelRequest || Date.now() >= deadlineMs) return false;
      if (!shown && Date.now() - followed >= RECEIPT_VISIBLE_AFTER_MS && status.state === 'delivered') {
        showState('delivered');
        shown = true;
      }
      const waitMs = poll === 0 ? Math.min(A2A_FIRST_READ_WAIT_MS, untilDeadline) : 0;
      const polled = await pollA2aTask({ message: input, agent_id: target.agent_id, endpoint: target.endpoint, task_id: taskId, wait_ms: waitMs }).catch(
        (error: Error): A2aPoll => ({ failure: { transient: true, error: error.message } }),
      );
      if ('outcome' in polled) {
        heardAt = Date.now();
        if (polled.outcome.kind === 'ended') {
          receipt ??= { agent_id: target.agent_id, ...polled.outcome.outcome };
          return true;
        }
      } else if (!polled.failure.transient) {
        return false; // the agent no longer knows the task: deliver again
      }
      if (Date.now() - heardAt >= ackTimeoutMs) return false;
    }
  };
  /** The end state when the caller cancelled or the deadline passed, else undefined. */
  const interruption = async (): Promise<MessageStatus | undefined> => {
    if (cancelRequest) {
      // Best effort, and over HTTP only: a WebSocket agent learns of it when its receipt is answered "not applied".
      const delivered = record.lastHttpDelivery();
      if (delivered?.endpoint) {
        const a2aTask = delivered.a2a_task_id ? { a2a_task_id: delivered.a2a_task_id, ...(cancelRequest.reason ? { reason: cancelRequest.reason } : {}) } : {};
        await notifyCancel({ message: input, agent_id: delivered.agent_id, endpoint: delivered.endpoint, ...a2aTask }).catch(() => undefined);
      }
      return record.finish('cancelled', { code: 'cancelled_by_caller', message: cancelRequest.reason ?? 'cancelled by the caller' });
    }
    if (Date.now() >= deadlineMs) {
      return record.finish('expired', { code: 'deadline_exceeded', message: `the deadline ${input.deadline} passed before the message was processed` });
    }
    return undefined;
  };

  record.moveTo('routing');
  if (input.rejection) return record.finish('rejected', input.rejection);
  // Where this input runs, as Temporal says (its starter cannot choose it): the gateway's seal must be made for it.
  const { workflowId, startTime } = workflowInfo();
  const run = { workflow_id: workflowId, started_at: startTime.toISOString() };
  // Instances that failed this message twice (errors or missing receipts): the next attempts go elsewhere if they can.
  let failed = new InstanceFailures();
  // Where the message goes: the input's target until an agent answers `misrouted` and the router chooses again,
  // with the parameters it extracts for the new capability.
  let destination = input.target;
  let reroutedParams: Record<string, unknown> | undefined;
  const misroutedTo: string[] = [];
  // A redriven run numbers its attempts after the earlier runs' ones, with a fresh budget of attempts.
  const earlierAttempts = status.attempts.length;
  // The capability may set its own caps on attempts and on total delivery time.
  let maxAttempts = input.policy.maxAttempts;
  let giveUpAt = Number.POSITIVE_INFINITY;
  let lastFailure: Reason = { code: 'delivery_exhausted', message: 'no delivery was attempted' };
  // Lean runs: a try that found every instance's circuit open is not spent (see waitsOnCircuits).
  let sparedTries = 0;
  /**
   * The agent answered `misrouted`: a message sent to a named capability ends there; one routed by its intent goes to
   * the router's next choice (never a capability it was misrouted to), or ends `no_route`.
   */
  const reroute = async (): Promise<{ kind: 'continue' } | { kind: 'ended'; status: MessageStatus }> => {
    const misrouted = `${destination.agent_id}/${destination.capability}`;
    misroutedTo.push(misrouted);
    record.misroutedTo(misrouted);
    const why = `${misrouted} answered that the message is not for it`;
    if (!input.intent || !input.routing) return { kind: 'ended', status: record.finish('failed', { code: 'misrouted', message: why }) };
    const next = await rerouted({ tenant: input.tenant, message_id: input.message_id, intent: input.intent, ...(input.caller ? { caller: input.caller } : {}), misrouted, exclude: [...misroutedTo] });
    if (next.kind === 'refused') return { kind: 'ended', status: record.finish('failed', { ...next.reason, message: `${why}; ${next.reason.message}` }) };
    record.rerouted(next.target, next.params, next.routing);
    destination = next.target;
    reroutedParams = next.params ?? {};
    failed = new InstanceFailures();
    return { kind: 'continue' };
  };
  for (let tries = 1; ; tries++) {
    const progress = () => ({ tries: tries - sparedTries, maxAttempts, lastFailure });
    const attempt = earlierAttempts + tries;
    const interrupted = await interruption();
    if (interrupted) return interrupted;
    if (Date.now() >= giveUpAt) return record.finish('failed', outOfTime(lastFailure));
    // Resolved before every attempt: a moved or restarted agent is found at its new address.
    // A lookup that failed past the activity's own retries is the gateway's own catalogue or database out: an outage.
    const { lookup, delivery }: ResolveAndDeliverResult | { lookup: { kind: 'outage'; error: string }; delivery?: undefined } = await reach({
      tenant: input.tenant,
      target: destination,
      avoid: failed.excluded(),
      ...(reroutedParams ? { params: reroutedParams } : {}),
      ...(input.caller ? { caller: input.caller } : {}),
      message: input,
      attempt,
      run,
    }).catch((error: Error) => ({ lookup: { kind: 'outage' as const, error: (error.cause as Error | undefined)?.message ?? error.message } }));
    if (lookup.kind === 'unsealed') {
      seen.unsealed = true;
      return record.finish('rejected', unsealedRefusal(lookup.reason));
    }
    if (lookup.kind === 'unknown_agent' || lookup.kind === 'unknown_capability' || lookup.kind === 'forbidden') {
      return record.finish(status.state === 'routing' ? 'rejected' : 'failed', lookupRefusal(lookup.kind, destination));
    }
    let step: NextStep;
    let target: DeliveryTarget | undefined;
    if (lookup.kind === 'outage') {
      // An outage costs time, up to the deadline or the capability's time limit, never a try of the message.
      sparedTries++;
      step = nextStep({ kind: 'unavailable', error: `the target could not be looked up: ${lookup.error}` }, progress());
    } else if (lookup.kind === 'no_available_instance') {
      const error = unavailability(lookup.instances);
      record.unavailable(attempt, destination.agent_id, error);
      if (lean && waitsOnCircuits(lookup.instances)) sparedTries++;
      step = nextStep({ kind: 'unavailable', error }, progress());
    } else {
      target = lookup.target;
      maxAttempts = target.max_attempts ?? input.policy.maxAttempts;
      if (target.max_delivery_ms) giveUpAt = Date.parse(input.accepted_at) + target.max_delivery_ms;
      record.deliveringTo(target);
      const result = delivery ?? (await deliverTo(target, { message: reroutedParams ? { ...input, params: reroutedParams } : input, target, attempt }));
      const attempted = result.verdict.kind === 'too_late' ? undefined : record.attempted(target, attempt, result, result.verdict);
      step = nextStep({ kind: 'answered', verdict: result.verdict }, progress());
      if (step.kind === 'await_receipt') {
        record.delivered(receipt !== undefined);
        const ackTimeoutMs = target.ack_timeout_ms ?? input.policy.defaultAckTimeoutMs;
        const a2aTask = speaksA2a(target) ? result.a2a_task_id : undefined;
        if (await (a2aTask ? a2aOutcomeWithin(target, a2aTask, ackTimeoutMs) : receiptAfterDelivery(ackTimeoutMs))) {
          step = nextStep({ kind: 'receipt', receipt: takeReceipt() }, progress());
        } else {
          const stopped = await interruption();
          if (stopped) return stopped;
          // No receipt in time: redeliver under the same message id — to this instance once more, then elsewhere.
          attempted!.error = `no receipt within ${ackTimeoutMs} ms`;
          failed.add(target.instance_id);
          await recordMissingReceipt({ agent_id: target.agent_id, instance_id: target.instance_id }).catch(() => undefined);
          step = nextStep({ kind: 'receipt_missing', ackTimeoutMs }, progress());
        }
      }
    }
    switch (step.kind) {
      case 'finish':
      case 'give_up':
        return record.finishAs(step);
      case 'await_receipt':
        throw new Error('unreachable: the receipt was awaited above');
      case 'attempt_now':
        continue;
      case 'redeliver':
        lastFailure = step.failure;
        continue;
      case 'reroute': {
        const next = await reroute();
        if (next.kind === 'ended') return next.status;
        continue;
      }
      case 'back_off': {
        if (step.blameInstance && target) failed.add(target.instance_id);
        record.noteError(step.error);
        lastFailure = step.failure;
        // A receipt can still arrive while we back off (the agent worked but its answer was lost): it wins.
        const delay = Math.min(retryDelayMs(tries, input.policy, Math.random(), step.retryAfterMs), Math.max(0, giveUpAt - Date.now()));
        if (await receiptWithin(delay)) {
          const cutShort = nextStep({ kind: 'receipt_while_backing_off', receipt: takeReceipt() }, progress());
          if (cutShort.kind === 'finish') return record.finishAs(cutShort);
          if (cutShort.kind === 'reroute') {
            const next = await reroute();
            if (next.kind === 'ended') return next.status;
          }
          if (cutShort.kind === 'attempt_now') record.noteError(cutShort.error);
        }
      }
    }
  }
}

/**
 * The activities of a classic run, with its timeouts. Delivery goes over HTTP from any worker, or over WebSocket
 * from the api replica holding the socket; a lost delivery activity counts as a transient error.
 */
function classicActivities(policy: DeliveryPolicy, now: () => string) {
  const { resolveTarget } = proxyActivities<Activities>({
    startToCloseTimeout: '30s',
    scheduleToCloseTimeout: '5m',
    retry: { maximumInterval: '10s' },
  });
  const { deliver } = proxyActivities<Activities>({
    startToCloseTimeout: policy.attemptTimeoutMs + ACTIVITY_MARGIN_MS,
    retry: { maximumAttempts: 3 },
  });
  const { recordMissingReceipt } = proxyActivities<Activities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 3 } });
  const { notifyCancel } = proxyActivities<Activities>({
    startToCloseTimeout: policy.attemptTimeoutMs + ACTIVITY_MARGIN_MS,
    retry: { maximumAttempts: 1 }, // best effort
  });
  /** Classic runs resolve in one activity and deliver in another. */
  const reach = async (request: ResolveAndDeliverRequest): Promise<ResolveAndDeliverResult> => {
    const { message, attempt, run, params, ...resolve } = request;
    return { lookup: await resolveTarget(resolve) };
  };
  return { reach, deliverTo: deliveryOver(deliver, policy, now), recordMissingReceipt, notifyCancel };
}

/**
 * The activities of a lean run: resolution, HTTP delivery and the bookkeeping run as local activities in the
 * worker that runs the workflow task (they read in-memory copies); WebSocket delivery stays a regular activity on
 * the queue of the replica holding the socket.
 */
function leanActivities(policy: DeliveryPolicy, now: () => string) {
  const { recordMissingReceipt, settleMessage } = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30s',
    scheduleToCloseTimeout: '5m',
    retry: { maximumInterval: '10s' },
  });
  // A few retries of its own (1 + 2 + 4 s apart); then the run backs off and tries again (an outage of the
  // catalogue's database costs time, not tries of the message), seeing cancels and the deadline in between.
  const { resolveAndDeliver } = proxyLocalActivities<Activities>({
    startToCloseTimeout: policy.attemptTimeoutMs + ACTIVITY_MARGIN_MS,
    scheduleToCloseTimeout: '5m',
    retry: { maximumInterval: '10s', maximumAttempts: LOOKUP_TRIES },
  });
  const { notifyCancel } = proxyLocalActivities<Activities>({ startToCloseTimeout: policy.attemptTimeoutMs + ACTIVITY_MARGIN_MS, retry: { maximumAttempts: 1 } });
  // HTTP targets are delivered inside resolveAndDeliver; deliverTo is left with WebSocket targets.
  const unreachable = async (): Promise<DeliverResult> => ({ verdict: { kind: 'transient', error: 'no delivery was made for an HTTP target' }, started_at: now(), latency_ms: 0 });
  return { reach: resolveAndDeliver, deliverTo: deliveryOver(unreachable, policy, now), recordMissingReceipt, notifyCancel, settleMessage };
}

/**
 * The api's `rerouteMessage` on its routing queue (api/routing-worker.ts: the router lives in the api). Without an
 * api to answer within REROUTE_WAIT, the message cannot be routed again: it ends `no_route`.
 */
async function rerouted(request: RerouteRequest): Promise<RerouteResult> {
  const { rerouteMessage } = proxyActivities<RerouteActivities>({
    taskQueue: routingTaskQueue(workflowInfo().taskQueue),
    startToCloseTimeout: '30s',
    scheduleToCloseTimeout: REROUTE_WAIT,
    retry: { maximumInterval: '5s' },
  });
  try {
    return await rerouteMessage(request);
  } catch (error) {
    const routing = { decided_by: 'none', provider: 'none', explanation: null };
    return { kind: 'refused', reason: { code: 'no_route', message: `no api replica routed it again within ${REROUTE_WAIT} (${(error as Error).message})` }, routing };
  }
}

/** Reading an A2A agent's task: a local activity (GetTask, repeated for up to its wait), failures reported, not retried here. */
function a2aActivities(policy: DeliveryPolicy) {
  return proxyLocalActivities<Activities>({ startToCloseTimeout: policy.attemptTimeoutMs + A2A_FIRST_READ_WAIT_MS + ACTIVITY_MARGIN_MS, retry: { maximumAttempts: 1 } });
}

/** Delivers over HTTP with `deliverHttp`, or over the socket's replica; a lost delivery activity is a transient error. */
function deliveryOver(deliverHttp: (request: DeliverRequest) => Promise<DeliverResult>, policy: DeliveryPolicy, now: () => string) {
  return async (target: DeliveryTarget, request: DeliverRequest): Promise<DeliverResult> => {
    try {
      if (!deliversOverSocket(target)) return await deliverHttp(request);
      const { deliverOverSocket } = proxyActivities<SocketActivities>({
        taskQueue: target.ws_task_queue,
        startToCloseTimeout: policy.attemptTimeoutMs + ACTIVITY_MARGIN_MS,
        scheduleToStartTimeout: '5s', // the replica holding the socket is gone: move on
        retry: { maximumAttempts: 1 },
      });
      return await deliverOverSocket(request);
    } catch (error) {
      return { verdict: { kind: 'transient', error: `delivery activity failed: ${(error as Error).message}` }, started_at: now(), latency_ms: 0 };
    }
  };
}
