/**
 * What one chain run knows while its steps run, and how it sends one message of the chain as the chain's caller,
 * built from the step's templates (an intent step is routed and its params checked first): started by the chain
 * itself (DIRECT_STEPS: chain-direct-step.ts), or, in runs before it, as a child run. Deterministic: no I/O here.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  condition,
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  startChild,
  workflowInfo,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import { messageWorkflowId } from '../platform/temporal-names';
import type { Activities } from '../activities';
import type { PreparedMessage } from '../activities/prepare-message';
import { MESSAGE_WORKFLOW, messageSearchAttributes } from '../messages/temporal';
import type { leanMessageWorkflow } from './message';
import type {
  ChainStatus,
  SentMessage,
  StepAddress,
  StepCondition,
  StepError,
  StepState,
  StepStatus,
} from '../chains/chain';
import { jsonSize } from '../chains/mapped-size';
import type { PlannedStep } from '../chains/plan';
import { conditionHolds } from '../chains/condition';
import { refsIn, sourceOf } from '../chains/pointer';
import { inlineResultCap, keptResult } from '../chains/result-refs';
import {
  historyFull,
  resumedDocument,
  type ChainResume,
  type ChainRunLimits,
  type ChainStop,
} from '../chains/run-state';
import { stepMessage, type ChainDocument, type StepMessage } from '../chains/step-message';
import type { RunChainInput } from '../chains/temporal';
import { paramsMisfit } from '../chains/type-check';
import { sentOf, type ChainSent } from '../chains/chain-sent';
import { LocalWaits, sendDirect } from './chain-direct-step';
import {
  routingTaskQueue,
  SEND_MESSAGE_WORKFLOW,
  type SendMessageInput,
  type SendMessageWorkflow,
} from '../temporal-callers/contract';

const {
  capabilityParameters,
  mapChainStep,
  prepareMessage: prepareLocally,
} = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  scheduleToCloseTimeout: '2m',
  retry: { maximumInterval: '10s' },
});

/** What one message of the chain came to (its start and end times when the one who saw it end knows them). */
type Sent = ChainSent;

/**
 * How this run sends a message: a child `sendMessage` run that prepares it (runs before PREPARED_STEPS), a child
 * message run it prepared (before DIRECT_STEPS), or a message it prepares and starts itself (chain-direct-step.ts).
 */
export type ChainShape = 'send-message' | 'prepared' | 'direct';

/** A step's message run: a `sendMessage` run (runs before PREPARED_STEPS) or a message run as the api starts one. */
type MessageChild = ChildWorkflowHandle<SendMessageWorkflow> | ChildWorkflowHandle<typeof leanMessageWorkflow>;

/**
 * Bytes of messages (params, payload, intent) one workflow task may start: every command of a task travels in one
 * gRPC message, which Temporal caps at 4 MB. Past it, a step waits until the steps started before it have started.
 */
const START_BUDGET_BYTES = 1024 * 1024;

export const now = () => new Date().toISOString();

/**
 * An intent step's target, chosen before its message starts (by the api's `prepareMessage` on its routing queue, as
 * for any intent-only direct start), and its params checked against that capability's `parameters`: a misfit
 * fails the step before anything is delivered. Undefined when the router refused: the message then starts with its
 * intent alone and records the refusal as any message would.
 */
async function routedTarget(
  request: SendMessageInput,
  taskQueue: string,
): Promise<{ target: { agent_id: string; capability: string } } | { misfit: string } | undefined> {
  const routed = await routedMessage(request, taskQueue);
  if (!routed) return undefined;
  if ('misfit' in routed) return routed;
  return routed.prepared.input.rejection ? undefined : { target: routed.prepared.input.target };
}

/** As `routedTarget`, with the message the api's `prepareMessage` built: sealed, sent as the chain's caller. */
async function routedMessage(
  request: SendMessageInput,
  taskQueue: string,
): Promise<{ prepared: PreparedMessage } | { misfit: string } | undefined> {
  const { prepareMessage } = proxyActivities<Activities>({
    taskQueue: routingTaskQueue(taskQueue),
    startToCloseTimeout: '30s',
    scheduleToCloseTimeout: '1m',
    retry: { maximumInterval: '5s' },
  });
  const prepared = await prepareMessage(request);
  if (prepared.kind !== 'prepared') return undefined;
  if (prepared.input.rejection) return { prepared };
  const target = prepared.input.target;
  const misfit =
    request.params && paramsMisfit(await capabilityParameters({ tenant: request.tenant, ...target }), request.params);
  return misfit ? { misfit: `${target.capability}: ${misfit}` } : { prepared };
}

