/**
 * `runChain`: one durable run per chain (docs/chains.md). It checks the chain in full (a local activity, the api's
 * own check; a chain the api checked and sealed is not checked again), then runs its steps as a DAG: every ready
 * step's message is prepared as the api prepares one (the chain's caller, its ACLs, the seal) and started at once
 * as the api starts one, under the message id `<chain_id>:<step_id>`, so each step is a message like any other (the
 * caller's checks, retries, receipts, circuits, idempotency, trace). Runs before DIRECT_STEPS started each as a
 * child run (before PREPARED_STEPS, a `sendMessage` run that prepared it). A step that fails stops the chain, lets
 * it continue, or makes it compensate: the completed steps' compensations run as their own messages, latest
 * completed first, each once. A cancel reaches the running steps' messages (they are cancelled). Deterministic: no
 * I/O here.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  patched,
  proxyLocalActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { replyWorkflowId } from '../platform/temporal-names';
import type { Activities } from '../activities';
import type { PreparedChain } from '../activities/prepare-chain';
import type { ChainState, ChainStatus, SentMessage, StepStatus } from '../chains/chain';
import { compensationOrder, plannedSteps, readySteps } from '../chains/plan';
import type { ChainResume } from '../chains/run-state';
import {
  cancelChainUpdate,
  chainStatusQuery,
  chainWorkflowId,
  CHAIN_FAILURES,
  compensationMessageId,
  stepMessageId,
  type RunChainInput,
} from '../chains/temporal';
import { ChainRun, now, type ChainShape } from './chain-run';
import { notifyCallerWorkflow } from './notify-caller';

/**
 * The patch since which a chain prepares each step's message in its own run (a local activity; the api's routing
 * queue for an intent) and starts it as the api starts a message, instead of as a `sendMessage` run that prepares
 * it: the message's first task then only delivers (docs/benchmarks.md, "Chains").
 */
export const PREPARED_STEPS = 'chain-prepared-steps-v1';

/**
 * The patch since which a chain starts each step's message itself, as the api starts one, and awaits its end in a
 * local activity (then, for a long step, a regular one) instead of as a child run (workflows/chain-direct-step.ts);
 * and since which a chain the api sealed with its limits is not checked again by `prepareChain` (its seal is
 * checked when its first message is prepared, before anything is sent). docs/benchmarks.md, "Chains".
 */
export const DIRECT_STEPS = 'chain-direct-steps-v1';

const { prepareChain } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  scheduleToCloseTimeout: '2m',
  retry: { maximumInterval: '10s' },
});

/**
 * `resume`: what the run before this one handed over when it continued as new (its history had grown past
 * CHAIN_HISTORY_MAX_BYTES); the input stays the one the chain was started with.
 */
export async function runChain(input: RunChainInput, resume?: ChainResume): Promise<ChainStatus> {
  const { workflowId, startTime, taskQueue, continuedFromExecutionRunId } = workflowInfo();
  const tenant = typeof input?.tenant === 'string' ? input.tenant : '';
  const chainId = typeof input?.chain_id === 'string' ? input.chain_id : '';
  if (!chainId || workflowId !== chainWorkflowId(tenant, chainId)) {
    throw ApplicationFailure.nonRetryable(
      `workflow id ${workflowId} does not match the input: it must be chain:<tenant>:<chain_id>`,
      CHAIN_FAILURES.workflowIdMismatch,
    );
  }
  // A client cannot start a run continued from another: only a chain's own run hands over its state.
  if (resume && !continuedFromExecutionRunId)
    throw ApplicationFailure.nonRetryable(
      'resume state comes only from a run of this chain that continued as new',
      CHAIN_FAILURES.invalidChain,
    );
  const status: ChainStatus = resume?.status ?? {
    chain_id: chainId,
    tenant,
    state: 'running',
    steps: [],
    started_at: startTime.toISOString(),
  };
  let cancelRequest: { reason?: string } | undefined = resume?.cancel_request;
  setHandler(chainStatusQuery, () => status);
  setHandler(cancelChainUpdate, (request) => {
    // Compensations run to their end: a cancel does not stop them.
    if (status.state !== 'running') return { cancelled: false, state: status.state };
    cancelRequest ??= request ?? {};
    return { cancelled: true, state: 'cancelled' };
  });
  const direct = patched(DIRECT_STEPS);
  // A resumed run's chain was checked by its first run; a chain the api sealed, by the api.
  const sealed = direct && input.seal && input.limits ? input.limits : undefined;
  const { steps, limits }: PreparedChain = resume
    ? { steps: plannedSteps(input), limits: resume.limits }
    : sealed
      ? { steps: sealedSteps(input), limits: sealed }
      : await prepareChain(input).catch((error: unknown) => {
          // The refusal itself (its type names the reason), not the activity failure wrapping it.
          throw error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause : error;
        });
  if (!resume)
    status.steps = steps.map((s) => ({
      id: s.id,
      after: s.after,
      message_id: stepMessageId(chainId, s.id),
      state: 'pending',
    }));
  const shape: ChainShape = direct ? 'direct' : patched(PREPARED_STEPS) ? 'prepared' : 'send-message';
  const run = new ChainRun(input, steps, status, () => cancelRequest, taskQueue, limits, shape);
  if (resume) run.resume(resume);
  const ended = await runSteps(run);
  if (input.reply_to) {
    // A child that outlives this run (ABANDON), so the chain ends now while the notification retries for hours.
    await startChild(notifyCallerWorkflow, {
      workflowId: replyWorkflowId(workflowId, workflowInfo().runId),
      args: [{ url: input.reply_to.url, retry_initial_ms: input.reply_retry_initial_ms ?? 5_000, status: ended }],
      parentClosePolicy: 'ABANDON',
    });
  }
  return ended;
}

