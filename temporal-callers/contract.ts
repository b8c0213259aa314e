/**
 * Temporal-native callers: the public `sendMessage` workflow, started from any Temporal client or as a child of a
 * caller's own workflow. Names and types only (safe to import from workflows and from callers' workflow bundles).
 */
import type { MessageStatus } from '../messages/message';
import type { SendRequest } from '../messages/message-input';

/** The public entry workflow's type, on the gateway's task queue (`TEMPORAL_TASK_QUEUE`). */
export const SEND_MESSAGE_WORKFLOW = 'sendMessage';

/** `TEMPORAL_TASK_QUEUE`'s default. */
export const DEFAULT_TASK_QUEUE = 'agent-reach';

/**
 * The input of `sendMessage`: the body of `POST /v1/messages` plus the tenant. The workflow id must be
 * `msg:<tenant>:<message_id>` (see messageWorkflowId); `message_id` may be left out, then it is read from the id.
 */
export interface SendMessageInput extends SendRequest {
  tenant: string;
  /**
   * An API key id (12 hex digits, not the key's secret) of the tenant with the `send` scope: the message is sent
   * as that key, its scopes and ACL grants enforced as on the api. Required when TEMPORAL_CALLERS_REQUIRE_KEY is set.
   */
  key_id?: string;
  /**
   * Proof that the sender holds that key (its id is no secret) and sends this body under this message id:
   * `sentAsKey(input, apiKey)` from `temporal-callers/client.ts` (rules/key-proof.ts). Required, with `key_id`,
   * when TEMPORAL_CALLERS_REQUIRE_KEY is set.
   */
  key_proof?: string;
}

/** The signature of `sendMessage`, for typed starts and children by name. */
export type SendMessageWorkflow = (input: SendMessageInput) => Promise<MessageStatus>;

/** Types of the non-retryable failures `sendMessage` ends with when it delivers nothing. */
export const SEND_FAILURES = {
  /** The input does not pass the api's schema (the message names the fields). */
  invalidInput: 'invalid_input',
  /** The workflow id is not `msg:<tenant>:<message_id>`. */
  workflowIdMismatch: 'workflow_id_mismatch',
  /** An intent-only input, and no api replica took its routing task in time (the router lives in the api). */
  routingUnavailable: 'routing_unavailable',
  /** As the api's 404s and 403: the agent or capability is not the tenant's, or its ACL does not admit the caller. */
  unknownAgent: 'unknown_agent',
  unknownCapability: 'unknown_capability',
  forbidden: 'forbidden',
  /** `key_id` is not an API key of the tenant (or was revoked); TEMPORAL_CALLERS_REQUIRE_KEY and none given. */
  unknownKey: 'unknown_key',
  keyRequired: 'key_required',
  /** `key_proof` is not the proof of `key_id` for this tenant, message id and body. */
  invalidKeyProof: 'invalid_key_proof',
  /** As the api's 422s: the deadline is past or too far, or `reply_to` without CALLER_WEBHOOK_SECRET. */
  deadlinePassed: 'deadline_passed',
  deadlineTooFar: 'deadline_too_far',
  replyToUnavailable: 'reply_to_unavailable',
  /** The input names a tenant other than the one this way in is bound to (a tenant's Nexus endpoint). */
  tenantMismatch: 'tenant_mismatch',
  /** The message id is taken by a message with another body (the api's 409 `idempotency_conflict`). */
  conflict: 'conflict',
  /** As the api's 413 and 422: payload, intent and params too large to store; `reply_to` where the gateway may not connect. */
  payloadTooLarge: 'payload_too_large',
  endpointNotAllowed: 'endpoint_not_allowed',
} as const;

/**
 * The task queue on which api replicas route intent-only direct starts (an activity worker beside their socket
 * worker), for the gateway's task queue.
 */
export function routingTaskQueue(taskQueue: string): string {
  return `${taskQueue}-routing`;
}

/** The message id a workflow id names for a tenant, or undefined when it is not `msg:<tenant>:<…>`. */
export function messageIdOf(workflowId: string, tenant: string): string | undefined {
  const prefix = `msg:${tenant}:`;
  return workflowId.startsWith(prefix) && workflowId.length > prefix.length ? workflowId.slice(prefix.length) : undefined;
}