/**
 * A step's message prepared in the chain's own run, as the api prepares one it is posted (checked, its target's ACL
 * asked as the chain's caller, sealed) by `prepareMessage` as a local activity, in the very task that starts it (its
 * seal is as fresh as its start). An intent is routed first on the api's routing queue; a refusal there is the
 * message as the router built it (a rejected message is recorded, never delivered). Undefined when routing chose
 * nothing the chain can start.
 */
async function preparedMessage(
  request: SendMessageInput,
  taskQueue: string,
): Promise<{ prepared: PreparedMessage } | { misfit: string } | undefined> {
  if (request.intent && !request.target) {
    const routed = await routedMessage(request, taskQueue);
    if (!routed || 'misfit' in routed || routed.prepared.input.rejection) return routed;
    request.target = routed.prepared.input.target;
  }
  const prepared = await prepareLocally(request, { own_chain: true });
  return prepared.kind === 'prepared' ? { prepared } : undefined;
}

/** A refusal of the step's message before it started (its preparation failed), as the step's error. */
function refusalOf(error: unknown): Sent {
  return errorOf(error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause : error);
}

/** A refusal or failure of a step's message, as the step's error. */
function errorOf(error: unknown): { state: StepState; error: StepError } {
  if (isCancellation(error))
    return { state: 'cancelled', error: { code: 'cancelled', message: 'the chain was cancelled' } };
  const cause = error instanceof ChildWorkflowFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure)
    return { state: 'failed', error: { code: cause.type ?? 'failed', message: cause.message } };
  return { state: 'failed', error: { code: 'failed', message: (cause as Error)?.message ?? String(cause) } };
}

/** A failure of `mapChainStep` (a result by reference that cannot be read), as the step's message. */
function unmappable(error: unknown): StepMessage {
  const cause = error instanceof Error && error.cause instanceof ApplicationFailure ? error.cause : error;
  return { ok: false, code: 'mapping_failed', message: (cause as Error)?.message ?? String(cause) };
}

/** What a chain run knows while its steps run: their states, the document their pointers read, what stopped it. */
export class ChainRun {
  readonly stepStatus: Map<string, StepStatus>;
  /** The chain input and the results this run holds; results kept by reference are in `referenced`. */
  document: ChainDocument;
  /** Step id → message id of results kept only in their messages (a run continued as new). */
  referenced = new Map<string, string>();
  readonly completedInOrder: string[] = [];
  readonly running = new Map<string, CancellationScope>();
  stop: ChainStop | undefined;
  /** A step was skipped or ended since the loop last looked. */
  changed = false;
  /** Largest result the status keeps inline. */
  readonly inlineCap: number;
  /** Bytes of messages being started (their child runs not yet started). */
  private startingBytes = 0;
  /** What local waiting for steps' ends the current workflow task has left (direct steps). */
  private readonly waits = new LocalWaits();

  constructor(
    readonly input: RunChainInput,
    readonly steps: PlannedStep[],
    readonly status: ChainStatus,
    readonly cancelRequest: () => { reason?: string } | undefined,
    readonly taskQueue: string,
    /** Absent for runs recorded before the limits (their prepareChain result has none): they apply none. */
    readonly limits: ChainRunLimits | undefined,
    readonly shape: ChainShape = 'send-message',
  ) {
    this.stepStatus = new Map(status.steps.map((s) => [s.id, s]));
    this.document = { input: input.input, steps: {} };
    this.inlineCap = inlineResultCap(steps.length + steps.filter((s) => s.compensate).length);
  }

  /** Takes up where the run before this one stopped (it continued as new). */
  resume(resume: ChainResume): void {
    this.completedInOrder.push(...resume.completed_in_order);
    this.stop = resume.stop;
    ({ document: this.document, referenced: this.referenced } = resumedDocument(this.input.input, this.status));
  }

  /** What the next run needs when this one continues as new. */
  resumeState(cancelRequest: { reason?: string } | undefined): ChainResume {
    return {
      status: this.status,
      completed_in_order: this.completedInOrder,
      ...(this.stop ? { stop: this.stop } : {}),
      ...(cancelRequest ? { cancel_request: cancelRequest } : {}),
      limits: this.limits!,
    };
  }

  /** Whether this run's history is past its budget: time to continue as new once no step runs. */
  historyFull(): boolean {
    const { historySize, continueAsNewSuggested } = workflowInfo();
    return historyFull(this.limits, { historySize: historySize + this.waits.takenBytes(), continueAsNewSuggested });
  }

  /** A message's end into its status: its result inline when small, else by reference to its message. */
  record(into: SentMessage, sent: Sent): void {
    const { result, ...rest } = sent;
    Object.assign(into, rest, keptResult(into.message_id, result, this.inlineCap), {
      ended_at: rest.ended_at ?? now(),
    });
  }

