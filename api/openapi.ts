/**
 * The OpenAPI 3.1 document of the api, generated from the same zod schemas the routes validate with (never a second
 * hand-written copy of a shape). A test checks that every route of the app is described and that the document is
 * valid OpenAPI 3.1.
 */
import { z } from 'zod';
import { callbackBody } from '../protocol/receipt';
import type { BuiltInScope, METRICS_SCOPE } from '../rules/api-key';
import {
  agentCardQuery,
  agentIdParams,
  cancelBody,
  chainPlanBody,
  chainPlanQuery,
  replyBody,
  createKeyBody,
  keyIdParams,
  eventsQuery,
  heartbeatBody,
  importAgentBody,
  listChainsQuery,
  listMessagesQuery,
  listMisroutesQuery,
  misrouteParams,
  decideMisrouteBody,
  teachMisrouteBody,
  messageIdParams,
  pushParams,
  redriveBody,
  registerAgentBody,
  searchAgentsQuery,
  sendMessageBody,
  routeBody,
  sendMessageQuery,
  traceParams,
} from './schemas';
import * as out from './response-schemas';
import { chainBody, chainIdParams } from '../chains/chain-schema';

type Method = 'get' | 'post' | 'put' | 'delete';

export interface Operation {
  method: Method;
  /** Express-style path, e.g. `/v1/agents/:agent_id`. */
  path: string;
  summary: string;
  /** What a reader needs beyond the summary (OpenAPI `description`). */
  details?: string;
  /** Needs the agent's secret as a bearer token. */
  agentAuth?: boolean;
  /** Needs an API key (bearer `rk_…`) holding this scope. */
  scope?: BuiltInScope | typeof METRICS_SCOPE;
  params?: z.ZodObject;
  query?: z.ZodType;
  body?: z.ZodType;
  /**
   * Status → description, for what this operation answers itself. What every operation behind authentication can
   * answer (400, 401, 413, 415, 429, 503; 403 with a scope; 404 for an agent's own routes) is added by
   * {@link commonResponses}.
   */
  responses: Record<number, string>;
  /** The body of each success status (and of a status whose body is not the error shape), by status. */
  returns?: Partial<Record<number, z.ZodType>>;
  /** Media type of the success body when it is not JSON. */
  mediaType?: 'text/html' | 'text/plain';
  /** Served before API keys are read and bodies parsed: answers only what `responses` says. */
  open?: boolean;
  /** OpenAPI links from a success status to operations that take one of its fields (stateful testing follows them). */
  links?: Partial<Record<number, Record<string, { operationId: string; parameters: Record<string, string> }>>>;
}

