/**
 * `runChain`: one durable run per chain (docs/chains.md). It checks the chain in full (a local activity, the api's
 * own check), then runs its steps as a DAG: every ready step starts at once as a child `sendMessage` run under the
 * message id `<chain_id>:<step_id>`, so each step is a message like any other (the caller's checks, retries,
 * receipts, circuits, idempotency, trace). A step that fails stops the chain, lets it continue, or makes it
 * compensate: the completed steps' compensations run as their own messages, latest completed first, each once.
 * A cancel reaches the running steps' messages (their child runs are cancelled). Deterministic: no I/O here.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  condition,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ChainState, ChainStatus, SentMessage, StepAddress, StepError, StepState, StepStatus } from '../chains/chain';
import { compensationOrder, readySteps, type PlannedStep } from '../chains/plan';
import { buildFromTemplate, resolvePointer, sameJson } from '../chains/pointer';
import { cancelChainUpdate, chainStatusQuery, chainWorkflowId, CHAIN_FAILURES, compensationMessageId, stepMessageId, type RunChainInput } from '../chains/temporal';
import { routingTaskQueue, SEND_MESSAGE_WORKFLOW, type SendMessageInput, type SendMessageWorkflow } from '../temporal-callers/contract';
import { paramsMisfit } from '../chains/type-check';
import type { MessageStatus } from '../messages/message';
import { notifyCallerWorkflow } from './notify-caller';

const { prepareChain, capabilityParameters } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  scheduleToCloseTimeout: '2m',
  retry: { maximumInterval: '10s' },
});

/** What one message of the chain came to. */
type Sent = Omit<SentMessage, 'message_id' | 'started_at'>;

/** The chain's input, built: the document its pointers read. */
interface ChainDocument {
  input: unknown;
  steps: Record<string, { result?: unknown }>;
}

const now = () => new Date().toISOString();

/**
 * An intent step's target, chosen before its message starts (by the api's `prepareMessage` on its routing queue, as
 * for any intent-only direct start), and its params checked against that capability's `parameters`: a misfit
 * fails the step before anything is delivered. Undefined when the router refused: the message then starts with its
 * intent alone and records the refusal as any message would.
 */
async function routedTarget(request: SendMessageInput, taskQueue: string): Promise<{ target: { agent_id: string; capability: string } } | { misfit: string } | undefined> {
  const { prepareMessage } = proxyActivities<Activities>({ taskQueue: routingTaskQueue(taskQueue), startToCloseTimeout: '30s', scheduleToCloseTimeout: '1m', retry: { maximumInterval: '5s' } });
  const prepared = await prepareMessage(request);
  if (prepared.kind !== 'prepared' || prepared.input.rejection) return undefined;
  const target = prepared.input.target;
  const misfit = request.params && paramsMisfit(await capabilityParameters({ tenant: request.tenant, ...target }), request.params);
  return misfit ? { misfit: `${target.capability}: ${misfit}` } : { target };
}

/** A refusal or failure of a step's message, as the step's error. */
function errorOf(error: unknown): { state: StepState; error: StepError } {
  if (isCancellation(error)) return { state: 'cancelled', error: { code: 'cancelled', message: 'the chain was cancelled' } };
  const cause = error instanceof ChildWorkflowFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) return { state: 'failed', error: { code: cause.type ?? 'failed', message: cause.message } };
  return { state: 'failed', error: { code: 'failed', message: (cause as Error)?.message ?? String(cause) } };
}

/** The message a step (or its compensation) sends, built from its templates, or why it cannot be built. */
function messageOf(address: StepAddress, document: ChainDocument): { params?: Record<string, unknown>; payload?: unknown } | { unmapped: string } {
  const params = address.input === undefined ? undefined : buildFromTemplate(address.input, document);
  if (params && !params.ok) return { unmapped: `${params.pointer} names nothing` };
  if (params && (params.value === null || typeof params.value !== 'object' || Array.isArray(params.value))) return { unmapped: 'input does not come to an object (the message params)' };
  const payload = address.payload === undefined ? undefined : buildFromTemplate(address.payload, document);
  if (payload && !payload.ok) return { unmapped: `${payload.pointer} names nothing` };
  return { ...(params ? { params: params.value as Record<string, unknown> } : {}), ...(payload ? { payload: payload.value } : {}) };
}

