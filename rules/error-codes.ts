/**
 * Every error code a client of Agent-Reach can read, one table: the `code` of an error body
 * (`{"error": {"code", "message", "details"}}` on the REST api, in an MCP error's data or tool error, in an A2A
 * error's ErrorInfo metadata), a message's `reason.code`, a chain's or a step's `error.code`, a plan's refusal, a
 * socket `error` frame's `code`, and the type of the non-retryable `ApplicationFailure` a Temporal-native caller's run
 * ends with. The same refusal has the same code on every way in.
 *
 * Not in it: an agent's own `error.code` in its receipt (the agent's words, kept as given), the router's and the
 * planner's inner verdicts before they become one of these, and the retry-policy types of internal activities.
 * `test/unit/error-codes.test.ts` fails on a code used in the source but not here, and on a code here used nowhere;
 * docs/api.md's error table is generated from this one (`npm run docs`).
 *
 * Pure (no I/O): safe to import from workflows.
 */

/** The Temporal runs that end with a non-retryable `ApplicationFailure` whose type is the code. */
export type TemporalRun = 'sendMessage' | 'Nexus' | 'runChain';

export interface ErrorCodeEntry {
  /** The HTTP status an answer with this code has; absent for codes read only in a status (message, chain, frame). */
  readonly status?: number;
  /**
   * The JSON-RPC error code when an A2A or MCP request is refused with this code as a JSON-RPC error (A2A: every
   * 4xx refusal is invalid params; MCP: outside `tools/call`, whose refusals are tool results carrying the body).
   */
  readonly jsonRpc?: number;
  /** The runs whose failure type is this code. */
  readonly temporal?: readonly TemporalRun[];
  /** What it means, in one line. */
  readonly meaning: string;
}

const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
/** A refusal before the request reaches its method: who calls, and may they (A2A's face, MCP's tasks and resources). */
const INVALID_REQUEST = -32600;
/** MCP's "resource not found". */
const RESOURCE_NOT_FOUND = -32002;
const SEND: readonly TemporalRun[] = ['sendMessage', 'Nexus'];
const SEND_AND_CHAIN: readonly TemporalRun[] = ['sendMessage', 'Nexus', 'runChain'];
const CHAIN: readonly TemporalRun[] = ['runChain'];

