/**
 * The A2A skill `plan_and_run` (docs/a2a.md, "Planning and running a chain"): a message naming it is planned as
 * `POST /v1/chains/plan` plans it (the same answer, the same units); a runnable plan is an `input-required` task kept
 * in the plan-task store, and the caller's next message on that task — "yes" or `{confirm: true}`, "no" or
 * `{confirm: false}` — runs or cancels it. The task id is the chain id, so a confirmed task is its chain. A plan the
 * router did not accept whole is a `rejected` task and nothing runs.
 *
 * Not the message tasks' multi-turn machinery (protocol/turns.ts): those conversations live in a message's workflow
 * and its agent asks; here the gateway asks, before any workflow exists, so the plan waits in the store.
 */
import type { ChainService } from '../../chains/chain-service';
import type { Config } from '../../platform/config';
import { callerIdOf, type Caller } from '../../rules/api-key';
import { MESSAGE_ID_PATTERN, newTraceId, sha256Hex } from '../../rules/ids';
import type { PlanTask, PlanTaskStore } from '../../store/plan-tasks';
import type { RateLimiter } from '../../util/rate-limiter';
import { requireScope } from '../caller-auth';
import {
  notRunnable,
  proposePlan,
  spendOrRefuse,
  startPlannedChain,
  type PlanAnswer,
  type PlanningDeps,
} from '../chain-planning';
import { ApiError } from '../errors';
import { PLAN_TTL_MS } from '../plan-token';
import { chainPlanBody } from '../schemas';
import { parseInput } from '../validate';
import { chainTaskOf, planTaskOf, rejectedPlanTaskOf, replyVerdict, REPLY_HINT } from './plan-task-view';
import {
  ContentTypeNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  type SendMessageRequest,
} from './sdk';

type JsonObject = Record<string, unknown>;

/** Plan task ids (and their chains' ids): `a2a-plan-<40 hex>`. */
const PLAN_TASK_PREFIX = 'a2a-plan-';

export function isPlanTaskId(taskId: string): boolean {
  return taskId.startsWith(PLAN_TASK_PREFIX);
}

/** The task id of a caller's plan message: the same message again is the same task (and chain). */
export function planTaskIdOf(caller: Caller, a2aMessageId: string): string {
  return `${PLAN_TASK_PREFIX}${sha256Hex(`${caller.tenant}\n${callerIdOf(caller)}\n${a2aMessageId}`).slice(0, 40)}`;
}

/** What a message says, as the plan skill reads it: its text, its JSON-object data parts, its context. */
export interface PlanMessage {
  messageId: string;
  contextId?: string;
  parts: { text?: string; data?: unknown }[];
}

export interface PlanTaskDeps extends PlanningDeps {
  chains: Pick<ChainService, 'check' | 'start' | 'get' | 'cancel' | 'waitForEnd'>;
  store: PlanTaskStore;
  limiter: Pick<RateLimiter, 'take'>;
  config: PlanningDeps['config'] & Pick<Config, 'IDEMPOTENCY_WINDOW_MS'>;
}

export class A2aPlanTasks {
  constructor(private readonly deps: PlanTaskDeps) {}

  /** A new message to the skill: its plan, waiting for the caller's answer (or rejected: nothing runs). */
  async plan(caller: Caller, message: PlanMessage): Promise<JsonObject> {
    requireScope(caller, 'send');
    const taskId = planTaskIdOf(caller, message.messageId);
    const known = await this.deps.store.get(caller.tenant, taskId);
    if (known) return this.view(caller, known);
    const body = parseInput(chainPlanBody, bodyOf(message), 'body');
    const plan = await proposePlan(this.deps, caller, { ...body, chain_id: taskId }, this.spend(caller));
    const shown = { task_id: taskId, context_id: message.contextId ?? newTraceId(), plan, at: new Date() };
    if (!plan.runnable) return rejectedPlanTaskOf(shown, notRunnable(plan));
    const created = await this.deps.store.create(
      {
        tenant: caller.tenant,
        task_id: taskId,
        context_id: shown.context_id,
        caller_id: callerIdOf(caller),
        plan_json: JSON.stringify(plan),
      },
      PLAN_TTL_MS,
    );
    if (created.kind === 'too_many')
      throw new ApiError(
        429,
        'too_many_plans',
        `At most ${created.limit} plan tasks per tenant at once: answer or let some expire`,
      );
    return this.view(caller, created.task);
  }

