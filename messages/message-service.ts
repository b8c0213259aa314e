/**
 * Message intake, status and receipts on top of Temporal. Returns tagged results; routes map them to HTTP.
 */
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowExecutionDescription,
} from '@temporalio/client';
import type { AgentQueries } from '../catalogue/agent-queries';
import { context, contextForTrace } from '../platform/telemetry';
import type { AgentDoc } from '../store/agents';
import type { Caller } from '../rules/api-key';
import type { Config } from '../platform/config';
import { canonicalJson, newMessageId, sha256Hex } from '../rules/ids';
import type { DeliveryPolicy, MessageInput, MessageRouting, MessageState, MessageStatus, MessageTarget, Reason, ReceiptOutcome } from './message';
import { cancelUpdate, MESSAGE_WORKFLOW, messageSearchAttributes, messageWorkflowId, receiptUpdate, statusQuery } from './temporal';
import type { RouteDecision, Router } from '../router/router';
import type { CallbackBody, SendMessageBody } from '../api/schemas';

export type SendResult =
  | { kind: 'accepted'; status: MessageStatus }
  | { kind: 'duplicate'; status: MessageStatus }
  | { kind: 'conflict'; message_id: string }
  | { kind: 'unknown_agent' }
  | { kind: 'unknown_capability' }
  /** The capability's ACL does not admit the caller; `reason` is for admins only. */
  | { kind: 'forbidden'; reason: string }
  | { kind: 'deadline_passed' }
  | { kind: 'deadline_too_far' }
  | { kind: 'reply_to_unavailable' }
  /** The router refused: the message is recorded, `rejected`, under its id. */
  | { kind: 'rejected'; status: MessageStatus; explanation: unknown };

/** Furthest a deadline may be set ahead. */
const MAX_DEADLINE_MS = 30 * 24 * 3600 * 1000;

export type CancelResult =
  | { kind: 'cancelled' }
  | { kind: 'already_ended'; state: MessageState }
  | { kind: 'unknown_message' };

export type ReceiptResult =
  | { kind: 'recorded'; outcome: ReceiptOutcome }
  | { kind: 'unknown_message' }
  | { kind: 'not_your_message' };

/** Thrown when a running message's status cannot be read because no worker answers the query. */
export class StatusUnavailableError extends Error {
  constructor(readonly messageId: string, options?: ErrorOptions) {
    super(`status of ${messageId} is unavailable: no worker answered`, options);
    this.name = 'StatusUnavailableError';
  }
}

export interface MessageMemo {
  body_hash: string;
  trace_id: string;
  target: MessageTarget;
  accepted_at: string;
}

export interface MessageServiceDeps {
  client: Client;
  queries: Pick<AgentQueries, 'findTarget'>;
  config: Config;
  /** Chooses a target for messages sent with an intent and no capability. */
  router?: Pick<Router, 'route'>;
  now?: () => Date;
}

export class MessageService {
  constructor(readonly deps: MessageServiceDeps) {}

  get client() {
    return this.deps.client;
  }

  get taskQueue() {
    return this.deps.config.TEMPORAL_TASK_QUEUE;
  }

  policy(): DeliveryPolicy {
    const c = this.deps.config;
    return {
      maxAttempts: c.DELIVERY_MAX_ATTEMPTS,
      initialBackoffMs: c.DELIVERY_INITIAL_BACKOFF_MS,
      maxBackoffMs: c.DELIVERY_MAX_BACKOFF_MS,
      attemptTimeoutMs: c.DELIVERY_TIMEOUT_MS,
      defaultAckTimeoutMs: c.DEFAULT_ACK_TIMEOUT_MS,
    };
  }

