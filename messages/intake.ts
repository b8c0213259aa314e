/**
 * Message intake: a caller's message becomes a workflow run under its id (once: a repeat answers with the first),
 * sent to the named capability or to where the router chooses. Returns tagged results; routes map them to HTTP.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { AgentQueries } from '../catalogue/agent-queries';
import type { Config } from '../platform/config';
import { context, contextForTrace } from '../platform/telemetry';
import type { RouteDecision, Router } from '../router/router';
import type { Caller } from '../rules/api-key';
import { canonicalJson, newMessageId, sha256Hex } from '../rules/ids';
import type { DeliveryPolicy, MessageInput, MessageRouting, MessageStatus, MessageTarget, Reason } from './message';
import type { MessageMemo, MessageRuns } from './runs';
import { startingStatus } from './status';
import { MESSAGE_WORKFLOW, messageSearchAttributes, messageWorkflowId } from './temporal';

/** What a caller sends (validated by the api's schema). */
export interface SendRequest {
  message_id?: string;
  target?: { agent_id: string; capability?: string };
  intent?: string;
  session_id?: string;
  params?: Record<string, unknown>;
  payload?: unknown;
  deadline?: string;
  parent_message_id?: string;
  reply_to?: { url: string };
}

export type SendResult =
  /** `eagerly_started`: the first workflow task came back with the start (API_RUNS_WORKER). */
  | { kind: 'accepted'; status: MessageStatus; eagerly_started: boolean }
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

export interface IntakeDeps {
  runs: MessageRuns;
  queries: Pick<AgentQueries, 'checkReach'>;
  config: Config;
  /** Chooses a target for messages sent with an intent and no capability. */
  router?: Pick<Router, 'route'>;
  now?: () => Date;
}

/** How messages accepted now are delivered: from config, and kept in each run's input (so part of its history). */
export function deliveryPolicy(c: Config): DeliveryPolicy {
  return {
    maxAttempts: c.DELIVERY_MAX_ATTEMPTS,
    initialBackoffMs: c.DELIVERY_INITIAL_BACKOFF_MS,
    maxBackoffMs: c.DELIVERY_MAX_BACKOFF_MS,
    attemptTimeoutMs: c.DELIVERY_TIMEOUT_MS,
    defaultAckTimeoutMs: c.DEFAULT_ACK_TIMEOUT_MS,
  };
}

export class MessageIntake {
  constructor(private readonly deps: IntakeDeps) {}

  /** Sends on behalf of `caller`, in its tenant; the target capability's ACL must admit it (now and at every attempt). */
  async send(caller: Caller, body: SendRequest, traceId: string): Promise<SendResult> {
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
    // No lookup before the start: a repeated message id is told by the start itself (already started), and a
    // refusal below is checked against an existing message of that id before it is answered.
    const refused = this.refusedBeforeRouting(body) ?? (await this.chooseTarget(caller, body));
    if ('kind' in refused) return body.message_id ? ((await this.repeatOf(caller, tenant, messageId, bodyHash)) ?? refused) : refused;
    const chosen = refused;
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
      policy: deliveryPolicy(this.deps.config),
    };
    const memo: MessageMemo = { body_hash: bodyHash, trace_id: traceId, target, accepted_at: acceptedAt };
    let eagerlyStarted = false;
    try {
      // Inside the message's trace, so OpenTelemetry spans (when configured) carry its trace id.
      const handle = await context.with(contextForTrace(traceId), () => this.deps.runs.client.workflow.start(MESSAGE_WORKFLOW, {
        workflowId: messageWorkflowId(tenant, messageId),
        taskQueue: this.deps.config.TEMPORAL_TASK_QUEUE,
        args: [input],
        memo: { ...memo },
        typedSearchAttributes: messageSearchAttributes(tenant, target.agent_id, traceId),
        // What Temporal UI shows for the run, without decoding payloads.
        staticSummary: rejection ? `rejected by the router: ${rejection.code}` : `${target.capability} → ${target.agent_id}${routing ? ` (routed: ${routing.decided_by})` : ''}`,
        staticDetails: `message ${messageId} · trace ${traceId}${body.parent_message_id ? ` · after ${body.parent_message_id}` : ''}${body.intent ? ` · “${body.intent.slice(0, 200)}”` : ''}`,
        // The message id is the idempotency key for ever: never a second run under the same id.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        // With the message worker in this process, its first workflow task comes back with the start.
        requestEagerStart: this.deps.config.API_RUNS_WORKER,
      }));
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
      ? { kind: 'rejected', status: { ...status, state: 'rejected', reason: rejection }, explanation: routing?.explanation }
      : { kind: 'accepted', status, eagerly_started: eagerlyStarted };
  }

  /** Refusals that need no catalogue: reply_to without a signing secret, a deadline past or too far. */
  private refusedBeforeRouting(body: SendRequest): SendResult | undefined {
    if (body.reply_to && !this.deps.config.CALLER_WEBHOOK_SECRET) return { kind: 'reply_to_unavailable' };
    if (body.deadline) {
      const remaining = Date.parse(body.deadline) - (this.deps.now?.() ?? new Date()).getTime();
      if (remaining <= 0) return { kind: 'deadline_passed' };
      if (remaining > MAX_DEADLINE_MS) return { kind: 'deadline_too_far' };
    }
    return undefined;
  }

  /** An existing message under this id: its status (only to a caller the capability admits), or a conflict. */
  private async repeatOf(caller: Caller, tenant: string, messageId: string, bodyHash: string): Promise<SendResult | undefined> {
    const existing = await this.existing(tenant, messageId, bodyHash);
    return existing && ((await this.refusal(caller, existing)) ?? existing);
  }

  /** The named target, or the router's choice; a refusal of the router becomes a rejection to record. */
  private async chooseTarget(
    caller: Caller,
    body: SendRequest,
  ): Promise<{ target: MessageTarget; params?: Record<string, unknown>; routing?: MessageRouting; rejection?: Reason } | SendResult> {
    const tenant = caller.tenant;
    if (body.target?.capability) {
      // An agent with no instance available right now is fine: the workflow retries until one comes back.
      const check = await this.deps.queries.checkReach(tenant, body.target.agent_id, body.target.capability, caller);
      if (check.kind !== 'ok') return check;
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

function rejectionOf(decision: RouteDecision): Reason | undefined {
  switch (decision.kind) {
    case 'routed':
      return undefined;
    case 'input_required':
      return { code: 'input_required', message: decision.message ?? `${decision.target.capability} needs ${decision.missing.join(', ')}, which the intent does not give`, missing: decision.missing };
    case 'refused':
      if (decision.code === 'ambiguous') return { code: 'ambiguous', message: decision.message, ...(decision.choices ? { choices: decision.choices } : {}) };
      return { code: decision.code === 'no_eligible_capability' ? 'no_eligible_capability' : 'no_route', message: decision.message };
  }
}
