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
import { log, patched, startChild, workflowInfo } from '@temporalio/workflow';
import { replyWorkflowId } from '../platform/temporal-names';
import type { ResolveAndDeliverResult } from '../activities/resolve-and-deliver';
import type { DeliverResult } from '../activities/deliver';
import type { DeliveryTarget } from '../catalogue/agent-queries';
import type { AttemptRecord, MessageInput, MessageStatus } from '../messages/message';
import { INPUT_WAIT_MS, MAX_INPUT_REQUESTS, type InputRequest } from '../protocol/turns';
import { retryDelayMs } from '../rules/backoff';
import { speaksA2a } from '../rules/transport';
import { followA2aTask } from './a2a-follow';
import { leanActivities, rerouted, runActivities, type RunActivities } from './message-activities';
import { MessageRun } from './message-run';
import {
  lookupRefusal,
  nextStep,
  outOfTime,
  unavailability,
  unsealedRefusal,
  waitsOnCircuits,
  type NextStep,
} from './next-step';
import { notifyCallerWorkflow } from './notify-caller';
import { settlementOf } from './status-record';

/** The patch that moved delivery to local activities and `ReachState` upserts to the end of the run. */
export const LEAN_SHAPE = 'lean-delivery-v1';

/**
 * The patch of multi-turn messages: an agent's `input_required` answer makes the run wait for the caller's reply and
 * deliver the next turn (protocol/turns.ts). Its marker is written only by runs that take that path.
 */
export const MULTI_TURN = 'multi-turn-v1';

/**
 * The patch of several questions asked at once (protocol/answers.ts): the run keeps partial answers until every
 * question is answered. Its marker is written only by runs whose agent asked several questions.
 */
export const MULTI_QUESTION = 'multi-question-v1';

/** A message run of the type the gateway starts now: the lean shape, no patch marker. */
export async function leanMessageWorkflow(input: MessageInput): Promise<MessageStatus> {
  return runMessage(input, true);
}

/** A message run of the earlier type: classic before the `LEAN_SHAPE` patch, lean since. */
export async function messageWorkflow(input: MessageInput): Promise<MessageStatus> {
  return runMessage(input, patched(LEAN_SHAPE));
}

/** Delivers the message, then tells the circuit and the ranking how it went, and the caller's `reply_to`. */
/**
 * A best-effort step that failed: the message goes on (its outcome does not depend on it), and the workflow's
 * replay-safe logger says what was dropped and why.
 */
function dropped(input: MessageInput, what: string): (error: unknown) => void {
  return (error) =>
    log.warn(`message: ${what} failed; the message goes on without it`, {
      message_id: input.message_id,
      trace_id: input.trace_id,
      error: (error as Error)?.message ?? String(error),
    });
}

async function runMessage(input: MessageInput, lean: boolean): Promise<MessageStatus> {
  const now = () => new Date().toISOString();
  const run = new MessageRun(input, lean, now);
  const status = await deliverMessage(run);
  // A run the gateway did not start (no seal) ends there: nothing settled, nobody notified.
  if (run.unsealed) return status;
  const settlement = lean ? settlementOf(status, run.receiptCame) : undefined;
  if (settlement)
    await leanActivities(input.policy, now)
      .settleMessage(settlement)
      .catch(dropped(input, 'settling the message (its circuit and ranking statistics)'));
  if (input.reply_to) {
    // A child that outlives this run (ABANDON), so the message ends now while the notification retries for hours.
    const info = workflowInfo();
    await startChild(notifyCallerWorkflow, {
      workflowId: replyWorkflowId(info.workflowId, info.runId),
      args: [{ url: input.reply_to.url, retry_initial_ms: input.reply_to.retry_initial_ms, status }],
      parentClosePolicy: 'ABANDON',
    });
  }
  return status;
}