  /** The caller's reply on a plan task: yes runs it (waiting up to `waitMs` for its end), no cancels it. */
  async reply(caller: Caller, taskId: string, message: PlanMessage, waitMs: number): Promise<JsonObject> {
    requireScope(caller, 'send');
    const task = await this.task(caller, taskId);
    if (message.contextId && message.contextId !== task.context_id) {
      throw new RequestMalformedError({
        message: `message.contextId is not the context of task ${taskId} (${task.context_id})`,
        metadata: { location: 'message.contextId' },
      });
    }
    if (task.state === 'confirmed') return this.view(caller, task); // a repeated yes
    if (task.state === 'declined')
      throw new UnsupportedOperationError(
        `Task ${taskId} was declined (canceled) and takes no more messages: send a new message`,
      );
    const verdict = replyVerdict(message.parts);
    if (!verdict)
      throw new RequestMalformedError({
        message: `Task ${taskId} waits for your answer to its plan. ${REPLY_HINT}`,
        metadata: { location: 'message.parts' },
      });
    if (verdict === 'cancel') {
      await this.deps.store.decline(caller.tenant, taskId);
      return planTaskOf(shownOf(task), 'declined');
    }
    await startPlannedChain(this.deps, caller, shownOf(task).plan.chain, this.spend(caller));
    await this.deps.store.confirm(caller.tenant, taskId, this.deps.config.IDEMPOTENCY_WINDOW_MS);
    const ended = waitMs > 0 ? await this.deps.chains.waitForEnd(caller.tenant, taskId, waitMs) : undefined;
    return ended ? chainTaskOf(ended, task.context_id) : this.view(caller, { ...task, state: 'confirmed' });
  }

  async get(caller: Caller, taskId: string): Promise<JsonObject> {
    requireScope(caller, 'read');
    return this.view(caller, await this.task(caller, taskId));
  }

  /** A waiting plan is declined; a running chain is cancelled (its running steps' messages with it). */
  async cancel(caller: Caller, taskId: string): Promise<JsonObject> {
    requireScope(caller, 'send');
    const task = await this.task(caller, taskId);
    if (task.state === 'declined')
      throw new TaskNotCancelableError({
        message: `Task ${taskId} is already canceled`,
        metadata: { state: 'canceled' },
      });
    if (task.state === 'input_required') {
      await this.deps.store.decline(caller.tenant, taskId);
      return planTaskOf(shownOf(task), 'declined');
    }
    const result = await this.deps.chains.cancel(caller.tenant, taskId, 'cancelled through the A2A face');
    if (result.kind === 'unknown_chain') throw new TaskNotFoundError(`No task ${taskId}`);
    if (result.kind === 'already_ended')
      throw new TaskNotCancelableError({
        message: `Task ${taskId} already ended (${result.state})`,
        metadata: { state: result.state },
      });
    return this.view(caller, task);
  }

  /** The caller's plan task (another key's, or an expired one, is not found). */
  private async task(caller: Caller, taskId: string): Promise<PlanTask> {
    const task = await this.deps.store.get(caller.tenant, taskId);
    if (!task || task.caller_id !== callerIdOf(caller)) throw new TaskNotFoundError(`No task ${taskId}`);
    return task;
  }

  private async view(caller: Caller, task: PlanTask): Promise<JsonObject> {
    if (task.state !== 'confirmed') return planTaskOf(shownOf(task), task.state);
    const status = await this.deps.chains.get(caller.tenant, task.task_id);
    if (!status) throw new TaskNotFoundError(`No task ${task.task_id}`);
    return chainTaskOf(status, task.context_id);
  }

  private spend(caller: Caller) {
    return spendOrRefuse((units) => this.deps.limiter.take(caller.tenant, units));
  }
}

function shownOf(task: PlanTask) {
  return {
    task_id: task.task_id,
    context_id: task.context_id,
    plan: JSON.parse(task.plan_json) as PlanAnswer,
    at: task.created_at,
  };
}

/** An A2A message's parts as the skill reads them (file parts are refused, as everywhere on the face). */
export function planMessageOf(message: NonNullable<SendMessageRequest['message']>): PlanMessage {
  const parts = message.parts.map((part) => {
    const content = part.content;
    if (content?.$case === 'text') return { text: content.value };
    if (content?.$case === 'data') return { data: content.value };
    throw new ContentTypeNotSupportedError('Send text (what you want, or your answer) and data parts');
  });
  if (!message.messageId) throw new RequestMalformedError('message.messageId is required');
  if (message.contextId && !MESSAGE_ID_PATTERN.test(message.contextId)) {
    throw new RequestMalformedError({
      message: 'message.contextId must be 1–128 of letters, digits and ._:- (starting with a letter or digit)',
      metadata: { location: 'message.contextId' },
    });
  }
  return { messageId: message.messageId, ...(message.contextId ? { contextId: message.contextId } : {}), parts };
}

/** The message as the body of `POST /v1/chains/plan`: its text the intent, its JSON-object data parts the input. */
function bodyOf(message: PlanMessage): Record<string, unknown> {
  const intent = message.parts
    .map((p) => p.text ?? '')
    .filter(Boolean)
    .join('\n');
  const input: Record<string, unknown> = {};
  for (const part of message.parts)
    if (typeof part.data === 'object' && part.data !== null && !Array.isArray(part.data))
      Object.assign(input, part.data);
  return { intent, ...(Object.keys(input).length > 0 ? { input } : {}) };
}
