/**
 * What one chain run knows while its steps run, and how it sends one message of the chain: a child `sendMessage`
 * run as the chain's caller, built from the step's templates (an intent step is routed and its params checked
 * first). Deterministic: no I/O here.
 */
import { ApplicationFailure, CancellationScope, ChildWorkflowFailure, isCancellation, proxyActivities, proxyLocalActivities, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ChainStatus, SentMessage, StepAddress, StepError, StepState, StepStatus } from '../chains/chain';
import type { PlannedStep } from '../chains/plan';
import { buildFromTemplate, resolvePointer, sameJson } from '../chains/pointer';
import type { RunChainInput } from '../chains/temporal';
import { paramsMisfit } from '../chains/type-check';
import type { MessageStatus } from '../messages/message';
import { routingTaskQueue, SEND_MESSAGE_WORKFLOW, type SendMessageInput, type SendMessageWorkflow } from '../temporal-callers/contract';

const { capabilityParameters } = proxyLocalActivities<Activities>({
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

export const now = () => new Date().toISOString();

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

/** What a chain run knows while its steps run: their states, the document their pointers read, what stopped it. */
export class ChainRun {
  readonly stepStatus: Map<string, StepStatus>;
  readonly document: ChainDocument;
  readonly completedInOrder: string[] = [];
  readonly running = new Map<string, CancellationScope>();
  stop: { step: string; error: StepError; compensate: boolean } | undefined;
  /** A step was skipped or ended since the loop last looked. */
  changed = false;

  constructor(
    readonly input: RunChainInput,
    readonly steps: PlannedStep[],
    readonly status: ChainStatus,
    readonly cancelRequest: () => { reason?: string } | undefined,
    readonly taskQueue: string,
  ) {
    this.stepStatus = new Map(status.steps.map((s) => [s.id, s]));
    this.document = { input: input.input, steps: {} };
  }

  /** Each step's state, as its status shows it. */
  states(): Map<string, StepState> {
    return new Map([...this.stepStatus].map(([id, shown]) => [id, shown.state]));
  }

  /** Sends one message of the chain (a step or a compensation) as a child `sendMessage` run in `scope`. */
  send(messageId: string, address: StepAddress, deadlineMs: number | undefined, scope: CancellationScope): Promise<Sent> {
    return scope.run(async () => {
      const built = messageOf(address, this.document);
      if ('unmapped' in built) return { state: 'failed', error: { code: 'mapping_failed', message: built.unmapped } };
      const request = this.requestOf(messageId, address, built, deadlineMs);
      try {
        if (request.intent && !request.target) {
          const routed = await routedTarget(request, this.taskQueue);
          if (routed && 'misfit' in routed) return { state: 'failed', error: { code: 'params_mismatch', message: routed.misfit } };
          if (routed) request.target = routed.target;
        }
        const child = await startChild<SendMessageWorkflow>(SEND_MESSAGE_WORKFLOW, {
          workflowId: `msg:${this.input.tenant}:${messageId}`,
          taskQueue: this.taskQueue,
          args: [request],
          // As any message: its id never gets a second run, unless the gateway refused the first.
          workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
        });
        return sentOf(await child.result());
      } catch (error) {
        return errorOf(error);
      }
    });
  }

  /** The `sendMessage` input of one message: the chain's caller (its key id and this message's proof), its deadline. */
  private requestOf(messageId: string, address: StepAddress, built: { params?: Record<string, unknown>; payload?: unknown }, deadlineMs: number | undefined): SendMessageInput {
    const { input } = this;
    const proof = input.key_proofs?.[messageId];
    return {
      tenant: input.tenant,
      message_id: messageId,
      ...(address.target ? { target: address.target } : {}),
      ...(address.intent ? { intent: address.intent } : {}),
      ...built,
      ...(deadlineMs ? { deadline: new Date(Date.now() + deadlineMs).toISOString() } : {}),
      ...(input.key_id ? { key_id: input.key_id } : {}),
      ...(proof ? { key_proof: proof } : {}),
    };
  }

  /** Starts a ready step (or skips it when its condition does not hold); its end is recorded when it comes. */
  start(step: PlannedStep): void {
    const shown = this.stepStatus.get(step.id)!;
    if (step.when) {
      const found = resolvePointer(this.document, step.when.$ref);
      if (!found.ok || !sameJson(found.value, step.when.equals)) {
        shown.state = 'skipped';
        this.changed = true;
        return;
      }
    }
    shown.state = 'running';
    shown.started_at = now();
    const scope = new CancellationScope();
    this.running.set(step.id, scope);
    void this.send(shown.message_id, step, step.deadline_ms, scope).then((sent) => this.ended(step, shown, sent));
  }

  private ended(step: PlannedStep, shown: StepStatus, sent: Sent): void {
    this.running.delete(step.id);
    record(shown, sent);
    this.changed = true;
    if (sent.state === 'completed') {
      this.completedInOrder.push(step.id);
      this.document.steps[step.id] = { result: sent.result };
    } else if (sent.state === 'failed' && step.on_failure !== 'continue' && !this.stop) {
      this.stop = { step: step.id, error: sent.error!, compensate: step.on_failure === 'compensate' };
    }
  }
}

/** What a step's message came to. */
function sentOf(ended: MessageStatus): Sent {
  const target = ended.agent ? { agent_id: ended.agent.agent_id, capability: ended.agent.capability } : ended.target;
  if (ended.state === 'processed') return { state: 'completed', result: ended.result, target };
  const reason = ended.reason ?? { code: ended.state, message: ended.error?.message ?? `the message ended ${ended.state}` };
  return { state: ended.state === 'cancelled' ? 'cancelled' : 'failed', error: { code: reason.code, message: reason.message }, target };
}

export function record(into: SentMessage, sent: Sent): void {
  Object.assign(into, sent, { ended_at: now() });
}
