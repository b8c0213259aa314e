/**
 * Temporal-native callers: the public `sendMessage` workflow, started from any Temporal client or as a child of a
 * caller's own workflow. Names and types only (safe to import from workflows and from callers' workflow bundles).
 */
import type { Caller } from '../rules/api-key';
import type { MessageStatus } from '../messages/message';
import type { SendRequest } from '../messages/message-input';
import type { IntakeCode } from '../messages/intake-refusals';

/** The public entry workflow's type, on the gateway's task queue (`TEMPORAL_TASK_QUEUE`). */
export const SEND_MESSAGE_WORKFLOW = 'sendMessage';

/** `TEMPORAL_TASK_QUEUE`'s default. */
export { DEFAULT_TASK_QUEUE } from '../platform/temporal-names';

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
  /**
   * Nexus only, instead of `key_id` and `key_proof`: an OIDC access token of the tenant (AUTH_OIDC_ISSUER) with the
   * `send` scope. The gateway checks it before anything else and never stores it: the run it starts carries the
   * token's subject under the gateway's seal (docs/security.md). Refused on direct starts.
   */
  access_token?: string;
  /** Set by the gateway's Nexus handler only: the token's caller, under `seal` (made for this run's workflow id). */
  caller?: Caller;
  seal?: { at: string; mac: string };
}

/** The signature of `sendMessage`, for typed starts and children by name. */
export type SendMessageWorkflow = (input: SendMessageInput) => Promise<MessageStatus>;

/**
 * Types of the non-retryable failures `sendMessage` (and a Nexus operation) ends with when it delivers nothing: the
 * same codes the api answers for the same refusal (messages/intake-refusals.ts), on every way in.
 */
export const SEND_FAILURES = {
  /** The input does not pass the api's schema (the message names the fields). */
  invalidInput: 'invalid_request',
  /** The workflow id is not `msg:<tenant>:<message_id>`. */
  workflowIdMismatch: 'workflow_id_mismatch',
  /** An intent-only input, and no api replica took its routing task in time (the router lives in the api). */
  routingUnavailable: 'routing_unavailable',
  /** As the api's 404, 422 and 403: the agent or capability is not the tenant's, or its ACL does not admit the caller. */
  unknownAgent: 'agent_not_found',
  unknownCapability: 'unknown_capability',
  forbidden: 'capability_forbidden',
  /** The key named lacks the `send` scope. */
  insufficientScope: 'insufficient_scope',
  /** `key_id` is not an API key of the tenant (or was revoked); TEMPORAL_CALLERS_REQUIRE_KEY and none given. */
  unknownKey: 'unknown_key',
  keyRequired: 'key_required',
  /** `key_proof` is not the proof of `key_id` for this tenant, message id and body. */
  invalidKeyProof: 'invalid_key_proof',
  /** Nexus: `access_token` is not a valid token of a configured issuer, maps to no caller, or was sent elsewhere. */
  invalidAccessToken: 'invalid_access_token',
  /** As the api's 422s: the deadline is past or too far, or `reply_to` without CALLER_WEBHOOK_SECRET. */
  deadlinePassed: 'deadline_passed',
  deadlineTooFar: 'deadline_too_far',
  replyToUnavailable: 'reply_to_unavailable',
  /** The input names a tenant other than the one this way in is bound to (a tenant's Nexus endpoint). */
  tenantMismatch: 'tenant_mismatch',
  /** The message id is taken by a message with another body (the api's 409). */
  conflict: 'idempotency_conflict',
  /** As the api's 413 and 422: payload, intent and params too large to store; `reply_to` where the gateway may not connect. */
  payloadTooLarge: 'payload_too_large',
  endpointNotAllowed: 'endpoint_not_allowed',
} as const satisfies Record<string, IntakeCode>;

/** The names callers need (platform/temporal-names.ts owns them): the routing queue, a message id from a workflow id. */
export { messageIdOf, routingTaskQueue } from '../platform/temporal-names';