export const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/healthz',
    open: true,
    summary: 'Liveness',
    responses: { 200: 'The process answers: `{"status":"ok"}`' },
    returns: { 200: out.healthResponse },
  },
  {
    method: 'get',
    path: '/readyz',
    open: true,
    summary: 'Readiness: database and Temporal reachable',
    responses: { 200: 'Ready: `{status, database, temporal}`', 503: 'Not ready: `{status, database, temporal}`' },
    returns: { 200: out.readinessResponse, 503: out.readinessResponse },
  },
  {
    method: 'get',
    path: '/openapi.json',
    open: true,
    summary: 'This document',
    details:
      'Generated from the zod schemas the routes validate with; a test checks it is valid and covers every route.',
    responses: { 200: 'OpenAPI 3.1' },
    returns: { 200: out.anyObject },
  },
  {
    method: 'get',
    path: '/metrics',
    scope: 'metrics',
    mediaType: 'text/plain',
    summary: "This replica's Prometheus metrics",
    details:
      'Public with `METRICS_PUBLIC` (then no 401 or 403). Every tenant together (no tenant labels): `reach_http_requests_total` / `reach_http_request_duration_seconds` by route and status, `reach_messages_sent_total{result}`, `reach_receipts_total{result}`, `reach_heartbeats_total`, `reach_agents_online`, `reach_instances{state,online}`, `reach_circuits_open`, `reach_messages{state}` (Temporal visibility, refreshed at most every 10 s).',
    responses: { 200: 'Prometheus text format' },
  },
  {
    method: 'get',
    path: '/docs',
    open: true,
    mediaType: 'text/html',
    summary: 'A page listing the operations',
    responses: { 200: 'HTML' },
  },
  {
    method: 'get',
    path: '/dashboard',
    open: true,
    mediaType: 'text/html',
    summary: 'The operator dashboard',
    details:
      "Agents with state and instances, recent messages, one message's attempts and result, its trace's chain; refreshes every 5 s. The page asks for a key and keeps it in the tab's `sessionStorage`.",
    responses: { 200: 'HTML' },
  },
  {
    method: 'post',
    path: '/v1/agents',
    scope: 'register',
    agentAuth: true,
    summary: 'Register an agent (re-register with its secret)',
    details:
      "Registers the agent in the key's tenant. With the secret of the agent of the same name instead of a key, re-registers it: same id, new card. Either `endpoint` (one HTTP instance) or `instances`, not both; an HTTP instance needs an `endpoint`, a WebSocket one does not.",
    body: registerAgentBody,
    responses: {
      201: 'Registered: `{agent_id, secret, signing_secret, agent, heartbeat}` (the secrets are shown once)',
      200: 'Re-registered: `{agent_id, reregistered: true, agent}`',
      401: '`unauthenticated` (no key, no secret), `invalid_api_key` or `invalid_secret`',
      403: '`insufficient_scope`, or `register_needs_api_key` (a secret naming another agent)',
      409: '`agent_name_taken`',
      422: '`duplicate_capability`, `invalid_schema` (also an agent `pattern` the linear-time engine cannot take), `too_many_capabilities` or `endpoint_not_allowed`',
    },
    returns: { 201: out.registeredResponse, 200: out.reregisteredResponse },
    links: {
      201: {
        GetAgent: { operationId: 'get_v1_agents_agent_id', parameters: { agent_id: '$response.body#/agent_id' } },
        GetAgentEvents: {
          operationId: 'get_v1_agents_agent_id_events',
          parameters: { agent_id: '$response.body#/agent_id' },
        },
        GetAgentCard: {
          operationId: 'get_v1_agents_agent_id_agent_card_json',
          parameters: { agent_id: '$response.body#/agent_id' },
        },
      },
    },
  },
  {
    method: 'get',
    path: '/v1/agents',
    scope: 'read',
    summary: 'List and search agents',
    details:
      "Filters: `tag` (the agent's or a capability's), `capability` name, `state` (`online`, `offline`, `healthy`, `busy`, `draining`), free text `q` (case-insensitive, any language, over name, description, tags, capabilities and examples); pages of `limit` (1–500, default 50) by `cursor`.",
    query: searchAgentsQuery,
    responses: { 200: '`{items, next_cursor?}`' },
    returns: { 200: out.agentPageResponse },
  },
  {
    method: 'post',
    path: '/v1/agents/import',
    scope: 'register',
    summary: 'Import an A2A Agent Card (inline or from a URL)',
    details:
      "Either `{card}` inline or `{url}` (fetches `{url}/.well-known/agent-card.json`, at most 1 MiB, each redirect checked by the endpoint policy); v1.0 and v0.3 field names. The agent gets one instance `a2a` (transport `a2a`) at the card's first JSONRPC or HTTP+JSON interface, delivered in A2A and kept alive by probes of its card (docs/a2a.md); from an inline card it starts offline and is probed during the import.",
    body: importAgentBody,
    responses: {
      201: 'Registered, like a registration, plus `a2a_version`',
      200: 'Re-imported (same name and source): `{agent_id, reregistered: true, a2a_version, agent}`',
      409: '`agent_name_taken`',
      422: '`invalid_agent_card`, `agent_card_unreachable`, `agent_card_too_large`, `endpoint_not_allowed`, or a registration refusal',
    },
    returns: { 201: out.importedResponse, 200: out.importedResponse },
  },
  {
    method: 'get',
    path: '/v1/agents/:agent_id',
    scope: 'read',
    summary: 'Read an agent and its instances',
    details: "Each instance's `online` is derived from its heartbeat age, and its `circuit` shown; never a secret.",
    params: agentIdParams,
    responses: { 200: 'The agent', 404: '`agent_not_found`' },
    returns: { 200: out.agentResponse },
  },
  {
    method: 'put',
    path: '/v1/agents/:agent_id',
    summary: 'Replace the card (new revision)',
    details: 'Same body as registration; instances are replaced only if given.',
    agentAuth: true,
    params: agentIdParams,
    body: registerAgentBody,
    responses: { 200: 'Updated: `{agent, heartbeat}`', 409: '`agent_name_taken`', 422: 'As for registration' },
    returns: { 200: out.updatedAgentResponse },
  },
  {
    method: 'delete',
    path: '/v1/agents/:agent_id',
    summary: 'Deregister',
    agentAuth: true,
    params: agentIdParams,
    responses: { 204: 'Deregistered' },
  },
  {
    method: 'post',
    path: '/v1/agents/:agent_id/secret',
    summary: 'Rotate the secret (the old one stays valid for an overlap window)',
    details: 'The old secret keeps working for `SECRET_ROTATION_OVERLAP_MS`.',
    agentAuth: true,
    params: agentIdParams,
    responses: { 200: '`{agent_id, secret, signing_secret, previous_secret_valid_until}`' },
    returns: { 200: out.rotatedSecretResponse },
  },
  {
    method: 'post',
    path: '/v1/agents/:agent_id/heartbeat',
    summary: 'Heartbeat of one instance',
    details:
      'Keeps the instance alive; an `endpoint` moves it, or adds a new instance (scale-out). An agent has at most `MAX_INSTANCES_PER_AGENT` instances: a new one past it takes the place of the longest-silent offline instance (event `instance_pruned`), or is refused when all are online.',
    agentAuth: true,
    params: agentIdParams,
    body: heartbeatBody,
    responses: {
      200: 'Alive: `{status, instance, transitions, next_heartbeat_in_ms, offline_after_ms}`',
      404: '`agent_not_found`, or `instance_not_found` (with a hint)',
      422: '`endpoint_not_allowed`, or `too_many_instances` (`details.limit`): the agent has `MAX_INSTANCES_PER_AGENT` instances, none offline',
    },
    returns: { 200: out.heartbeatResponse },
  },
  {
    method: 'get',
    path: '/v1/agents/:agent_id/events',
    scope: 'read',
    summary: 'Transitions of the agent, newest first',
    details:
      '`registered`, `reregistered`, `updated`, `secret_rotated`, `instance_added`, `instance_moved`, `instance_pruned` (an offline instance that made room for a new one: `details.replaced_by`), `state_changed`, `offline`, `online`; kept for `AGENT_EVENT_RETENTION_MS`.',
    params: agentIdParams,
    query: eventsQuery,
    responses: { 200: '`{items}`', 404: '`agent_not_found`' },
    returns: { 200: out.eventsResponse },
  },
  {
    method: 'get',
    path: '/v1/agents/:agent_id/agent-card.json',
    scope: 'read',
    summary: 'The agent as an A2A Agent Card',
    details:
      'As a caller reaches it through the A2A face (docs/a2a.md): interface `POST /a2a/agents/:agent_id` (JSONRPC), security scheme the API key as bearer token, skills the capabilities this key may reach; an imported agent keeps everything else its card said.',
    params: agentIdParams,
    query: agentCardQuery,
    responses: { 200: 'A2A card', 404: '`agent_not_found`' },
    returns: { 200: out.anyObject },
  },
  {
    method: 'get',
    path: '/.well-known/agent-card.json',
    summary: "The gateway's A2A Agent Card",
    details:
      'Without a key: the public card (the A2A face `POST /a2a`, its bearer scheme, the `route` skill). With a key: also every capability the key may reach, as skill `<agent_id>/<capability>` (docs/a2a.md). The face itself (JSON-RPC) is not part of this document.',
    responses: { 200: 'A2A card (v1.0)' },
    returns: { 200: out.anyObject },
  },
  {
    method: 'get',
    path: '/a2a/.well-known/agent-card.json',
    summary: "The gateway's A2A Agent Card, under the face's URL",
    details: 'The same as `GET /.well-known/agent-card.json`.',
    responses: { 200: 'A2A card (v1.0)' },
    returns: { 200: out.anyObject },
  },
  {
    method: 'get',
    path: '/a2a/agents/:agent_id/.well-known/agent-card.json',
    summary: "An agent's A2A Agent Card, under its face's URL",
    details:
      "Without a credential: the agent's public card (no capability with an ACL or `private: true`). With a key or access token holding `read`: the same as `GET /v1/agents/:agent_id/agent-card.json` (v1.0), for the caller's tenant.",
    params: agentIdParams,
    responses: {
      200: 'A2A card (v1.0)',
      403: '`insufficient_scope`: a credential without `read`',
      404: '`agent_not_found`',
    },
    returns: { 200: out.anyObject },
  },
  {
    method: 'post',
    path: '/v1/messages',
    scope: 'send',
    summary: 'Send a message (optionally waiting for its outcome)',
    details:
      'To a named capability (`target` with `capability`), or routed by its `intent` (some text that is not only white space); at least one of the two. With `wait` (0–120 s, e.g. `1500ms`) the request is held until the message ends (200 with its final status) or the wait runs out (202). `payload`, `intent` and `params` together at most `MAX_PAYLOAD_BYTES` as stored.',
    query: sendMessageQuery,
    body: sendMessageBody,
    responses: {
      202: 'Accepted (routed by intent when no capability is named)',
      200: 'The existing message (same id and body: no second run), or the outcome within the wait',
      403: "`insufficient_scope`, or `capability_forbidden` (the capability's ACL; `details.reason` for admins only)",
      404: '`agent_not_found`',
      409: '`idempotency_conflict` (same id, other body)',
      413: '`payload_too_large`',
      422: '`unknown_capability`, `deadline_passed`, `deadline_too_far`, `endpoint_not_allowed` (reply_to), `reply_to_unavailable`; routed messages the router refuses: `no_route`, `no_eligible_capability`, `input_required` (details: `message_id`, `state: "rejected"`, `missing`, `routing`), recorded as `rejected`',
      503: '`status_unavailable` (a repeated id whose run is in flight and no worker answers its status query: retry)',
    },
    returns: { 202: out.messageStatusResponse, 200: out.messageStatusResponse },
    links: {
      202: {
        GetMessage: {
          operationId: 'get_v1_messages_message_id',
          parameters: { message_id: '$response.body#/message_id' },
        },
        CancelMessage: {
          operationId: 'post_v1_messages_message_id_cancel',
          parameters: { message_id: '$response.body#/message_id' },
        },
        RedriveMessage: {
          operationId: 'post_v1_messages_message_id_redrive',
          parameters: { message_id: '$response.body#/message_id' },
        },
        GetTrace: { operationId: 'get_v1_traces_trace_id', parameters: { trace_id: '$response.body#/trace_id' } },
      },
    },
  },
  {
    method: 'post',
    path: '/v1/chains',
    scope: 'send',
    summary: 'Start a chain: steps as a DAG of messages, with mapped inputs and compensation',
    details:
      'Each step is a message (`<chain_id>:<step_id>`) to a `target` or routed by its `intent`, sent as this key; `input` (its params) and `payload` are templates whose `{"$ref": "<JSON Pointer>"}` read `/input/…` (the chain input) or `/steps/<id>/result/…`; `after` defaults to the step before; `when: {$ref, equals | not_equals | in}`; `deadline_ms`; `on_failure`: `stop` (default), `continue`, `compensate` (the completed steps\' `compensate` messages run, latest first, each once). Checked in full before anything runs: at most `MAX_CHAIN_STEPS` steps, `MAX_CHAIN_DEPTH` deep, `MAX_CHAIN_BYTES`. See docs/chains.md.',
    body: chainBody,
    responses: {
      202: 'Started: the chain, its steps `pending`',
      200: 'The existing chain (same id and body); step results and error messages only to a key with `read`',
      429: "`rate_limited`: the key's tenant is over `RATE_LIMIT_PER_SECOND` (burst `RATE_LIMIT_BURST`), a chain costing one unit per step and one per compensation; or this address failed authentication too often (`UNAUTHENTICATED_RATE_LIMIT_PER_SECOND`)",
      403: "`insufficient_scope`, or `capability_forbidden` (a step's capability's ACL; `details.step`)",
      409: '`idempotency_conflict` (same id, other body)',
      413: '`payload_too_large`',
      422: '`duplicate_step`, `unknown_step`, `cycle`, `too_deep`, `too_many_steps`, `invalid_reference`, `mapping_type_error`, `unknown_capability`; `details.step` names the step',
      404: '`agent_not_found`: a step names an agent not in this tenant; `details.step` names the step',
    },
    returns: { 202: out.chainStatusResponse, 200: out.chainStatusResponse },
    links: {
      202: {
        GetChain: { operationId: 'get_v1_chains_chain_id', parameters: { chain_id: '$response.body#/chain_id' } },
        CancelChain: {
          operationId: 'post_v1_chains_chain_id_cancel',
          parameters: { chain_id: '$response.body#/chain_id' },
        },
      },
    },
  },
  {
    method: 'post',
    path: '/v1/chains/plan',
    scope: 'send',
    summary: 'Plan a chain from one free-text request (zh/en): a proposed chain body, nothing run',
    details:
      "The request is split into sub-requests (clauses and sequencers: 然后 / 再 / 如果…就 / 否则 / and then / after that / if … , / otherwise / 同时 / at the same time); each is routed as `POST /v1/route` would (one rate-limit unit each). `chain` is a body `POST /v1/chains` takes as it is: steps pin the `target` the router chose, `after` from the order, `when` from a condition read against an earlier step's declared `returns`, `$ref`s to the chain `input` (each value the request names, once) and to earlier results (identifiers by name). `steps`: per step its sub-request, the router's reading (capability, score, verdict, judge), extracted `params`, `refs`, `carried`. `unplanned`: `refused` sub-requests, `condition_not_understood`, `input_required` (with `missing` and the JSON Schema of what to add to `input`). `check`: the checks of `POST /v1/chains`. `runnable`: every step accepted outright and nothing unplanned. With `?run=true` a runnable plan starts at once (202, `started: true`, `status`; a chain costs its units as `POST /v1/chains`); otherwise 200 with `started: false`. See docs/chains.md.",
    query: chainPlanQuery,
    body: chainPlanBody,
    responses: {
      200: 'The plan (with `?run=true`: not runnable, so not started; or the existing chain of the same id and body)',
      202: 'With `?run=true`: planned and started',
      409: '`idempotency_conflict` (`?run=true`, same chain id, other body)',
      422: '`intent_required` (nothing to split), `too_many_steps`; with `?run=true`, the refusals of `POST /v1/chains`',
    },
    returns: { 200: out.chainPlanResponse, 202: out.chainPlanResponse },
  },
  {
    method: 'get',
    path: '/v1/chains',
    scope: 'read',
    summary: "List the tenant's chains",
    details:
      'Running chains first, then the ended ones by when they ended, newest first. Each item is a chain as `GET /v1/chains/:chain_id` shows it, without what the agents answered (no step `result`, no error `message`: read one chain for those). Filter: `state` (`running`, `compensating`, `completed`, `failed`, `compensated`, `cancelled`); pages of `limit` (1–100, default 50) by `cursor` (the `next_cursor` of the previous page, with the same `state`). Filtered by `state`, a page may hold fewer than `limit` chains (even none) and still have a `next_cursor`: follow it until it is absent.',
    query: listChainsQuery,
    responses: {
      200: '`{items, next_cursor?}`',
      422: '`invalid_cursor`: a `cursor` this list did not give (or gave for another `state`)',
      503: '`status_unavailable` (a listed chain is running and no worker answers)',
    },
    returns: { 200: out.chainPageResponse },
  },
  {
    method: 'get',
    path: '/v1/chains/:chain_id',
    scope: 'read',
    summary: 'Status of a chain',
    details:
      'State (`running`, `compensating`, `completed`, `failed`, `compensated`, `cancelled`) and each step: `{id, after, message_id, state, result?, started_at?, ended_at?, error?, compensation?}`.',
    params: chainIdParams,
    responses: { 200: 'Status', 404: '`chain_not_found`', 503: '`status_unavailable` (running and no worker answers)' },
    returns: { 200: out.chainStatusResponse },
  },
  {
    method: 'post',
    path: '/v1/chains/:chain_id/cancel',
    scope: 'send',
    summary: 'Cancel a chain',
    details:
      'No step starts any more; the messages of running steps are cancelled. A chain that is compensating finishes compensating.',
    params: chainIdParams,
    body: cancelBody,
    responses: {
      200: '`{chain_id, cancelled: true, state: "cancelled"}`',
      404: '`chain_not_found`',
      409: '`already_ended` (or compensating)',
    },
    returns: { 200: out.chainCancelledResponse },
  },
  {
    method: 'post',
    path: '/v1/route',
    scope: 'send',
    summary: 'Dry run of the intent router: its decision and explanation, nothing sent',
    details: 'A `target` with a `capability`, or an `intent`, as for sending.',
    body: routeBody,
    responses: {
      200: '`{kind: routed | input_required | refused, target?, params?, missing?, code?, message?, explanation}`',
    },
    returns: { 200: out.routeDecisionResponse },
  },
  {
    method: 'get',
    path: '/v1/router/status',
    scope: 'read',
    summary:
      "The tenant's routing head: ready or training, on which catalogue revision, since when, its fitted thresholds",
    details:
      "`state`: `ready` (the current catalogue's head decides), `training` (a previous head, or similarity, decides meanwhile), `none` (no head: BM25 or `ROUTER_HEAD=off`), `failed`. `serving`: the head that decides now (`revision`, `capabilities`, `changed_at`, `ready_at` when its first heads served, `full_at` when every head did, `heads` deciding now, `late`: the heads that join later and their `state` — `training`, `joined`, `failed` with the `error`, `discarded` when the catalogue changed first —, `calibration` per language direction); `training`: the one being trained. `judge`: what `ROUTER_JUDGE` came to on this host (`setting`, `active`, `why`; for `auto` the rule's verdict) and, when a judge is on, the requests `waiting` for it now and its `capacity`; `judge.warm_up`: the local judge holding the tenant's served catalogue's cards before anyone asks (`state` `warming`, `done` or `failed`, `cards` in the catalogue, `chosen` to hold, `held` now, `slots`). `cards`: how many examples the catalogue's capabilities give the head to learn from (`capabilities`, `examples` min / median / max, `few_examples`: those with fewer than `under` (10), `count` in all and up to 20 by name, fewest first); they bound how well requests nobody tuned for are routed (docs/routing.md, \"A card's examples\").",
    responses: { 200: '`{provider, state, serving?, training?, error?, cards?, judge?}`' },
    returns: { 200: out.routerStatusResponse },
  },
  {
    method: 'get',
    path: '/v1/router/misroutes',
    scope: 'read',
    summary: 'Lessons and misroute reports of the tenant, newest first',
    details:
      'One entry per capability and request text (`reports` counts the messages whose agent answered `misrouted`; 3 apply it by itself, `decided_by: "auto"`). `state`: `pending`, `applied` (a lesson: nearly the same request is not routed to that capability again), `dismissed`.',
    query: listMisroutesQuery,
    responses: {
      200: '`{items: [{misroute_id, capability, text, reports, message_ids, state, first_reported_at, last_reported_at, decided_at?, decided_by?}]}`',
    },
    returns: { 200: out.misrouteListResponse },
  },
  {
    method: 'post',
    path: '/v1/router/misroutes',
    scope: 'admin',
    summary: 'Teach the router that a request is not for a capability (a lesson, applied at once)',
    details:
      'Nearly the same request (cosine ≥ 0.97 in the multilingual model) is then not routed to that capability: the next one that clears its threshold takes it, or it is refused. Every api reads it within 5 s; the head retrains like after a card edit. Needs a head (an embedding provider).',
    body: teachMisrouteBody,
    responses: { 201: 'The lesson' },
    returns: { 201: out.misrouteResponse },
  },
  {
    method: 'post',
    path: '/v1/router/misroutes/:misroute_id',
    scope: 'admin',
    summary: 'Apply a misroute report as a lesson, or dismiss it',
    details:
      'The router reads the change within 5 s on every api (at once on this one); the head retrains like after a card edit.',
    params: misrouteParams,
    body: decideMisrouteBody,
    responses: { 200: 'The report as decided', 404: '`misroute_not_found`' },
    returns: { 200: out.misrouteResponse },
  },
  {
    method: 'get',
    path: '/v1/messages',
    scope: 'read',
    summary: 'List messages by state, agent or trace',
    details: 'Newest first, from Temporal visibility (dead letters: `state=failed` or `state=expired`).',
    query: listMessagesQuery,
    responses: { 200: '`{items: [{message_id, state, agent_id, trace_id, started_at, closed_at?}]}`' },
    returns: { 200: out.messageListResponse },
  },
  {
    method: 'get',
    path: '/v1/messages/:message_id',
    scope: 'read',
    summary: 'Status of a message',
    details: 'State, reason, agent, attempts, result, timestamps.',
    params: messageIdParams,
    responses: {
      200: 'Status',
      404: '`message_not_found`',
      503: '`status_unavailable` (in flight and no worker answers)',
    },
    returns: { 200: out.messageStatusResponse },
  },
  {
    method: 'post',
    path: '/v1/messages/:message_id/cancel',
    scope: 'send',
    summary: 'Cancel a message',
    details: 'If it was delivered to an HTTP agent, the agent gets a signed notice (`X-Reach-Event: cancelled`).',
    params: messageIdParams,
    body: cancelBody,
    responses: {
      200: '`{message_id, cancelled: true, state: "cancelled"}`',
      404: '`message_not_found`',
      409: '`already_ended`',
    },
    returns: { 200: out.cancelledResponse },
  },
  {
    method: 'post',
    path: '/v1/messages/:message_id/reply',
    scope: 'send',
    summary: 'Reply to a message waiting for input',
    details:
      'The message is in state `input_required` (its agent asked `input_required.message`, with `input_required.schema` when it gave one): the reply (words, params merged over the earlier ones, or data) is delivered to the agent as the next turn of the same message, with the conversation so far (docs/protocol.md). An agent that asked several questions at once (`input_required.questions`, by key: those still open) is answered with `answers` alone, `{<key>: {intent?, params?, payload?}}`, for some or all of them: the message waits (202, `input_required` listing the rest) until every one is answered, then the agent gets one turn with them all.',
    params: messageIdParams,
    body: replyBody,
    responses: {
      202: 'Status, the message delivering its next turn (or, with questions still open, still `input_required`)',
      400: '`invalid_request`: the body, an answer under a key no open question has, or params that do not fit the schema of their question',
      404: '`message_not_found`',
      409: '`not_waiting_for_input`',
      413: '`payload_too_large`',
    },
    returns: { 202: out.messageStatusResponse },
  },
  {
    method: 'post',
    path: '/v1/messages/:message_id/redrive',
    scope: 'send',
    summary: 'Redrive a failed or expired message',
    details:
      "A new attempt chain under the same message id (a new Temporal run; the status keeps the earlier attempts and lists `redrives`), sent by this key: its target is checked as a send's (the capability's ACL must admit this key, and every attempt checks it again).",
    params: messageIdParams,
    body: redriveBody,
    responses: {
      202: 'Redriven',
      403: "`insufficient_scope`, or `capability_forbidden` (the capability's ACL; `details.reason` for admins only)",
      404: '`message_not_found`, or `agent_not_found` (the target agent is gone)',
      409: '`not_redrivable` (not a dead letter)',
      422: '`deadline_passed`, or `unknown_capability` (the agent no longer offers it)',
    },
    returns: { 202: out.messageStatusResponse },
  },
  {
    method: 'get',
    path: '/v1/traces/:trace_id',
    scope: 'read',
    summary: 'The messages of a trace',
    details:
      'Every message of the trace (one per hop), oldest first: state, agent, capability, attempts, duration, `parent_message_id`.',
    params: traceParams,
    responses: { 200: '`{trace_id, messages}`', 404: '`trace_not_found`' },
    returns: { 200: out.traceResponse },
  },
  {
    method: 'post',
    path: '/v1/keys',
    scope: 'admin',
    summary: "Create an API key in the caller's tenant (shown once)",
    details: 'Stored as the SHA-256 of its secret.',
    body: createKeyBody,
    responses: { 201: '`{key_id, key, tenant, name, scopes, source, created_at}`' },
    returns: { 201: out.createdKeyResponse },
    links: {
      201: { RevokeKey: { operationId: 'delete_v1_keys_key_id', parameters: { key_id: '$response.body#/key_id' } } },
    },
  },
  {
    method: 'get',
    path: '/v1/keys',
    scope: 'admin',
    summary: "The tenant's API keys (never the keys themselves)",
    details: '`API_KEYS` ones included (`source: "config"`).',
    responses: { 200: '`{items}`' },
    returns: { 200: out.keyListResponse },
  },
  {
    method: 'delete',
    path: '/v1/keys/:key_id',
    scope: 'admin',
    summary: 'Revoke an API key',
    details: 'On this replica at once, on others within `API_KEY_CACHE_MS`.',
    params: keyIdParams,
    responses: { 204: 'Revoked', 404: '`key_not_found`', 409: '`config_key` (a key from API_KEYS)' },
  },
  {
    method: 'post',
    path: '/v1/callback',
    summary: "The agent's receipt",
    details: 'The secret identifies the agent. A repeat changes nothing and says `duplicate: true`.',
    agentAuth: true,
    body: callbackBody,
    responses: {
      200: '`{message_id, applied, duplicate, state}`',
      403: '`not_your_message`',
      404: "`message_not_found` (also for another tenant's message)",
      413: '`payload_too_large`',
    },
    returns: { 200: out.receiptResponse },
  },
  {
    method: 'post',
    path: '/a2a/push/:agent_id/:message_id',
    open: true,
    summary: "An A2A agent's push notification about a message's task",
    details:
      'Sent by an A2A agent the gateway delivered to, with the token given for that message in `X-A2A-Notification-Token` (no API key); the run then reads the task with GetTask. The body is not read (docs/a2a.md).',
    params: pushParams,
    responses: {
      200: '`{received: true}`',
      400: 'A malformed agent or message id',
      401: '`invalid_push_token`',
      404: '`message_not_found` (no run of it is going, or it was not sent to this agent)',
      429: '`rate_limited`: over the pushes one message may get, or over `UNAUTHENTICATED_RATE_LIMIT_PER_SECOND` from this address',
    },
    returns: { 200: out.pushReceivedResponse },
  },
];

const jsonSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });

/** The one error body of the api (api/errors.ts). */
const ERROR_BODY = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: { description: 'What is wrong and where, or null' },
      },
    },
  },
};
const ERROR_REF = { $ref: '#/components/schemas/Error' };
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'string' } } };

export function operationId(method: Method, path: string): string {
  return `${method}${path.replace(/[^A-Za-z0-9]+/g, '_')}`;
}

/**
 * What every operation behind authentication and body parsing (api/app.ts) can answer besides its own statuses:
 * a malformed or invalid request, an unknown key, a body too large or in an unsupported charset, a tenant over its
 * rate limit, an unreachable dependency; 403 where a scope is needed; 404 for an agent's own routes (an unknown
 * agent, an API key or another tenant's secret all look alike).
 */
function commonResponses(op: Operation): Record<number, string> {
  if (op.open) return {};
  const unauthenticated =
    op.scope && op.agentAuth
      ? '`unauthenticated` (neither key nor secret), `invalid_api_key` or `invalid_secret`'
      : op.scope
        ? '`unauthenticated` (no key) or `invalid_api_key`'
        : op.agentAuth
          ? '`unauthenticated` (no secret), `invalid_secret`, or `invalid_api_key` (an unknown `rk_…` key)'
          : '`invalid_api_key` (an unknown `rk_…` key)';
  return {
    400: "`invalid_request` (`details`: each invalid field's `location` and `message`), `invalid_json` or `request_aborted`",
    401: unauthenticated,
    ...(op.scope ? { 403: '`insufficient_scope` (`details.required_scope`)' } : ({} as Record<number, string>)),
    ...(op.agentAuth && op.params?.shape.agent_id
      ? { 404: "`agent_not_found` (also for an API key or another tenant's secret)" }
      : ({} as Record<number, string>)),
    413: '`payload_too_large`: the body is over `MAX_BODY_BYTES`',
    415: '`unsupported_charset` or `unsupported_encoding`',
    429: "`rate_limited`: the key's tenant is over `RATE_LIMIT_PER_SECOND` (burst `RATE_LIMIT_BURST`), or this address failed authentication too often (`UNAUTHENTICATED_RATE_LIMIT_PER_SECOND`)",
    503: '`unavailable`: the database or Temporal cannot be reached; retry',
  };
}

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function parameters(op: Operation) {
  const inPath = Object.entries(op.params?.shape ?? {}).map(([name, schema]) => ({
    name,
    in: 'path',
    required: true,
    schema: jsonSchema(schema as z.ZodType),
  }));
  const query = op.query
    ? (jsonSchema(op.query) as { properties?: Record<string, object>; required?: string[] })
    : undefined;
  const inQuery = Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: query?.required?.includes(name) ?? false,
    schema,
  }));
  return [...inPath, ...inQuery];
}

