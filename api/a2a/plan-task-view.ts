/**
 * The A2A face's plan tasks (skill `plan_and_run`, docs/a2a.md) as v1.0 task JSON, and how a caller's reply is
 * read. A plan waiting for its answer is `input-required`, the plan as a data part of its status message; declined,
 * `canceled`; a plan the router did not accept whole, `rejected` (nothing runs). Confirmed, the task is its chain:
 * running or compensating `working`, completed `completed`, failed or compensated `failed`, cancelled `canceled`,
 * and an ended chain's aggregate (results by step, the summary) is the task's artifact. Pure.
 */
import type { ChainAggregate } from '../../chains/aggregate';
import type { ChainState, ChainStatus } from '../../chains/chain';
import { planText, type PlanAnswer } from '../chain-planning';
import { PLAN_AND_RUN_SKILL_ID } from './send';
import type { TaskStateName } from './task';

type JsonObject = Record<string, unknown>;

const TASK_STATE_OF_CHAIN: Record<ChainState, TaskStateName> = {
  running: 'TASK_STATE_WORKING',
  compensating: 'TASK_STATE_WORKING',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  compensated: 'TASK_STATE_FAILED',
  cancelled: 'TASK_STATE_CANCELED',
};

export const REPLY_HINT = 'Reply "yes" (or a data part {"confirm": true}) to run it, "no" to cancel.';

function agentMessage(taskId: string, contextId: string, suffix: string, parts: JsonObject[]): JsonObject {
  return { messageId: `${taskId}:${suffix}`, contextId, taskId, role: 'ROLE_AGENT', parts };
}

const text = (value: string) => ({ text: value, mediaType: 'text/plain' });
const data = (value: unknown) => ({ data: value, mediaType: 'application/json' });

export interface ShownPlan {
  task_id: string;
  context_id: string;
  plan: PlanAnswer;
  at: Date;
}

/** A plan waiting for the caller's answer, or declined by it. */
export function planTaskOf(shown: ShownPlan, state: 'input_required' | 'declined'): JsonObject {
  const { task_id, context_id, plan } = shown;
  const message =
    state === 'input_required'
      ? agentMessage(task_id, context_id, 'plan', [text(`${planText(plan)}\n${REPLY_HINT}`), data(plan)])
      : agentMessage(task_id, context_id, 'declined', [text('You declined the plan: nothing ran.'), data(plan)]);
  return {
    id: task_id,
    contextId: context_id,
    status: {
      state: state === 'input_required' ? 'TASK_STATE_INPUT_REQUIRED' : 'TASK_STATE_CANCELED',
      timestamp: shown.at.toISOString(),
      message,
    },
    metadata: {
      kind: PLAN_AND_RUN_SKILL_ID,
      chain_id: task_id,
      state: state === 'input_required' ? 'input_required' : 'declined',
    },
  };
}

/** A plan the router did not accept whole: rejected, with why and the plan; nothing runs. */
export function rejectedPlanTaskOf(shown: ShownPlan, why: string): JsonObject {
  const { task_id, context_id, plan } = shown;
  return {
    id: task_id,
    contextId: context_id,
    status: {
      state: 'TASK_STATE_REJECTED',
      timestamp: shown.at.toISOString(),
      message: agentMessage(task_id, context_id, 'rejected', [text(why), data(plan)]),
    },
    metadata: { kind: PLAN_AND_RUN_SKILL_ID, state: 'rejected' },
  };
}

/** A confirmed plan: its chain as the task, the aggregate as its artifact once it ended. */
export function chainTaskOf(status: ChainStatus & Partial<ChainAggregate>, contextId: string): JsonObject {
  const taskId = status.chain_id;
  const ended = status.state !== 'running' && status.state !== 'compensating';
  const aggregate = {
    chain_id: taskId,
    state: status.state,
    results: status.results ?? {},
    ...(status.summary ? { summary: status.summary } : {}),
  };
  const parts = [...(status.summary ? [text(status.summary.text)] : []), data(aggregate)];
  const failure = status.error
    ? agentMessage(taskId, contextId, status.state, [text(status.error.message), data(status.error)])
    : undefined;
  return {
    id: taskId,
    contextId,
    status: {
      state: TASK_STATE_OF_CHAIN[status.state],
      timestamp: status.ended_at ?? status.started_at,
      ...(failure ? { message: failure } : {}),
    },
    ...(ended ? { artifacts: [{ artifactId: 'result', name: 'result', parts }] } : {}),
    metadata: { kind: PLAN_AND_RUN_SKILL_ID, chain_id: taskId, state: status.state },
  };
}

const YES = new Set([
  'yes',
  'y',
  'run',
  'run it',
  'ok',
  'okay',
  'confirm',
  'go',
  'go ahead',
  'sure',
  '是',
  '好',
  '好的',
  '确认',
  '运行',
  '执行',
  '可以',
  '行',
]);
const NO = new Set([
  'no',
  'n',
  'cancel',
  'stop',
  'do not run',
  "don't run",
  'decline',
  '否',
  '不',
  '不要',
  '取消',
  '算了',
]);

/** What the caller's reply to a plan says: run it, cancel it, or neither (undefined). */
export function replyVerdict(parts: { text?: string; data?: unknown }[]): 'run' | 'cancel' | undefined {
  for (const part of parts) {
    const value = part.data as { confirm?: unknown } | undefined;
    if (typeof value === 'object' && value !== null && typeof value.confirm === 'boolean')
      return value.confirm ? 'run' : 'cancel';
  }
  const said = parts
    .map((p) => p.text ?? '')
    .join(' ')
    .trim()
    .toLowerCase()
    .replace(/[\s.!。！,，]+$/u, '')
    .replace(/\s+/g, ' ');
  if (YES.has(said)) return 'run';
  if (NO.has(said)) return 'cancel';
  return undefined;
}