  /** Each step's state, as its status shows it. */
  states(): Map<string, StepState> {
    return new Map([...this.stepStatus].map(([id, shown]) => [id, shown.state]));
  }

  /** Sends one message of the chain (a step or a compensation) in `scope`, as this run's shape sends one. */
  send(
    messageId: string,
    address: StepAddress,
    deadlineMs: number | undefined,
    scope: CancellationScope,
  ): Promise<Sent> {
    return scope.run(async () => {
      // Only a step reading a result kept by reference awaits here: any other is built as before, in this very task.
      const built = this.readsReferenced(address)
        ? await this.mappedByReference(address)
        : stepMessage(address, this.document, this.limits?.max_message_bytes);
      if (!built.ok) return { state: 'failed', error: { code: built.code, message: built.message } };
      const request = this.requestOf(messageId, address, built.message, deadlineMs);
      if (this.shape === 'direct') return this.sendDirect(request);
      const bytes = this.limits ? jsonSize(request) : 0;
      try {
        if (this.startingBytes > 0 && this.startingBytes + bytes > START_BUDGET_BYTES) await this.startRoom(bytes);
        this.startingBytes += bytes;
        let child: MessageChild | Sent;
        try {
          child = this.shape === 'prepared' ? await this.startPrepared(request) : await this.startSendMessage(request);
        } finally {
          this.startingBytes -= bytes;
        }
        return 'state' in child ? child : sentOf(await child.result());
      } catch (error) {
        return errorOf(error);
      }
    });
  }

  /**
   * A message this run starts itself (DIRECT_STEPS). An intent is routed first on the api's routing queue; a refusal
   * there is started as the router built it (a rejected message is recorded, never delivered).
   */
  private async sendDirect(request: SendMessageInput): Promise<Sent> {
    const step = { tenant: this.input.tenant, chain_id: this.input.chain_id, message_id: request.message_id! };
    if (request.intent && !request.target) {
      let routed;
      try {
        routed = await routedMessage(request, this.taskQueue);
      } catch (error) {
        // A cancel while routing: nothing was started.
        return refusalOf(error);
      }
      if (!routed)
        return {
          state: 'failed',
          error: { code: 'routing_unavailable', message: 'the routing queue answered without routing' },
        };
      if ('misfit' in routed) return { state: 'failed', error: { code: 'params_mismatch', message: routed.misfit } };
      if (routed.prepared.input.rejection)
        return sendDirect({ ...step, send: { prepared: routed.prepared } }, this.waits, refusalOf);
      request.target = routed.prepared.input.target;
    }
    return sendDirect({ ...step, send: { request } }, this.waits, refusalOf);
  }