function description(op: Operation): string {
  const auth = op.scope
    ? `Needs an API key with the \`${op.scope}\` scope${op.agentAuth ? ', or the agent secret' : ''}.`
    : '';
  return [op.details, auth].filter(Boolean).join(' ');
}

function response(op: Operation, status: number, description: string) {
  const schema = op.returns?.[status];
  if (schema)
    return {
      description,
      content: {
        'application/json': {
          schema: z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12' }),
        },
      },
    };
  if (status >= 400)
    return {
      description,
      content: { 'application/json': { schema: ERROR_REF } },
      ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
    };
  if (status === 204) return { description };
  return {
    description,
    content: { [op.mediaType ?? 'application/json']: { schema: op.mediaType ? { type: 'string' } : {} } },
  };
}

function operationObject(op: Operation) {
  const common = commonResponses(op);
  const statuses = { ...common, ...op.responses };
  const responses = Object.fromEntries(
    Object.entries(statuses).map(([status, text]) => {
      const links = op.links?.[Number(status)];
      const answer = response(op, Number(status), text);
      // `x-common`: an answer every authenticated operation shares (the docs table states those once).
      return [
        status,
        { ...answer, ...(links ? { links } : {}), ...(Number(status) in op.responses ? {} : { 'x-common': true }) },
      ];
    }),
  );
  return {
    summary: op.summary,
    operationId: operationId(op.method, op.path),
    ...(op.scope || op.agentAuth
      ? { security: [...(op.scope ? [{ apiKey: [op.scope] }] : []), ...(op.agentAuth ? [{ agentSecret: [] }] : [])] }
      : {}),
    ...(description(op) ? { description: description(op) } : {}),
    parameters: parameters(op),
    ...(op.body
      ? {
          requestBody: {
            required: !(op.body instanceof z.ZodOptional),
            content: { 'application/json': { schema: jsonSchema(op.body) } },
          },
        }
      : {}),
    responses,
  };
}

