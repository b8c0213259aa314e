/** Dead letters: a failed or expired message gets a new attempt chain under the same message id. */
import { arrayFromPayloads } from '@temporalio/common';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { AgentQueries } from '../catalogue/agent-queries';
import { recordedCaller, type Caller } from '../rules/api-key';
import type { TargetRefusal } from './choose-target';
import type { DeliveryPolicy, MessageInput, MessageState, MessageStatus } from './message';
import type { MessageRuns } from './runs';
import { checkSeal, sealInput, type SealKeys } from './seal';
import { startingStatus } from './status';
import { MESSAGE_WORKFLOW, messageSearchAttributes, messageWorkflowId } from './temporal';

export interface RedriveDeps {
  runs: MessageRuns;
  /** The redrive is a send by its caller: the target capability's ACL must admit it, as at intake. */
  queries: Pick<AgentQueries, 'checkReach'>;
  taskQueue: string;
  /** The delivery policy of today's config: a redriven message is delivered as a new one would be. */
  policy: DeliveryPolicy;
  /** The new run's input is sealed anew; the old one's seal must hold (a run the gateway did not start is no dead letter). */
  sealKeys: SealKeys;
  now?: () => Date;
}

export type RedriveResult =
  | { kind: 'redriven'; status: MessageStatus }
  | { kind: 'not_redrivable'; state: MessageState }
  | { kind: 'unknown_message' }
  /** The caller may not send to the message's target (as a send would be refused: ACL, agent or capability gone). */
  | { kind: 'refused'; refusal: TargetRefusal };

/** Dead letters: the states a message can be redriven from. */
export const REDRIVABLE_STATES: ReadonlySet<MessageState> = new Set(['failed', 'expired']);

/**
 * Starts a new attempt chain under the same message id for a failed or expired message, sent by `caller`: its
 * target capability's ACL is checked as for a send, and the new run's attempts check it again for `caller`. The new
 * run carries the earlier attempts and a record of the redrive; the deadline is `deadline`, else the original one if still ahead.
 */
export async function redriveMessage(
  deps: RedriveDeps,
  caller: Caller,
  messageId: string,
  deadline?: string,
): Promise<RedriveResult> {
  const { runs } = deps;
  const tenant = caller.tenant;
  const workflowId = messageWorkflowId(tenant, messageId);
  const description = await runs.describe(tenant, messageId);
  if (!description) return { kind: 'unknown_message' };
  const previous = await runs.statusOf(tenant, messageId, description);
  if (description.status.name === 'RUNNING' || !REDRIVABLE_STATES.has(previous.state))
    return { kind: 'not_redrivable', state: previous.state };
  const started = (await runs.handle(tenant, messageId, description.runId).fetchHistory()).events?.[0]
    ?.workflowExecutionStartedEventAttributes;
  const [original] = arrayFromPayloads(
    runs.client.options.loadedDataConverter.payloadConverter,
    started?.input?.payloads,
  ) as [MessageInput];
  const sealed = checkSeal(original, deps.sealKeys, { workflowId, startedAt: description.startTime.toISOString() });
  if (!sealed.ok) return { kind: 'not_redrivable', state: previous.state };
  const reach = await deps.queries.checkReach(tenant, original.target.agent_id, original.target.capability, caller);
  if (reach.kind !== 'ok') return { kind: 'refused', refusal: reach };
  const now = deps.now?.() ?? new Date();
  const keptDeadline =
    original.deadline && Date.parse(original.deadline) > now.getTime() ? original.deadline : undefined;
  const { deadline: _dropped, seal: _resealed, ...rest } = original;
  const unsealed: MessageInput = {
    ...rest,
    ...((deadline ?? keptDeadline) ? { deadline: new Date((deadline ?? keptDeadline)!).toISOString() } : {}),
    policy: deps.policy,
    caller: recordedCaller({ ...caller, tenant }),
    redrive: {
      previous_attempts: previous.attempts,
      history: [
        ...(original.redrive?.history ?? []),
        {
          at: now.toISOString(),
          previous_state: previous.state,
          ...(previous.reason ? { previous_reason: previous.reason } : {}),
        },
      ],
    },
  };
  const input = sealInput(unsealed, deps.sealKeys.keys[0]!, now);
  try {
    await runs.client.workflow.start(MESSAGE_WORKFLOW, {
      workflowId,
      taskQueue: deps.taskQueue,
      args: [input],
      memo: description.memo ?? {},
      typedSearchAttributes: messageSearchAttributes(tenant, input.target.agent_id, input.trace_id),
      // The one place a message id gets a second run: an explicit redrive of a dead letter.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return { kind: 'not_redrivable', state: 'accepted' };
    throw error;
  }
  // What the new run reports as it starts: accepted, with the earlier attempts and the redrives so far.
  return { kind: 'redriven', status: startingStatus(input, now.toISOString()) };
}