export async function runChain(input: RunChainInput): Promise<ChainStatus> {
  const { workflowId, startTime, taskQueue } = workflowInfo();
  const tenant = typeof input?.tenant === 'string' ? input.tenant : '';
  const chainId = typeof input?.chain_id === 'string' ? input.chain_id : '';
  if (!chainId || workflowId !== chainWorkflowId(tenant, chainId)) {
    throw ApplicationFailure.nonRetryable(`workflow id ${workflowId} does not match the input: it must be chain:<tenant>:<chain_id>`, CHAIN_FAILURES.workflowIdMismatch);
  }
  const status: ChainStatus = { chain_id: chainId, tenant, state: 'running', steps: [], started_at: startTime.toISOString() };
  let cancelRequest: { reason?: string } | undefined;
  setHandler(chainStatusQuery, () => status);
  setHandler(cancelChainUpdate, (request) => {
    // Compensations run to their end: a cancel does not stop them.
    if (status.state !== 'running') return { cancelled: false, state: status.state };
    cancelRequest ??= request ?? {};
    return { cancelled: true, state: 'cancelled' };
  });
  const { steps } = await prepareChain(input).catch((error: unknown) => {
    // The refusal itself (its type names the reason), not the activity failure wrapping it.
    throw error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause : error;
  });
  status.steps = steps.map((s) => ({ id: s.id, after: s.after, message_id: stepMessageId(chainId, s.id), state: 'pending' }));
  const ended = await runSteps(input, steps, status, () => cancelRequest, taskQueue);
  if (input.reply_to) {
    // A child that outlives this run (ABANDON), so the chain ends now while the notification retries for hours.
    await startChild(notifyCallerWorkflow, {
      workflowId: `${workflowId}:reply:${workflowInfo().runId}`,
      args: [{ url: input.reply_to.url, retry_initial_ms: input.reply_retry_initial_ms ?? 5_000, status: ended }],
      parentClosePolicy: 'ABANDON',
    });
  }
  return ended;
}