export function openApiDocument(publicUrl: string) {
  const paths: Record<string, Record<string, object>> = {};
  for (const op of OPERATIONS) (paths[openApiPath(op.path)] ??= {})[op.method] = operationObject(op);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent-Reach',
      version: '0.1.0',
      description: 'Find an agent, deliver durably, confirm it was processed.',
    },
    servers: [{ url: publicUrl }],
    components: {
      schemas: { Error: ERROR_BODY },
      securitySchemes: {
        agentSecret: { type: 'http', scheme: 'bearer', description: 'The agent secret (ars_…)' },
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: "A caller's API key (rk_…); its tenant and scopes decide what it may do",
        },
      },
    },
    paths,
  };
}

/** A small page listing the operations (no external assets: the api may run offline). */
export function docsPage(): string {
  const rows = OPERATIONS.map(
    (op) =>
      `<tr><td><code>${op.method.toUpperCase()}</code></td><td><code>${op.path}</code></td><td>${op.summary}${op.agentAuth ? ' 🔑' : ''}${op.scope ? ` (key: ${op.scope})` : ''}</td></tr>`,
  ).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Agent-Reach API</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}td{padding:.2rem .8rem;border-bottom:1px solid #ddd}</style></head>
<body><h1>Agent-Reach API</h1><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). 🔑 = agent secret; (key: scope) = an API key with that scope as <code>Authorization: Bearer rk_…</code>.</p>
<table>${rows}</table></body></html>`;
}