/** Tries until the message ends: each try looks the target up, delivers, and awaits the receipt; the policy says what next. */
async function deliverMessage(run: MessageRun): Promise<MessageStatus> {
  const { input, record } = run;
  run.listen();
  const activities = runActivities(run.lean, input.policy, run.now);
  record.moveTo('routing');
  if (input.rejection) return record.finish('rejected', input.rejection);
  // Where this input runs, as Temporal says (its starter cannot choose it): the gateway's seal must be made for it.
  const { workflowId, startTime } = workflowInfo();
  const place = { workflow_id: workflowId, started_at: startTime.toISOString() };
  for (let tries = 1; ; tries++) {
    const interrupted = await interruption(run, activities);
    if (interrupted) return interrupted;
    if (Date.now() >= run.giveUpAt) return record.finish('failed', outOfTime(run.lastFailure));
    const tried = await tryOnce(run, activities, tries, place);
    if (tried.kind === 'ended') return tried.status;
    const { step, target } = tried;
    switch (step.kind) {
      case 'finish':
      case 'give_up':
        return record.finishAs(step);
      case 'await_receipt':
        throw new Error('unreachable: the receipt was awaited in tryOnce');
      case 'attempt_now':
        continue;
      case 'redeliver':
        run.noteFailure(step.failure);
        continue;
      case 'reroute': {
        const ended = await reroute(run);
        if (ended) return ended;
        continue;
      }
      case 'await_input': {
        const ended = await awaitInput(run, activities, step.input, tries);
        if (ended) return ended;
        continue;
      }
      case 'back_off': {
        const ended = await backOff(run, activities, step, target, tries);
        if (ended) return ended;
      }
    }
  }
}

/** What one try came to: the message ended, or the policy's next step (with the instance tried, if any). */
type Tried = { kind: 'ended'; status: MessageStatus } | { kind: 'next'; step: NextStep; target?: DeliveryTarget };

/** Where the run is, as Temporal says: the seal of its input must name it. */
type RunPlace = { workflow_id: string; started_at: string };

/**
 * One try: resolved before every attempt (a moved or restarted agent is found at its new address), delivered, and
 * its receipt awaited. A lookup that failed past the activity's own retries is the gateway's own catalogue or
 * database out: an outage, which costs time but never a try of the message.
 */
async function tryOnce(run: MessageRun, activities: RunActivities, tries: number, place: RunPlace): Promise<Tried> {
  const { input, record, destination } = run;
  const attempt = run.earlierAttempts + tries;
  const next = (step: NextStep, target?: DeliveryTarget): Tried => ({ kind: 'next', step, target });
  const followUp = run.followUp();
  const {
    lookup,
    delivery,
  }: ResolveAndDeliverResult | { lookup: { kind: 'outage'; error: string }; delivery?: undefined } = await activities
    .reach({
      tenant: input.tenant,
      target: destination,
      avoid: run.avoided(),
      ...(run.reroutedParams && !followUp ? { params: run.reroutedParams } : {}),
      ...(followUp ? { follow_up: followUp } : {}),
      ...(input.caller ? { caller: input.caller } : {}),
      message: input,
      attempt,
      run: place,
    })
    .catch((error: Error) => ({
      lookup: { kind: 'outage' as const, error: (error.cause as Error | undefined)?.message ?? error.message },
    }));
  switch (lookup.kind) {
    case 'unsealed':
      run.markUnsealed();
      return { kind: 'ended', status: record.finish('rejected', unsealedRefusal(lookup.reason)) };
    case 'unknown_agent':
    case 'unknown_capability':
    case 'forbidden':
      return {
        kind: 'ended',
        status: record.finish(
          run.status.state === 'routing' ? 'rejected' : 'failed',
          lookupRefusal(lookup.kind, destination),
        ),
      };
    case 'outage':
      run.spareTry();
      return next(
        nextStep(
          { kind: 'unavailable', error: `the target could not be looked up: ${lookup.error}` },
          run.progress(tries),
        ),
      );
    case 'no_available_instance': {
      const error = unavailability(lookup.instances);
      record.unavailable(attempt, destination.agent_id, error);
      if (run.lean && waitsOnCircuits(lookup.instances)) run.spareTry();
      return next(nextStep({ kind: 'unavailable', error }, run.progress(tries)));
    }
  }
  const target = lookup.target;
  run.aimAt(target);
  const result = delivery ?? (await activities.deliverTo(target, { message: run.deliveredInput(), target, attempt }));
  if (speaksA2a(target) && result.a2a_task_id) run.deliveredToA2aTask(result.a2a_task_id);
  const attempted =
    result.verdict.kind === 'too_late'
      ? undefined
      : record.attempted(target, attempt, result, result.verdict, run.turn);
  const step = nextStep({ kind: 'answered', verdict: result.verdict }, run.progress(tries));
  if (step.kind !== 'await_receipt') return next(step, target);
  return awaitReceipt(run, activities, { target, result, attempted, tries });
}

