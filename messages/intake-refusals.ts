/**
 * The refusals of message intake, one code each, whichever way a message came in: the HTTP api, the MCP and A2A faces
 * (as `ApiError`s, with the error table's HTTP status), a Temporal client or child start of `sendMessage`, a Nexus operation
 * and a chain's step (as non-retryable failures whose type is the code). What each way in checks, and in what order,
 * is in docs/security.md ("Ways in").
 *
 * Pure (no I/O): safe to import from workflows.
 */
import { ERROR_CODES, type ErrorCode } from '../rules/error-codes';

/** The codes intake refuses with; their HTTP status and meaning are the error table's (rules/error-codes.ts). */
const INTAKE_CODES = [
  'invalid_request',
  'workflow_id_mismatch',
  'tenant_mismatch',
  'key_required',
  'unknown_key',
  'invalid_key_proof',
  'invalid_access_token',
  'insufficient_scope',
  'payload_too_large',
  'endpoint_not_allowed',
  'reply_to_unavailable',
  'deadline_passed',
  'deadline_too_far',
  'agent_not_found',
  'unknown_capability',
  'capability_forbidden',
  'idempotency_conflict',
  'routing_unavailable',
] as const satisfies readonly ErrorCode[];

export type IntakeCode = (typeof INTAKE_CODES)[number];

/** Every intake refusal with its row of the error table: its HTTP status on the api, and what it means. */
export const INTAKE_REFUSALS = Object.fromEntries(INTAKE_CODES.map((code) => [code, ERROR_CODES[code]])) as {
  [C in IntakeCode]: (typeof ERROR_CODES)[C];
};

export interface IntakeRefusal {
  code: IntakeCode;
  message: string;
  details?: unknown;
}

/** The HTTP status of an intake refusal. */
export function intakeStatus(code: IntakeCode): number {
  return ERROR_CODES[code].status;
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
      return {
        code: 'agent_not_found',
        message: `The target agent${target?.agent_id ? ` ${target.agent_id}` : ''} is not registered in this tenant`,
      };
    case 'unknown_capability':
      return {
        code: 'unknown_capability',
        message: `The target agent has no capability${target?.capability ? ` ${target.capability}` : ''}`,
      };
    case 'forbidden':
      return {
        code: 'capability_forbidden',
        message: `This caller may not reach ${target?.capability ? `capability ${target.capability}` : 'that capability'}`,
      };
    case 'deadline_passed':
      return { code: 'deadline_passed', message: 'The deadline is already past' };
    case 'deadline_too_far':
      return { code: 'deadline_too_far', message: 'The deadline is more than 30 days ahead' };
    case 'reply_to_unavailable':
      return {
        code: 'reply_to_unavailable',
        message: 'reply_to needs CALLER_WEBHOOK_SECRET to be configured on the gateway',
      };
    case 'conflict':
      return {
        code: 'idempotency_conflict',
        message: `Message ${refused.message_id} was already sent with a different body`,
        details: { message_id: refused.message_id },
      };
  }
}