export const ERROR_CODES = {
  // The request itself.
  invalid_request: {
    status: 400,
    jsonRpc: INVALID_PARAMS,
    temporal: SEND_AND_CHAIN,
    meaning: 'the input does not pass the schema; details name each field as {location, message}',
  },
  invalid_json: { status: 400, jsonRpc: -32700, meaning: 'the body (or a socket frame) is not valid JSON' },
  request_aborted: { status: 400, meaning: 'the client aborted the request while its body was read' },
  unreadable_body: {
    status: 400,
    meaning: "the body could not be read (e.g. declared gzip and not); answered with the reader's 4xx status",
  },
  unsupported_encoding: { status: 415, meaning: 'the body has a content encoding the api does not read' },
  unsupported_charset: { status: 415, meaning: 'the body has a charset the api does not read' },
  payload_too_large: {
    status: 413,
    jsonRpc: INVALID_PARAMS,
    temporal: SEND_AND_CHAIN,
    meaning:
      'the body is over MAX_BODY_BYTES, or payload, intent and params (a result, a chain, a mapped step) over what is stored (A2A: -32600 for a body over MAX_BODY_BYTES)',
  },
  not_found: { status: 404, meaning: 'no such route' },
  method_not_allowed: { status: 405, meaning: 'the path does not serve this method; Allow lists those it does' },
  rate_limited: {
    status: 429,
    meaning: 'the tenant used its rate (or this address failed authentication too often); retry after Retry-After',
  },
  unavailable: {
    status: 503,
    meaning: 'the database or Temporal is unreachable (or the api is stopping); retry shortly',
  },
  status_unavailable: {
    status: 503,
    meaning: 'the message or chain is in flight and no worker answers its status query; retry shortly',
  },
  internal: {
    status: 500,
    meaning: 'an unexpected error, logged; a socket frame so refused was not recorded: send it again',
  },
  // Who is calling.
  unauthenticated: {
    status: 401,
    jsonRpc: INVALID_REQUEST,
    meaning: 'no credential: send an API key, an access token or the agent secret as a bearer',
  },
  invalid_api_key: { status: 401, jsonRpc: INVALID_REQUEST, meaning: 'the API key is unknown, revoked or mistyped' },
  invalid_secret: { status: 401, meaning: 'the agent secret is not valid (for this agent)' },
  invalid_push_token: { status: 401, meaning: 'the A2A push notification token is not the one given with the message' },
  insufficient_scope: {
    status: 403,
    jsonRpc: INVALID_REQUEST,
    temporal: SEND,
    meaning: 'the key or token lacks the scope this call needs (details.required_scope)',
  },
  register_needs_api_key: {
    status: 403,
    meaning: 'an agent secret re-registers its own agent only; registering another needs a register key',
  },
  not_your_message: { status: 403, meaning: 'the receipt is for a message not delivered to this agent' },
  tenant_mismatch: {
    status: 403,
    temporal: SEND,
    meaning: 'the input names a tenant other than the one this way in sends for',
  },
  key_required: {
    status: 401,
    temporal: SEND,
    meaning: 'this deployment requires key_id and key_proof on Temporal ways in',
  },
  unknown_key: { status: 401, temporal: SEND, meaning: 'key_id is no API key of this tenant, or it was revoked' },
  invalid_key_proof: {
    status: 401,
    temporal: SEND,
    meaning: 'key_proof is not the proof of this key for this body and message id',
  },
  invalid_access_token: {
    status: 401,
    temporal: SEND,
    meaning:
      'access_token (Nexus) is not a valid token of a configured issuer, maps to no caller, or was sent where it is not taken; a run whose caller the gateway did not seal',
  },
  token_invalid: {
    status: 401,
    meaning: 'the access token is malformed, unsigned, or its signature or a claim does not verify',
  },
  token_expired: { status: 401, meaning: 'the access token has expired (exp)' },
  token_not_yet_valid: { status: 401, meaning: 'the access token is not valid yet (nbf)' },
  token_wrong_issuer: { status: 401, meaning: 'the access token comes from an issuer this gateway does not trust' },
  token_wrong_audience: {
    status: 401,
    meaning: 'the access token is not for this gateway (aud is not its resource URL)',
  },
  token_unknown_key: { status: 401, meaning: 'the access token is signed with a key its issuer does not publish' },
  token_keys_unavailable: { status: 401, meaning: "the issuer's signing keys cannot be fetched now; try again later" },
  token_unmapped: { status: 403, meaning: 'the access token maps to no tenant or caller' },
  // What was asked for.
  agent_not_found: {
    status: 404,
    jsonRpc: INVALID_PARAMS,
    temporal: SEND_AND_CHAIN,
    meaning:
      "no such agent in this tenant, also a message's reason when its agent was removed before delivery (A2A: -32600 at an unknown agent's face; MCP resources/read: -32002)",
  },
  message_not_found: {
    status: 404,
    jsonRpc: INVALID_PARAMS,
    meaning: 'no such message in this tenant (MCP resources/read: -32002)',
  },
  chain_not_found: { status: 404, meaning: 'no such chain in this tenant' },
  key_not_found: { status: 404, meaning: 'no such API key in this tenant' },
  misroute_not_found: { status: 404, meaning: 'no such misroute report' },
  instance_not_found: {
    status: 404,
    meaning: 'the agent has no such instance (send endpoint with the heartbeat to add it)',
  },
  trace_not_found: { status: 404, meaning: 'no message carries this trace id' },
  resource_not_found: { jsonRpc: RESOURCE_NOT_FOUND, meaning: 'MCP: no such resource URI for this key' },
  unknown_tool: { jsonRpc: INVALID_PARAMS, meaning: 'MCP: no such tool for this key' },
  unknown_prompt: { jsonRpc: INVALID_PARAMS, meaning: 'MCP: no such prompt for this key' },
  // Conflicts with what is there.
  idempotency_conflict: {
    status: 409,
    jsonRpc: INVALID_PARAMS,
    temporal: SEND,
    meaning: 'the message id was already sent (or the chain id started) with a different body',
  },
  agent_name_taken: { status: 409, meaning: 'another agent of this tenant has this name' },
  config_key: { status: 409, meaning: 'the key comes from API_KEYS: remove it there and restart' },
  already_ended: { status: 409, meaning: 'the message or chain already ended: it can no longer be cancelled' },
  not_waiting_for_input: {
    status: 409,
    jsonRpc: INVALID_PARAMS,
    meaning: 'the message is not waiting for input: nothing to reply to',
  },
  not_redrivable: { status: 409, meaning: 'only failed or expired messages can be redriven' },
  // Well-formed, but not something the gateway can do.
  invalid_cursor: { status: 422, meaning: 'a cursor this list did not give (or gave for another filter)' },
  too_many_capabilities: {
    status: 422,
    meaning: 'the agent declares more than MAX_CAPABILITIES_PER_AGENT capabilities',
  },
  duplicate_capability: { status: 422, meaning: 'two capabilities of the agent have the same name' },
  invalid_schema: { status: 422, meaning: 'a capability schema is not a valid JSON Schema (draft 2020-12)' },
  too_many_instances: { status: 422, meaning: 'a new instance past MAX_INSTANCES_PER_AGENT, none offline to replace' },
  too_many_push_configs: {
    jsonRpc: INVALID_PARAMS,
    meaning: 'A2A: the task (or key) has as many push notification configs as it may',
  },
  agent_card_unreachable: { status: 422, meaning: 'the agent card URL could not be fetched' },
  agent_card_too_large: { status: 422, meaning: 'the agent card is larger than AGENT_ANSWER_MAX_BYTES' },
  invalid_agent_card: { status: 422, meaning: 'the agent card is not JSON, or not a valid A2A card' },
  endpoint_not_allowed: {
    status: 422,
    jsonRpc: INVALID_PARAMS,
    temporal: SEND_AND_CHAIN,
    meaning: 'an endpoint or reply_to points where the gateway may not connect (ENDPOINT_* settings)',
  },
  reply_to_unavailable: {
    status: 422,
    jsonRpc: INVALID_PARAMS,
    temporal: SEND_AND_CHAIN,
    meaning: 'reply_to needs CALLER_WEBHOOK_SECRET, which this deployment has not set',
  },
  deadline_passed: { status: 422, jsonRpc: INVALID_PARAMS, temporal: SEND, meaning: 'the deadline is already past' },
  deadline_too_far: {
    status: 422,
    jsonRpc: INVALID_PARAMS,
    temporal: SEND,
    meaning: 'the deadline is more than 30 days ahead',
  },
  unknown_capability: {
    status: 422,
    jsonRpc: INVALID_PARAMS,
    temporal: SEND_AND_CHAIN,
    meaning: 'the target agent has no such capability',
  },
  capability_forbidden: {
    status: 403,
    jsonRpc: INVALID_PARAMS,
    temporal: SEND_AND_CHAIN,
    meaning: "the capability's ACL does not admit this caller (a message's reason: no longer admits its sender)",
  },
  intent_required: { status: 422, meaning: 'the intent asks for nothing the planner can split into steps' },
  too_many_steps: {
    status: 422,
    temporal: CHAIN,
    meaning: 'the chain (or the plan) has more than MAX_CHAIN_STEPS steps',
  },
  duplicate_step: { status: 422, temporal: CHAIN, meaning: 'two steps of the chain have the same id' },
  unknown_step: { status: 422, temporal: CHAIN, meaning: 'a step names in after a step the chain does not have' },
  cycle: { status: 422, temporal: CHAIN, meaning: "the steps' after form a cycle" },
  too_deep: { status: 422, temporal: CHAIN, meaning: 'a step is more than MAX_CHAIN_DEPTH steps deep' },
  invalid_reference: {
    status: 422,
    temporal: CHAIN,
    meaning: 'a $ref is no pointer to /input/… or /steps/<id>/result/…, or reads a step that does not end before',
  },
  mapping_type_error: {
    status: 422,
    temporal: CHAIN,
    meaning: "a mapped value's type does not fit the parameter it fills",
  },
  workflow_id_mismatch: {
    status: 400,
    temporal: ['sendMessage', 'runChain'],
    meaning: 'a direct start whose workflow id is not msg:<tenant>:<message_id> (chain:<tenant>:<chain_id>)',
  },
  routing_unavailable: {
    status: 503,
    temporal: SEND,
    meaning: 'an intent-only start and no api replica routed it in time; a chain step so routed fails with it',
  },
  foreign_caller: {
    meaning:
      "an activity of a chain's run (mapChainStep) was scheduled by another run, or for a message of another chain",
  },
  not_configured: {
    temporal: ['sendMessage', 'runChain'],
    meaning: 'this worker takes no direct starts (its store is not configured)',
  },
  // Why a message ended other than processed (its reason.code); the four the router decides are also a send's 422.
  no_route: {
    status: 422,
    jsonRpc: INVALID_PARAMS,
    meaning: 'the router found no capability matching the intent well enough',
  },
  no_eligible_capability: {
    status: 422,
    jsonRpc: INVALID_PARAMS,
    meaning:
      'capabilities match, but none can take the message now (offline, draining, circuit open, at capacity, ACL)',
  },
  ambiguous: {
    status: 422,
    jsonRpc: INVALID_PARAMS,
    meaning: 'two capabilities fit the intent about equally well: the caller is asked which (details.choices)',
  },
  input_required: {
    status: 422,
    jsonRpc: INVALID_PARAMS,
    meaning: 'the capability needs parameters the request does not give (details.missing)',
  },
  no_available_instance: { meaning: 'a message ended: no instance of the agent could take it' },
  agent_refused: { meaning: 'a message ended: the agent refused it (not retried)' },
  delivery_exhausted: { meaning: 'a message ended: every delivery attempt failed (MAX_DELIVERY_ATTEMPTS)' },
  ack_timeout: { meaning: 'a message ended: the agent did not acknowledge it in time' },
  agent_failed: { meaning: 'a message ended: the agent answered that it failed (its own error in error)' },
  result_too_large: {
    meaning: "a message ended: the agent's answer or result is larger than the gateway keeps (also A2A error.code)",
  },
  deadline_exceeded: { meaning: 'a message ended: its deadline passed' },
  cancelled_by_caller: { meaning: 'a message or chain ended: the caller cancelled it' },
  terminated: { meaning: 'a message or chain ended: its workflow run ended without it (terminated, timed out)' },
  input_timeout: { meaning: 'a message ended: the agent asked for input and no reply came within INPUT_WAIT_MS' },
  misrouted: { meaning: "a message ended: the named capability's agent answered that the message is not for it" },
  // An A2A agent's task that ended other than completed: the message's error.code (the agent's text as message).
  a2a_failed: { meaning: "an A2A agent's task failed" },
  a2a_canceled: { meaning: 'an A2A agent canceled its task' },
  a2a_rejected: { meaning: 'an A2A agent rejected its task after accepting it' },
  a2a_auth_required: { meaning: 'an A2A agent asked for authentication' },
  // A chain's or a step's error.code, besides a message's reason.
  failed: { meaning: 'a step failed for a reason without a code of its own (the message says it)' },
  cancelled: { meaning: 'the chain was cancelled' },
  not_run: { meaning: 'a step: the chain ended before it could start' },
  compensation_failed: { meaning: 'the chain: a compensation message failed' },
  mapping_failed: { meaning: 'a step: its input could not be built from the chain input and earlier results' },
  params_mismatch: { meaning: "a step: its mapped params do not fit the capability's parameters" },
  // A plan's unplanned parts (POST /v1/chains/plan).
  too_many_plans: {
    status: 429,
    jsonRpc: INVALID_PARAMS,
    meaning: 'A2A plan_and_run: the tenant has as many plan tasks waiting as it may; answer or let some expire',
  },
  plan_not_confirmable: {
    meaning:
      'MCP reach_plan_and_run: the confirmed plan is not the one planned for this key, or it expired (details.why)',
  },
  refused: { meaning: 'a plan: the router found no capability for a part of the intent' },
  condition_not_understood: { meaning: 'a plan: a part runs on a condition no earlier step answers' },
  still_in_flight: {
    jsonRpc: INTERNAL_ERROR,
    meaning: 'MCP prompt of an agent face: the message has not ended in the time waited',
  },
  // Socket frames an agent sent that the gateway could not take.
  invalid_frame: { meaning: 'a socket frame: binary, not an object, or with wrong fields' },
  unknown_frame: { meaning: 'a socket frame of a type other than ack or receipt' },
  receipt_failed: { meaning: 'a socket receipt was not recorded: send it again' },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;