/** The agent took the message: its receipt (or an A2A task's outcome) comes, or the message is delivered again. */
async function awaitReceipt(
  run: MessageRun,
  activities: RunActivities,
  {
    target,
    result,
    attempted,
    tries,
  }: { target: DeliveryTarget; result: DeliverResult; attempted: AttemptRecord | undefined; tries: number },
): Promise<Tried> {
  run.record.delivered(run.hasReceipt);
  const ackTimeoutMs = target.ack_timeout_ms ?? run.input.policy.defaultAckTimeoutMs;
  const a2aTask = speaksA2a(target) ? result.a2a_task_id : undefined;
  if (await (a2aTask ? followA2aTask(run, target, a2aTask, ackTimeoutMs) : run.receiptAfterDelivery(ackTimeoutMs))) {
    return {
      kind: 'next',
      step: nextStep({ kind: 'receipt', receipt: run.takeReceipt() }, run.progress(tries)),
      target,
    };
  }
  const stopped = await interruption(run, activities);
  if (stopped) return { kind: 'ended', status: stopped };
  // No receipt in time: redeliver under the same message id — to this instance once more, then elsewhere.
  if (attempted) attempted.error = `no receipt within ${ackTimeoutMs} ms`;
  run.blame(target.instance_id);
  await activities
    .recordMissingReceipt({ agent_id: target.agent_id, instance_id: target.instance_id })
    .catch(dropped(run.input, 'recording the missing receipt'));
  return { kind: 'next', step: nextStep({ kind: 'receipt_missing', ackTimeoutMs }, run.progress(tries)), target };
}

/** Waits out a backoff; a receipt that comes meanwhile (the agent worked but its answer was lost) wins. */
async function backOff(
  run: MessageRun,
  activities: RunActivities,
  step: Extract<NextStep, { kind: 'back_off' }>,
  target: DeliveryTarget | undefined,
  tries: number,
): Promise<MessageStatus | undefined> {
  if (step.blameInstance && target) run.blame(target.instance_id);
  run.record.noteError(step.error);
  run.noteFailure(step.failure);
  const delay = Math.min(
    retryDelayMs(tries, run.input.policy, Math.random(), step.retryAfterMs),
    Math.max(0, run.giveUpAt - Date.now()),
  );
  if (!(await run.receiptWithin(delay))) return undefined;
  const cutShort = nextStep({ kind: 'receipt_while_backing_off', receipt: run.takeReceipt() }, run.progress(tries));
  if (cutShort.kind === 'finish') return run.record.finishAs(cutShort);
  if (cutShort.kind === 'reroute') return reroute(run);
  if (cutShort.kind === 'await_input') return awaitInput(run, activities, cutShort.input, tries);
  if (cutShort.kind === 'attempt_now') run.record.noteError(cutShort.error);
  return undefined;
}

