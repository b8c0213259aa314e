/**
 * Message intake: a caller's message becomes a workflow run under its id (once: a repeat answers with the first),
 * sent to the named capability or to where the router chooses. Returns tagged results; routes map them to HTTP.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { AgentQueries } from '../catalogue/agent-queries';
import type { Config } from '../platform/config';
import { context, contextForTrace } from '../platform/telemetry';
import type { Router } from '../router/router';
import type { Caller } from '../rules/api-key';
import { newMessageId } from '../rules/ids';
import { chooseTarget } from './choose-target';
import type { MessageStatus } from './message';
import { bodyHashOf, buildMessageInput, messageMemoOf, messageSummaryOf, type SendRequest } from './message-input';
import { refusalBeforeTarget } from './intake-checks';
import type { IntakeRefusal } from './intake-refusals';
import type { EndpointPolicy, Lookup } from '../rules/endpoint-policy';
import type { MessageMemo, MessageRuns } from './runs';
import { sealInput, type SealKeys } from './seal';
import { startingStatus } from './status';
import { MESSAGE_WORKFLOW, messageSearchAttributes, messageWorkflowId } from './temporal';

export type { SendRequest } from './message-input';
export { deliveryPolicy } from './message-input';

export type SendResult =
  /** `eagerly_started`: the first workflow task came back with the start (API_RUNS_WORKER). */
  | { kind: 'accepted'; status: MessageStatus; eagerly_started: boolean }
  | { kind: 'duplicate'; status: MessageStatus }
  | { kind: 'conflict'; message_id: string }
  | { kind: 'unknown_agent' }
  | { kind: 'unknown_capability' }
  /** The capability's ACL does not admit the caller; `reason` is for admins only. */
  | { kind: 'forbidden'; reason: string }
  /** A check before the target refused it (intake-checks.ts): the deadline, `reply_to`, the stored size. */
  | { kind: 'refused'; refusal: IntakeRefusal }
  /** The router refused: the message is recorded, `rejected`, under its id. */
  | { kind: 'rejected'; status: MessageStatus; explanation: unknown };

export interface IntakeDeps {
  runs: MessageRuns;
  queries: Pick<AgentQueries, 'checkReach'>;
  config: Config;
  /** Chooses a target for messages sent with an intent and no capability. */
  router?: Pick<Router, 'route'>;
  /** Seals every input built here (messages/seal.ts). */
  sealKeys: SealKeys;
  now?: () => Date;
}

export class MessageIntake {
  constructor(private readonly deps: IntakeDeps) {}

  /**
   * Sends on behalf of `caller`, in its tenant; the target capability's ACL must admit it (now and at every attempt).
   * `endpoints`: where `reply_to` may point (and, in tests, how names resolve).
   */
  async send(
    caller: Caller,
    body: SendRequest,
    traceId: string,
    endpoints: { policy: EndpointPolicy; lookup?: Lookup },
  ): Promise<SendResult> {
    const tenant = caller.tenant;
    const messageId = body.message_id ?? newMessageId();
    const bodyHash = bodyHashOf(body);
    // No lookup before the start: a repeated message id is told by the start itself (already started), and a
    // refusal below is checked against an existing message of that id before it is answered.
    const checks = {
      config: this.deps.config,
      endpointPolicy: endpoints.policy,
      ...(endpoints.lookup ? { lookup: endpoints.lookup } : {}),
      now: this.deps.now?.() ?? new Date(),
    };
    const refusal = await refusalBeforeTarget(body, checks);
    const chosen = refusal ? ({ kind: 'refused', refusal } as const) : await chooseTarget(this.deps, caller, body);
    if ('kind' in chosen)
      return body.message_id ? ((await this.repeatOf(caller, tenant, messageId, bodyHash)) ?? chosen) : chosen;
    const { target, routing, rejection } = chosen;

    const now = this.deps.now?.() ?? new Date();
    const acceptedAt = now.toISOString();
    const input = sealInput(
      buildMessageInput({ tenant, messageId, traceId, body, chosen, caller, acceptedAt, config: this.deps.config }),
      this.deps.sealKeys.keys[0]!,
      now,
    );
    const memo = messageMemoOf(input, bodyHash, body.session_id);
    let eagerlyStarted = false;
    try {
      // Inside the message's trace, so OpenTelemetry spans (when configured) carry its trace id.
      const handle = await context.with(contextForTrace(traceId), () =>
        this.deps.runs.client.workflow.start(MESSAGE_WORKFLOW, {
          workflowId: messageWorkflowId(tenant, messageId),
          taskQueue: this.deps.config.TEMPORAL_TASK_QUEUE,
          args: [input],
          memo: { ...memo },
          typedSearchAttributes: messageSearchAttributes(tenant, target.agent_id, traceId),
          // What Temporal UI shows for the run, without decoding payloads.
          ...messageSummaryOf(input),
          // The message id is the idempotency key for ever: never a second run under the same id.
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          workflowIdConflictPolicy: 'FAIL',
          // With the message worker in this process, its first workflow task comes back with the start.
          requestEagerStart: this.deps.config.API_RUNS_WORKER,
        }),
      );
      eagerlyStarted = handle.eagerlyStarted;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      // A repeat (or a race with an identical or conflicting request): answer with the existing message.
      const existing = await this.repeatOf(caller, tenant, messageId, bodyHash);
      if (existing) return existing;
      throw error;
    }
    const status = startingStatus(input, acceptedAt);
    return rejection
      ? {
          kind: 'rejected',
          status: { ...status, state: 'rejected', reason: rejection },
          explanation: routing?.explanation,
        }
      : { kind: 'accepted', status, eagerly_started: eagerlyStarted };
  }

  /** An existing message under this id: its status (only to a caller the capability admits), or a conflict. */
  private async repeatOf(
    caller: Caller,
    tenant: string,
    messageId: string,
    bodyHash: string,
  ): Promise<SendResult | undefined> {
    const existing = await this.existing(tenant, messageId, bodyHash);
    return existing && ((await this.refusal(caller, existing)) ?? existing);
  }

  /** `forbidden` when the target capability's ACL does not admit the caller. */
  private async refusal(caller: Caller, existing: SendResult): Promise<SendResult | undefined> {
    if (existing.kind !== 'duplicate' || !existing.status.target.capability) return undefined;
    const { agent_id, capability } = existing.status.target;
    const check = await this.deps.queries.checkReach(caller.tenant, agent_id, capability, caller);
    return check.kind === 'forbidden' ? check : undefined;
  }

  /** The answer to a repeated message_id: the existing message, or a conflict when the body differs. */
  private async existing(tenant: string, messageId: string, bodyHash: string): Promise<SendResult | undefined> {
    const description = await this.deps.runs.describe(tenant, messageId);
    if (!description) return undefined;
    const memo = description.memo as Partial<MessageMemo> | undefined;
    if (memo?.body_hash !== bodyHash) return { kind: 'conflict', message_id: messageId };
    return { kind: 'duplicate', status: await this.deps.runs.statusOf(tenant, messageId, description) };
  }
}