  /** Sends on behalf of `caller`, in its tenant; the target capability's ACL must admit it (now and at every attempt). */
  async send(caller: Caller, body: SendMessageBody, traceId: string): Promise<SendResult> {
    const tenant = caller.tenant;
    const messageId = body.message_id ?? newMessageId();
    const bodyHash = sha256Hex(
      canonicalJson({
        target: body.target,
        intent: body.intent,
        session_id: body.session_id,
        params: body.params,
        payload: body.payload,
        deadline: body.deadline,
        reply_to: body.reply_to,
        parent_message_id: body.parent_message_id,
      }),
    );
    if (body.message_id) {
      const existing = await this.existing(tenant, messageId, bodyHash);
      // A repeat shows the existing message's status: only to a caller the capability admits.
      if (existing) return (await this.refusal(caller, existing)) ?? existing;
    }
    if (body.reply_to && !this.deps.config.CALLER_WEBHOOK_SECRET) return { kind: 'reply_to_unavailable' };
    if (body.deadline) {
      const remaining = Date.parse(body.deadline) - (this.deps.now?.() ?? new Date()).getTime();
      if (remaining <= 0) return { kind: 'deadline_passed' };
      if (remaining > MAX_DEADLINE_MS) return { kind: 'deadline_too_far' };
    }
    const chosen = await this.chooseTarget(caller, body);
    if ('kind' in chosen) return chosen;
    const { target, params, routing, rejection } = chosen;

    const acceptedAt = (this.deps.now?.() ?? new Date()).toISOString();
    const input: MessageInput = {
      tenant,
      message_id: messageId,
      trace_id: traceId,
      ...(body.parent_message_id ? { parent_message_id: body.parent_message_id } : {}),
      target,
      ...(body.intent === undefined ? {} : { intent: body.intent }),
      ...(body.payload === undefined ? {} : { payload: body.payload }),
      ...(params ? { params } : {}),
      ...(routing ? { routing } : {}),
      ...(rejection ? { rejection } : {}),
      ...(body.deadline ? { deadline: new Date(body.deadline).toISOString() } : {}),
      ...(body.reply_to ? { reply_to: { url: body.reply_to.url, retry_initial_ms: this.deps.config.CALLER_WEBHOOK_RETRY_INITIAL_MS } } : {}),
      callback_url: `${this.deps.config.PUBLIC_URL}/v1/callback`,
      caller: { tenant, key_id: caller.key_id, scopes: caller.scopes },
      accepted_at: acceptedAt,
      policy: this.policy(),
    };
    const memo: MessageMemo = { body_hash: bodyHash, trace_id: traceId, target, accepted_at: acceptedAt };
    try {
      // Inside the message's trace, so OpenTelemetry spans (when configured) carry its trace id.
      await context.with(contextForTrace(traceId), () => this.deps.client.workflow.start(MESSAGE_WORKFLOW, {
        workflowId: messageWorkflowId(tenant, messageId),
        taskQueue: this.taskQueue,
        args: [input],
        memo: { ...memo },
        typedSearchAttributes: messageSearchAttributes(tenant, target.agent_id, traceId),
        // What Temporal UI shows for the run, without decoding payloads.
        staticSummary: rejection ? `rejected by the router: ${rejection.code}` : `${target.capability} → ${target.agent_id}${routing ? ` (routed: ${routing.decided_by})` : ''}`,
        staticDetails: `message ${messageId} · trace ${traceId}${body.parent_message_id ? ` · after ${body.parent_message_id}` : ''}${body.intent ? ` · “${body.intent.slice(0, 200)}”` : ''}`,
        // The message id is the idempotency key for ever: never a second run under the same id.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
      }));
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      // Lost a race with an identical (or conflicting) request: answer as for any repeat.
      const existing = await this.existing(tenant, messageId, bodyHash);
      if (existing) return existing;
      throw error;
    }
    const status: MessageStatus = {
        message_id: messageId,
        trace_id: traceId,
        ...(input.parent_message_id ? { parent_message_id: input.parent_message_id } : {}),
        tenant,
        state: rejection ? 'rejected' : 'accepted',
        ...(rejection ? { reason: rejection } : {}),
        target,
        ...(params ? { params } : {}),
        ...(routing ? { routing } : {}),
        attempts: [],
        accepted_at: acceptedAt,
        ...(input.deadline ? { deadline: input.deadline } : {}),
        updated_at: acceptedAt,
    };
    return rejection ? { kind: 'rejected', status, explanation: routing?.explanation } : { kind: 'accepted', status };
  }