/**
 * The agent asked the caller for input: the message waits in `input_required` for the caller's reply, at most
 * INPUT_WAIT_MS and never past its deadline (else it ends `expired`, `input_timeout`), then goes on to deliver the next
 * turn. Time spent waiting does not count against the capability's own limit on delivery time.
 */
async function awaitInput(
  run: MessageRun,
  activities: RunActivities,
  input: InputRequest,
  tries: number,
): Promise<MessageStatus | undefined> {
  const { record } = run;
  // Receipts refused `input_required` before this patch: no run replays an earlier path here.
  if (!patched(MULTI_TURN))
    return record.finish('failed', {
      code: 'agent_failed',
      message: 'the agent asked for input, which this run cannot wait for',
    });
  // Receipts refused `input.questions` before this patch: no run replays an earlier path here.
  if (input.questions && !patched(MULTI_QUESTION))
    return record.finish('failed', {
      code: 'agent_failed',
      message: 'the agent asked several questions at once, which this run cannot wait for',
    });
  if (run.inputRequests() >= MAX_INPUT_REQUESTS) {
    return record.finish('failed', {
      code: 'agent_failed',
      message: `the agent asked for input more than ${MAX_INPUT_REQUESTS} times: ${input.message}`,
    });
  }
  run.askedForInput(input);
  const waitStarted = Date.now();
  if (!(await run.replyWithin(INPUT_WAIT_MS))) {
    const stopped = await interruption(run, activities);
    return (
      stopped ??
      record.finish('expired', {
        code: 'input_timeout',
        message: `no reply to the agent's question within ${INPUT_WAIT_MS / 3_600_000} h`,
      })
    );
  }
  run.replied(tries);
  run.postponeGiveUp(Date.now() - waitStarted);
  return undefined;
}

/**
 * The agent answered `misrouted`: a message sent to a named capability ends there; one routed by its intent goes to
 * the router's next choice (never a capability it was misrouted to), or ends `no_route`.
 */
async function reroute(run: MessageRun): Promise<MessageStatus | undefined> {
  const { input, record } = run;
  const misrouted = run.misrouted();
  const why = `${misrouted} answered that the message is not for it`;
  if (!input.intent || !input.routing) return record.finish('failed', { code: 'misrouted', message: why });
  const next = await rerouted({
    tenant: input.tenant,
    message_id: input.message_id,
    intent: input.intent,
    ...(input.caller ? { caller: input.caller } : {}),
    misrouted,
    exclude: [...run.misroutedTo],
  });
  if (next.kind === 'refused')
    return record.finish('failed', { ...next.reason, message: `${why}; ${next.reason.message}` });
  run.reroutedTo(next);
  return undefined;
}

/** The end state when the caller cancelled or the deadline passed, else undefined. */
async function interruption(
  run: MessageRun,
  activities: Pick<RunActivities, 'notifyCancel'>,
): Promise<MessageStatus | undefined> {
  const { cancelRequest, record, input } = run;
  if (cancelRequest) {
    // Best effort, and over HTTP only: a WebSocket agent learns of it when its receipt is answered "not applied".
    const delivered = record.lastHttpDelivery();
    if (delivered?.endpoint) {
      const a2aTask = delivered.a2a_task_id
        ? { a2a_task_id: delivered.a2a_task_id, ...(cancelRequest.reason ? { reason: cancelRequest.reason } : {}) }
        : {};
      await activities
        .notifyCancel({ message: input, agent_id: delivered.agent_id, endpoint: delivered.endpoint, ...a2aTask })
        .catch(dropped(input, 'telling the agent of the cancellation'));
    }
    return record.finish('cancelled', {
      code: 'cancelled_by_caller',
      message: cancelRequest.reason ?? 'cancelled by the caller',
    });
  }
  if (Date.now() >= run.deadlineMs) {
    return record.finish('expired', {
      code: 'deadline_exceeded',
      message: `the deadline ${input.deadline} passed before the message was processed`,
    });
  }
  return undefined;
}