/** The steps of a chain the api checked; an input that is no chain fails the run (its seal cannot be the api's). */
function sealedSteps(input: RunChainInput) {
  try {
    return plannedSteps(input);
  } catch (error) {
    throw ApplicationFailure.nonRetryable(
      `invalid chain: ${(error as Error)?.message ?? String(error)}`,
      CHAIN_FAILURES.invalidChain,
    );
  }
}

/** Ends this run and starts the next with the chain's state (no step may be running: its child would be cut off). */
function continueChain(run: ChainRun): Promise<never> {
  return continueAsNew<typeof runChain>(run.input, run.resumeState(run.cancelRequest()));
}

/** Runs the steps, then ends the chain: completed, failed, cancelled, or compensated. */
async function runSteps(run: ChainRun): Promise<ChainStatus> {
  const { status, cancelRequest } = run;
  if (status.state === 'compensating') return compensate(run, { ...run.stop!.error, step: run.stop!.step });
  await runReadySteps(run);
  // Steps that never ran: the chain stopped (or was cancelled) before them.
  const cancelled = cancelRequest();
  for (const shown of status.steps) {
    if (shown.state !== 'pending') continue;
    shown.state = cancelled ? 'cancelled' : 'skipped';
    shown.error = { code: 'not_run', message: 'the chain ended before this step could start' };
  }
  if (cancelled)
    return finish(status, 'cancelled', {
      code: 'cancelled_by_caller',
      message: cancelled.reason ?? 'cancelled by the caller',
    });
  const { stop } = run;
  if (!stop) return finish(status, 'completed');
  const why = { ...stop.error, step: stop.step };
  if (!stop.compensate) return finish(status, 'failed', why);
  return compensate(run, why);
}

/**
 * Starts every ready step until none runs: the chain completed, stopped at a failure, or was cancelled. Once the
 * history is past its budget no step starts; when the running ones have ended, the run continues as new.
 */
async function runReadySteps(run: ChainRun): Promise<void> {
  let cancelsSent = false;
  for (;;) {
    const full = run.historyFull();
    const going = !run.stop && !run.cancelRequest();
    if (going && !full) for (const step of readySteps(run.steps, run.states())) run.start(step);
    if (run.cancelRequest() && !cancelsSent) {
      cancelsSent = true;
      for (const scope of run.running.values()) scope.cancel();
    }
    // A step skipped or ended: look again (it may let others start) before waiting.
    if (run.changed) {
      run.changed = false;
      continue;
    }
    if (run.running.size === 0) {
      if (going && full && readySteps(run.steps, run.states()).length > 0) await continueChain(run);
      return;
    }
    await condition(() => run.changed || (run.cancelRequest() !== undefined && !cancelsSent));
  }
}

/** Runs the completed steps' compensations, latest completed first, each once; a cancel does not stop them. */
async function compensate(run: ChainRun, why: NonNullable<ChainStatus['error']>): Promise<ChainStatus> {
  const { status } = run;
  status.state = 'compensating';
  let compensationFailed: StepStatus | undefined;
  for (const step of compensationOrder(run.steps, run.completedInOrder)) {
    const shown = run.stepStatus.get(step.id)!;
    // Compensations an earlier run of the chain (before it continued as new) already sent are not sent again.
    if (!shown.compensation?.ended_at) {
      if (run.historyFull()) await continueChain(run);
      const compensation: SentMessage = {
        message_id: compensationMessageId(status.chain_id, step.id),
        state: 'running',
        started_at: now(),
      };
      shown.compensation = compensation;
      run.record(
        compensation,
        await run.send(
          compensation.message_id,
          step.compensate!,
          undefined,
          new CancellationScope({ cancellable: false }),
        ),
      );
    }
    if (shown.compensation.state !== 'completed') compensationFailed ??= shown;
  }
  if (compensationFailed) {
    return finish(status, 'failed', {
      code: 'compensation_failed',
      message: `the compensation of step ${compensationFailed.id} failed: ${compensationFailed.compensation?.error?.message ?? ''}`,
      step: compensationFailed.id,
    });
  }
  return finish(status, 'compensated', why);
}

function finish(status: ChainStatus, state: ChainState, error?: ChainStatus['error']): ChainStatus {
  status.state = state;
  status.ended_at = now();
  if (error) status.error = error;
  return status;
}