  /** The named target, or the router's choice; a refusal of the router becomes a rejection to record. */
  private async chooseTarget(
    caller: Caller,
    body: SendMessageBody,
  ): Promise<{ target: MessageTarget; params?: Record<string, unknown>; routing?: MessageRouting; rejection?: Reason } | SendResult> {
    const tenant = caller.tenant;
    if (body.target?.capability) {
      // An agent with no instance available right now is fine: the workflow retries until one comes back.
      const lookup = await this.deps.queries.findTarget(tenant, body.target.agent_id, body.target.capability, [], caller);
      if (lookup.kind === 'unknown_agent' || lookup.kind === 'unknown_capability') return { kind: lookup.kind };
      if (lookup.kind === 'forbidden') return lookup;
      return { target: { agent_id: body.target.agent_id, capability: body.target.capability }, ...(body.params ? { params: body.params } : {}) };
    }
    if (!this.deps.router) throw new Error('no router configured for messages without a capability');
    const decision = await this.deps.router.route({
      tenant,
      caller,
      ...(body.intent ? { intent: body.intent } : {}),
      ...(body.target ? { target: body.target } : {}),
      ...(body.session_id ? { session_id: body.session_id } : {}),
      ...(body.params ? { params: body.params } : {}),
    });
    if (decision.kind === 'refused' && decision.code === 'unknown_agent') return { kind: 'unknown_agent' };
    const routing: MessageRouting = { decided_by: decision.explanation.decided_by, provider: decision.explanation.provider, explanation: decision.explanation };
    const rejection = rejectionOf(decision);
    if (decision.kind === 'refused') return { target: { agent_id: body.target?.agent_id ?? '', capability: '' }, routing, rejection: rejection! };
    const target = { agent_id: decision.target.agent_id, capability: decision.target.capability };
    return { target, params: decision.params, routing, ...(rejection ? { rejection } : {}) };
  }