  /** A step's message as a child `sendMessage` run, which prepares it (runs before PREPARED_STEPS). */
  private async startSendMessage(request: SendMessageInput): Promise<MessageChild | Sent> {
    if (request.intent && !request.target) {
      const routed = await routedTarget(request, this.taskQueue);
      if (routed && 'misfit' in routed)
        return { state: 'failed', error: { code: 'params_mismatch', message: routed.misfit } };
      if (routed) request.target = routed.target;
    }
    return startChild<SendMessageWorkflow>(SEND_MESSAGE_WORKFLOW, {
      workflowId: messageWorkflowId(this.input.tenant, request.message_id!),
      taskQueue: this.taskQueue,
      args: [request],
      // As any message: its id never gets a second run, unless the gateway refused the first.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    });
  }

  /**
   * A step's message prepared here, then started as the api starts a message: its memo, search attributes and
   * summary given at the start, so the message's first task only delivers.
   */
  private async startPrepared(request: SendMessageInput): Promise<MessageChild | Sent> {
    let ready;
    try {
      ready = await preparedMessage(request, this.taskQueue);
    } catch (error) {
      if (isCancellation(error)) throw error;
      return refusalOf(error);
    }
    if (!ready)
      return {
        state: 'failed',
        error: { code: 'routing_unavailable', message: 'the routing queue answered without routing' },
      };
    if ('misfit' in ready) return { state: 'failed', error: { code: 'params_mismatch', message: ready.misfit } };
    const { input, memo, summary } = ready.prepared;
    return startChild<typeof leanMessageWorkflow>(MESSAGE_WORKFLOW, {
      workflowId: messageWorkflowId(input.tenant, input.message_id),
      taskQueue: this.taskQueue,
      args: [input],
      memo: { ...memo },
      typedSearchAttributes: messageSearchAttributes(input.tenant, input.target.agent_id, input.trace_id),
      staticSummary: summary.staticSummary,
      staticDetails: summary.staticDetails,
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    });
  }

  /** Waits until the messages being started leave room for `bytes` more (or none is being started). */
  private async startRoom(bytes: number): Promise<void> {
    const fits = () => this.startingBytes === 0 || this.startingBytes + bytes <= START_BUDGET_BYTES;
    // Every waiting step wakes when room appears; the first to run takes it, the others wait again.
    while (!fits()) await condition(fits);
  }

  /** Whether the templates read a result this run keeps only by reference. */
  private readsReferenced(templates: { input?: unknown; payload?: unknown }): boolean {
    if (this.referenced.size === 0) return false;
    return [templates.input, templates.payload].some((template) =>
      refsIn(template).some(({ ref }) => {
        const source = sourceOf(ref);
        return source.kind === 'step' && this.referenced.has(source.step);
      }),
    );
  }

  /** A step's message built by `mapChainStep`, which reads the results kept by reference from their messages. */
  private async mappedByReference(address: StepAddress): Promise<StepMessage> {
    try {
      const mapped = await mapChainStep(
        this.mapRequest({
          address: {
            ...(address.intent ? { intent: address.intent } : {}),
            input: address.input,
            payload: address.payload,
          },
        }),
      );
      return 'message' in mapped ? mapped.message : unmappable(new Error('mapChainStep built no message'));
    } catch (error) {
      return unmappable(error);
    }
  }

  /** Whether a step's `when` holds, reading a result kept by reference if it needs one; false when it cannot be read. */
  private async whenHolds(when: StepCondition): Promise<boolean> {
    if (!this.readsReferenced({ input: { $ref: when.$ref } })) return conditionHolds(this.document, when);
    try {
      const mapped = await mapChainStep(this.mapRequest({ when }));
      return 'when_holds' in mapped && mapped.when_holds;
    } catch (error) {
      log.warn('chain: a step condition could not be read; it counts as not holding', {
        chain_id: this.input.chain_id,
        ref: when.$ref,
        error: (error as Error)?.message ?? String(error),
      });
      return false;
    }
  }

  private mapRequest(what: { address: StepAddress } | { when: StepCondition }) {
    return {
      tenant: this.input.tenant,
      chain_id: this.input.chain_id,
      document: this.document,
      referenced: Object.fromEntries(this.referenced),
      ...what,
      ...(this.limits ? { max_bytes: this.limits.max_message_bytes } : {}),
    };
  }

  /**
   * The `sendMessage` input of one message, with its deadline. It carries no credential: the gateway sends it as the
   * chain's caller, found from this run's own input (chains/chain-caller.ts), since this run is its parent.
   */
  private requestOf(
    messageId: string,
    address: StepAddress,
    built: { params?: Record<string, unknown>; payload?: unknown },
    deadlineMs: number | undefined,
  ): SendMessageInput {
    return {
      tenant: this.input.tenant,
      message_id: messageId,
      ...(address.target ? { target: address.target } : {}),
      ...(address.intent ? { intent: address.intent } : {}),
      ...built,
      ...(deadlineMs ? { deadline: new Date(Date.now() + deadlineMs).toISOString() } : {}),
    };
  }

  /** Starts a ready step (or skips it when its condition does not hold); its end is recorded when it comes. */
  start(step: PlannedStep): void {
    const shown = this.stepStatus.get(step.id)!;
    const { when } = step;
    const later = when !== undefined && this.readsReferenced({ input: { $ref: when.$ref } });
    if (when && !later && !conditionHolds(this.document, when)) {
      shown.state = 'skipped';
      this.changed = true;
      return;
    }
    shown.state = 'running';
    shown.started_at = now();
    const scope = new CancellationScope();
    this.running.set(step.id, scope);
    const sending = later
      ? this.sendWhen(when, shown, step, scope)
      : this.send(shown.message_id, step, step.deadline_ms, scope);
    void sending.then((sent) => this.ended(step, shown, sent));
  }

  /** Sends the step if its `when` holds once the result it reads is read; else the step is skipped. */
  private async sendWhen(
    when: StepCondition,
    shown: StepStatus,
    step: PlannedStep,
    scope: CancellationScope,
  ): Promise<Sent> {
    if (!(await scope.run(() => this.whenHolds(when)))) return { state: 'skipped' };
    return this.send(shown.message_id, step, step.deadline_ms, scope);
  }

  private ended(step: PlannedStep, shown: StepStatus, sent: Sent): void {
    this.running.delete(step.id);
    this.record(shown, sent);
    this.changed = true;
    if (sent.state === 'completed') {
      this.completedInOrder.push(step.id);
      this.document.steps[step.id] = { result: sent.result };
    } else if (sent.state === 'failed' && step.on_failure !== 'continue' && !this.stop) {
      this.stop = { step: step.id, error: sent.error!, compensate: step.on_failure === 'compensate' };
    }
  }
}
