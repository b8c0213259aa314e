/**
 * The refusals of message intake, one code each, whichever way a message came in: the HTTP api, the MCP and A2A faces
 * (as `ApiError`s, with the HTTP status below), a Temporal client or child start of `sendMessage`, a Nexus operation
 * and a chain's step (as non-retryable failures whose type is the code). What each way in checks, and in what order,
 * is in docs/security.md ("Ways in").
 *
 * Pure (no I/O): safe to import from workflows.
 */

/** Every intake refusal: its code, its HTTP status on the api, and what it means. */
export const INTAKE_REFUSALS = {
  invalid_request: { status: 400, meaning: 'the message does not pass the schema (details name each field)' },
  workflow_id_mismatch: { status: 400, meaning: 'a direct start whose workflow id is not msg:<tenant>:<message_id>' },
  tenant_mismatch: { status: 403, meaning: 'the input names a tenant other than the one this way in sends for' },
  key_required: { status: 401, meaning: 'this deployment requires a key_id and its key_proof on Temporal ways in' },
  unknown_key: { status: 401, meaning: 'no such API key in this tenant, or it was revoked' },
  invalid_key_proof: { status: 401, meaning: 'key_proof is not the proof of this key for this body and message id' },
  invalid_access_token: { status: 401, meaning: 'access_token (Nexus) is not a valid token of a configured issuer, or maps to no caller (the message says which check failed)' },
  insufficient_scope: { status: 403, meaning: 'the key lacks the send scope' },
  payload_too_large: { status: 413, meaning: 'payload, intent and params take more than MAX_PAYLOAD_BYTES' },
  endpoint_not_allowed: { status: 422, meaning: 'reply_to points where the gateway may not connect' },
  reply_to_unavailable: { status: 422, meaning: 'reply_to needs CALLER_WEBHOOK_SECRET, which this deployment has not set' },
  deadline_passed: { status: 422, meaning: 'the deadline is already past' },
  deadline_too_far: { status: 422, meaning: 'the deadline is more than 30 days ahead' },
  agent_not_found: { status: 404, meaning: 'the target agent is not registered in this tenant' },
  unknown_capability: { status: 422, meaning: 'the target agent has no such capability' },
  capability_forbidden: { status: 403, meaning: "the capability's ACL does not admit this caller" },
  idempotency_conflict: { status: 409, meaning: 'the message id was already sent with a different body' },
  routing_unavailable: { status: 503, meaning: 'an intent-only direct start, and no api replica routed it in time' },
} as const;

export type IntakeCode = keyof typeof INTAKE_REFUSALS;

export interface IntakeRefusal {
  code: IntakeCode;
  message: string;
  details?: unknown;
}

/** The HTTP status of an intake refusal. */
export function intakeStatus(code: IntakeCode): number {
  return INTAKE_REFUSALS[code].status;
}

/** Refusals as the catalogue, the early checks and idempotency say them (messages/intake.ts `SendResult`). */
export type IntakeKind =
  | { kind: 'unknown_agent' }
  | { kind: 'unknown_capability' }
  | { kind: 'forbidden'; reason: string }
  | { kind: 'deadline_passed' }
  | { kind: 'deadline_too_far' }
  | { kind: 'reply_to_unavailable' }
  | { kind: 'conflict'; message_id: string };

/** The one code and message of each refusal kind; `reason` (why an ACL refused) is for admins only. */
export function intakeRefusal(refused: IntakeKind, target?: { agent_id?: string; capability?: string }): IntakeRefusal {
  switch (refused.kind) {
    case 'unknown_agent':
      return { code: 'agent_not_found', message: `The target agent${target?.agent_id ? ` ${target.agent_id}` : ''} is not registered in this tenant` };
    case 'unknown_capability':
      return { code: 'unknown_capability', message: `The target agent has no capability${target?.capability ? ` ${target.capability}` : ''}` };
    case 'forbidden':
      return { code: 'capability_forbidden', message: `This caller may not reach ${target?.capability ? `capability ${target.capability}` : 'that capability'}` };
    case 'deadline_passed':
      return { code: 'deadline_passed', message: 'The deadline is already past' };
    case 'deadline_too_far':
      return { code: 'deadline_too_far', message: 'The deadline is more than 30 days ahead' };
    case 'reply_to_unavailable':
      return { code: 'reply_to_unavailable', message: 'reply_to needs CALLER_WEBHOOK_SECRET to be configured on the gateway' };
    case 'conflict':
      return { code: 'idempotency_conflict', message: `Message ${refused.message_id} was already sent with a different body`, details: { message_id: refused.message_id } };
  }
}
