/**
 * How a caller's message becomes a message run's input: the pure part of intake, shared by the api
 * (`MessageIntake`) and by the worker's `prepareMessage` activity (Temporal-native callers, `sendMessage`), so a
 * message started either way has the same input, memo, search attributes and summary in Temporal UI.
 */
import type { Config } from '../platform/config';
import { recordedCaller, type Caller } from '../rules/api-key';
import { canonicalJson, sha256Hex } from '../rules/ids';
import type { DeliveryPolicy, MessageInput, MessageRouting, MessageTarget, Reason } from './message';
import type { MessageMemo } from './runs';

/** What a caller sends (validated by the api's schema, `sendMessageBody`). */
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

/** Where the message goes: named by the caller, or chosen (or refused) by the router. */
export interface ChosenTarget {
  target: MessageTarget;
  params?: Record<string, unknown>;
  routing?: MessageRouting;
  rejection?: Reason;
}

/** A refusal that needs no catalogue. */
export type EarlyRefusal =
  { kind: 'deadline_passed' } | { kind: 'deadline_too_far' } | { kind: 'reply_to_unavailable' };

/** Furthest a deadline may be set ahead. */
export const MAX_DEADLINE_MS = 30 * 24 * 3600 * 1000;

export type IntakeConfig = Pick<
  Config,
  | 'PUBLIC_URL'
  | 'CALLER_WEBHOOK_SECRET'
  | 'CALLER_WEBHOOK_RETRY_INITIAL_MS'
  | 'DELIVERY_MAX_ATTEMPTS'
  | 'DELIVERY_INITIAL_BACKOFF_MS'
  | 'DELIVERY_MAX_BACKOFF_MS'
  | 'DELIVERY_TIMEOUT_MS'
  | 'DEFAULT_ACK_TIMEOUT_MS'
>;

/** How messages accepted now are delivered: from config, and kept in each run's input (so part of its history). */
export function deliveryPolicy(c: IntakeConfig): DeliveryPolicy {
  return {
    maxAttempts: c.DELIVERY_MAX_ATTEMPTS,
    initialBackoffMs: c.DELIVERY_INITIAL_BACKOFF_MS,
    maxBackoffMs: c.DELIVERY_MAX_BACKOFF_MS,
    attemptTimeoutMs: c.DELIVERY_TIMEOUT_MS,
    defaultAckTimeoutMs: c.DEFAULT_ACK_TIMEOUT_MS,
  };
}

/** The hash of what the caller asked for, kept in the memo: a repeat of the message id with another body conflicts. */
export function bodyHashOf(body: SendRequest): string {
  return sha256Hex(
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
}

/** Refusals that need no catalogue: reply_to without a signing secret, a deadline past or too far. */
export function refusalBeforeRouting(
  body: SendRequest,
  config: Pick<IntakeConfig, 'CALLER_WEBHOOK_SECRET'>,
  now: Date,
): EarlyRefusal | undefined {
  if (body.reply_to && !config.CALLER_WEBHOOK_SECRET) return { kind: 'reply_to_unavailable' };
  if (body.deadline) {
    const remaining = Date.parse(body.deadline) - now.getTime();
    if (remaining <= 0) return { kind: 'deadline_passed' };
    if (remaining > MAX_DEADLINE_MS) return { kind: 'deadline_too_far' };
  }
  return undefined;
}

export interface MessageInputParts {
  tenant: string;
  messageId: string;
  traceId: string;
  body: SendRequest;
  chosen: ChosenTarget;
  caller: Caller;
  acceptedAt: string;
  config: IntakeConfig;
}

/** The run's input: what the workflow needs to deliver the message, and nothing it would have to look up. */
export function buildMessageInput(parts: MessageInputParts): MessageInput {
  const { tenant, body, caller, config } = parts;
  const { target, params, routing, rejection } = parts.chosen;
  return {
    tenant,
    message_id: parts.messageId,
    trace_id: parts.traceId,
    ...(body.parent_message_id ? { parent_message_id: body.parent_message_id } : {}),
    target,
    ...(body.intent === undefined ? {} : { intent: body.intent }),
    ...(body.payload === undefined ? {} : { payload: body.payload }),
    ...(params ? { params } : {}),
    ...(routing ? { routing } : {}),
    ...(rejection ? { rejection } : {}),
    ...(body.deadline ? { deadline: new Date(body.deadline).toISOString() } : {}),
    ...(body.reply_to
      ? { reply_to: { url: body.reply_to.url, retry_initial_ms: config.CALLER_WEBHOOK_RETRY_INITIAL_MS } }
      : {}),
    callback_url: `${config.PUBLIC_URL}/v1/callback`,
    caller: recordedCaller({ ...caller, tenant }),
    accepted_at: parts.acceptedAt,
    policy: deliveryPolicy(config),
  };
}

/**
 * What the run carries in its memo (readable without a worker): the body hash tells a repeat from a conflict; the
 * session is the caller's (an A2A task's context id, docs/a2a.md).
 */
export function messageMemoOf(input: MessageInput, bodyHash: string, sessionId?: string): MessageMemo {
  return {
    body_hash: bodyHash,
    trace_id: input.trace_id,
    target: input.target,
    accepted_at: input.accepted_at,
    ...(sessionId ? { session_id: sessionId } : {}),
  };
}

/** What Temporal UI shows for the run, without decoding payloads. */
export function messageSummaryOf(input: MessageInput): { staticSummary: string; staticDetails: string } {
  const { target, routing, rejection } = input;
  return {
    staticSummary: rejection
      ? `rejected by the router: ${rejection.code}`
      : `${target.capability} → ${target.agent_id}${routing ? ` (routed: ${routing.decided_by})` : ''}`,
    staticDetails: `message ${input.message_id} · trace ${input.trace_id}${input.parent_message_id ? ` · after ${input.parent_message_id}` : ''}${input.intent ? ` · “${input.intent.slice(0, 200)}”` : ''}`,
  };
}