  /**
   * Waits up to `ms` for the message to end; returns its final status, or undefined if it is still in flight.
   * Polls the run's description (no worker needed), backing off from 25 ms to 250 ms.
   */
  async waitForEnd(tenant: string, messageId: string, ms: number): Promise<MessageStatus | undefined> {
    const deadline = Date.now() + ms;
    for (let pause = 25; ; pause = Math.min(250, pause * 2)) {
      const description = await this.describe(tenant, messageId);
      if (description && description.status.name !== 'RUNNING') return this.statusOf(tenant, messageId, description);
      if (Date.now() + pause > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  async cancel(tenant: string, messageId: string, reason?: string): Promise<CancelResult> {
    const handle = this.deps.client.workflow.getHandle(messageWorkflowId(tenant, messageId));
    try {
      const outcome = await handle.executeUpdate(cancelUpdate, { args: [reason ? { reason } : {}] });
      return outcome.cancelled ? { kind: 'cancelled' } : { kind: 'already_ended', state: outcome.state };
    } catch (error) {
      const description = await this.describe(tenant, messageId);
      if (!description) return { kind: 'unknown_message' };
      if (description.status.name === 'RUNNING') throw error;
      return { kind: 'already_ended', state: (await this.statusOf(tenant, messageId, description)).state };
    }
  }

  /** `forbidden` when the target capability's ACL does not admit the caller. */
  private async refusal(caller: Caller, existing: SendResult): Promise<SendResult | undefined> {
    if (existing.kind !== 'duplicate' || !existing.status.target.capability) return undefined;
    const { agent_id, capability } = existing.status.target;
    const lookup = await this.deps.queries.findTarget(caller.tenant, agent_id, capability, [], caller);
    return lookup.kind === 'forbidden' ? lookup : undefined;
  }

  /** The answer to a repeated message_id: the existing message, or a conflict when the body differs. */
  private async existing(tenant: string, messageId: string, bodyHash: string): Promise<SendResult | undefined> {
    const description = await this.describe(tenant, messageId);
    if (!description) return undefined;
    const memo = description.memo as Partial<MessageMemo> | undefined;
    if (memo?.body_hash !== bodyHash) return { kind: 'conflict', message_id: messageId };
    return { kind: 'duplicate', status: await this.statusOf(tenant, messageId, description) };
  }

  /** The latest run of the message, or undefined when there is none. */
  async describe(tenant: string, messageId: string): Promise<WorkflowExecutionDescription | undefined> {
    try {
      return await this.deps.client.workflow.getHandle(messageWorkflowId(tenant, messageId)).describe();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }

  async get(tenant: string, messageId: string): Promise<MessageStatus | undefined> {
    const description = await this.describe(tenant, messageId);
    return description && this.statusOf(tenant, messageId, description);
  }

  /** The status of a run: queried while it runs, its result once completed. */
  async statusOf(
    tenant: string,
    messageId: string,
    description: WorkflowExecutionDescription,
  ): Promise<MessageStatus> {
    const handle = this.deps.client.workflow.getHandle(messageWorkflowId(tenant, messageId), description.runId);
    switch (description.status.name) {
      case 'RUNNING':
        try {
          return await handle.query(statusQuery);
        } catch (error) {
          throw new StatusUnavailableError(messageId, { cause: error });
        }
      case 'COMPLETED':
        return (await handle.result()) as MessageStatus;
      default:
        return this.abnormalEnd(tenant, messageId, description);
    }
  }

  /** A run that ended without returning a status: terminated, cancelled or timed out by an operator or Temporal. */
  private abnormalEnd(tenant: string, messageId: string, description: WorkflowExecutionDescription): MessageStatus {
    const memo = description.memo as Partial<MessageMemo> | undefined;
    const closed = (description.closeTime ?? new Date()).toISOString();
    const state = description.status.name === 'CANCELLED' ? 'cancelled' : description.status.name === 'TIMED_OUT' ? 'expired' : 'failed';
    return {
      message_id: messageId,
      trace_id: memo?.trace_id ?? '',
      tenant,
      state,
      reason: { code: 'terminated', message: `the workflow run ended as ${description.status.name}` },
      target: memo?.target ?? { agent_id: '', capability: '' },
      attempts: [],
      accepted_at: memo?.accepted_at ?? description.startTime.toISOString(),
      updated_at: closed,
      completed_at: closed,
    };
  }

  async receipt(agent: AgentDoc, body: CallbackBody): Promise<ReceiptResult> {
    const handle = this.deps.client.workflow.getHandle(messageWorkflowId(agent.tenant, body.message_id));
    try {
      const outcome = await handle.executeUpdate(receiptUpdate, {
        args: [
          {
            agent_id: agent._id,
            status: body.status,
            ...(body.result === undefined ? {} : { result: body.result }),
            ...(body.error ? { error: body.error } : {}),
          },
        ],
      });
      return { kind: 'recorded', outcome };
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) return { kind: 'not_your_message' };
      return this.receiptForClosed(agent, body.message_id, error);
    }
  }

  /** The update could not reach a running workflow: the message is unknown, or over and the receipt changes nothing. */
  private async receiptForClosed(agent: AgentDoc, messageId: string, cause: unknown): Promise<ReceiptResult> {
    const description = await this.describe(agent.tenant, messageId);
    if (!description) return { kind: 'unknown_message' };
    if (description.status.name === 'RUNNING') throw cause;
    const status = await this.statusOf(agent.tenant, messageId, description);
    if (status.agent?.agent_id !== agent._id) return { kind: 'not_your_message' };
    return { kind: 'recorded', outcome: { applied: false, state: status.state } };
  }
}

function rejectionOf(decision: RouteDecision): Reason | undefined {
  switch (decision.kind) {
    case 'routed':
      return undefined;
    case 'input_required':
      return { code: 'input_required', message: `${decision.target.capability} needs ${decision.missing.join(', ')}, which the intent does not give`, missing: decision.missing };
    case 'refused':
      return { code: decision.code === 'no_eligible_capability' ? 'no_eligible_capability' : 'no_route', message: decision.message };
  }
}