async function runSteps(input: RunChainInput, steps: PlannedStep[], status: ChainStatus, cancelRequest: () => { reason?: string } | undefined, taskQueue: string): Promise<ChainStatus> {
  const stepStatus = new Map(status.steps.map((s) => [s.id, s]));
  const states = new Map<string, StepState>(steps.map((s) => [s.id, 'pending']));
  const document: ChainDocument = { input: input.input, steps: {} };
  const completedInOrder: string[] = [];
  const running = new Map<string, CancellationScope>();
  let stop: { step: string; error: StepError; compensate: boolean } | undefined;
  let changed = false;

  const send = (messageId: string, address: StepAddress, deadlineMs: number | undefined, scope: CancellationScope): Promise<Sent> =>
    scope.run(async () => {
      const built = messageOf(address, document);
      if ('unmapped' in built) return { state: 'failed', error: { code: 'mapping_failed', message: built.unmapped } };
      const proof = input.key_proofs?.[messageId];
      const request: SendMessageInput = {
        tenant: input.tenant,
        message_id: messageId,
        ...(address.target ? { target: address.target } : {}),
        ...(address.intent ? { intent: address.intent } : {}),
        ...built,
        ...(deadlineMs ? { deadline: new Date(Date.now() + deadlineMs).toISOString() } : {}),
        ...(input.key_id ? { key_id: input.key_id } : {}),
        ...(proof ? { key_proof: proof } : {}),
      };
      try {
        if (request.intent && !request.target) {
          const routed = await routedTarget(request, taskQueue);
          if (routed && 'misfit' in routed) return { state: 'failed', error: { code: 'params_mismatch', message: routed.misfit } };
          if (routed) request.target = routed.target;
        }
        const child = await startChild<SendMessageWorkflow>(SEND_MESSAGE_WORKFLOW, {
          workflowId: `msg:${input.tenant}:${messageId}`,
          taskQueue,
          args: [request],
          // As any message: its id never gets a second run, unless the gateway refused the first.
          workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
        });
        const ended: MessageStatus = await child.result();
        const target = ended.agent ? { agent_id: ended.agent.agent_id, capability: ended.agent.capability } : ended.target;
        if (ended.state === 'processed') return { state: 'completed', result: ended.result, target };
        const reason = ended.reason ?? { code: ended.state, message: ended.error?.message ?? `the message ended ${ended.state}` };
        return { state: ended.state === 'cancelled' ? 'cancelled' : 'failed', error: { code: reason.code, message: reason.message }, target };
      } catch (error) {
        return errorOf(error);
      }
    });

  const record = (into: SentMessage, sent: Sent) => {
    Object.assign(into, sent, { ended_at: now() });
  };

  const start = (step: PlannedStep) => {
    const shown = stepStatus.get(step.id)!;
    if (step.when) {
      const found = resolvePointer(document, step.when.$ref);
      if (!found.ok || !sameJson(found.value, step.when.equals)) {
        states.set(step.id, 'skipped');
        shown.state = 'skipped';
        changed = true;
        return;
      }
    }
    states.set(step.id, 'running');
    shown.state = 'running';
    shown.started_at = now();
    const scope = new CancellationScope();
    running.set(step.id, scope);
    void send(shown.message_id, step, step.deadline_ms, scope).then((sent) => {
      running.delete(step.id);
      record(shown, sent);
      states.set(step.id, sent.state);
      changed = true;
      if (sent.state === 'completed') {
        completedInOrder.push(step.id);
        document.steps[step.id] = { result: sent.result };
      } else if (sent.state === 'failed' && step.on_failure !== 'continue' && !stop) {
        stop = { step: step.id, error: sent.error!, compensate: step.on_failure === 'compensate' };
      }
    });
  };

  let cancelsSent = false;
  for (;;) {
    if (!stop && !cancelRequest()) for (const step of readySteps(steps, states)) start(step);
    if (cancelRequest() && !cancelsSent) {
      cancelsSent = true;
      for (const scope of running.values()) scope.cancel();
    }
    // A step skipped or ended: look again (it may let others start) before waiting.
    if (changed) {
      changed = false;
      continue;
    }
    if (running.size === 0) break;
    await condition(() => changed || (cancelRequest() !== undefined && !cancelsSent));
  }

  // Steps that never ran: the chain stopped (or was cancelled) before them.
  const cancelled = cancelRequest();
  for (const shown of status.steps) {
    if (shown.state !== 'pending') continue;
    shown.state = cancelled ? 'cancelled' : 'skipped';
    shown.error = { code: 'not_run', message: 'the chain ended before this step could start' };
  }
  if (cancelled) return finish(status, 'cancelled', { code: 'cancelled_by_caller', message: cancelled.reason ?? 'cancelled by the caller' });
  if (!stop) return finish(status, 'completed');
  const why = { ...stop.error, step: stop.step };
  if (!stop.compensate) return finish(status, 'failed', why);

  status.state = 'compensating';
  let compensationFailed: StepStatus | undefined;
  for (const step of compensationOrder(steps, completedInOrder)) {
    const shown = stepStatus.get(step.id)!;
    const compensation: SentMessage = { message_id: compensationMessageId(status.chain_id, step.id), state: 'running', started_at: now() };
    shown.compensation = compensation;
    record(compensation, await send(compensation.message_id, step.compensate!, undefined, new CancellationScope({ cancellable: false })));
    if (compensation.state !== 'completed') compensationFailed ??= shown;
  }
  if (compensationFailed) {
    return finish(status, 'failed', { code: 'compensation_failed', message: `the compensation of step ${compensationFailed.id} failed: ${compensationFailed.compensation?.error?.message ?? ''}`, step: compensationFailed.id });
  }
  return finish(status, 'compensated', why);
}

function finish(status: ChainStatus, state: ChainState, error?: ChainStatus['error']): ChainStatus {
  status.state = state;
  status.ended_at = now();
  if (error) status.error = error;
  return status;
}
