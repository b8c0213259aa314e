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
  createKeyBody,
  keyIdParams,
  eventsQuery,
  heartbeatBody,
  importAgentBody,
  listMessagesQuery,
  messageIdParams,
  redriveBody,
  registerAgentBody,
  searchAgentsQuery,
  sendMessageBody,
  routeBody,
  sendMessageQuery,
  traceParams,
} from './schemas';

type Method = 'get' | 'post' | 'put' | 'delete';

export interface Operation {
  method: Method;
  /** Express-style path, e.g. `/v1/agents/:agent_id`. */
  path: string;
  summary: string;
  /** Needs the agent's secret as a bearer token. */
  agentAuth?: boolean;
  /** Needs an API key (bearer `rk_…`) holding this scope. */
  scope?: BuiltInScope | typeof METRICS_SCOPE;
  params?: z.ZodObject;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Status → description. */
  responses: Record<number, string>;
}

export const OPERATIONS: Operation[] = [
  { method: 'get', path: '/healthz', summary: 'Liveness', responses: { 200: 'The process answers' } },
  { method: 'get', path: '/readyz', summary: 'Readiness: database and Temporal reachable', responses: { 200: 'Ready', 503: 'Not ready' } },
  { method: 'get', path: '/openapi.json', summary: 'This document', responses: { 200: 'OpenAPI 3.1' } },
  { method: 'get', path: '/metrics', scope: 'metrics', summary: "This replica's Prometheus metrics", responses: { 200: 'Prometheus text format' } },
  { method: 'get', path: '/docs', summary: 'A page listing the operations', responses: { 200: 'HTML' } },
  { method: 'get', path: '/dashboard', summary: 'The operator dashboard', responses: { 200: 'HTML' } },
  { method: 'post', path: '/v1/agents', scope: 'register', agentAuth: true, summary: 'Register an agent (re-register with its secret)', body: registerAgentBody, responses: { 201: 'Registered: agent_id, secret and signing_secret (shown once)', 200: 'Re-registered', 409: 'Name taken', 422: 'Duplicate capability or invalid JSON Schema' } },
  { method: 'get', path: '/v1/agents', scope: 'read', summary: 'List and search agents', query: searchAgentsQuery, responses: { 200: '{items, next_cursor?}' } },
  { method: 'post', path: '/v1/agents/import', scope: 'register', summary: 'Import an A2A Agent Card (inline or from a URL)', body: importAgentBody, responses: { 201: 'Registered', 422: 'Invalid or unreachable card' } },
  { method: 'get', path: '/v1/agents/:agent_id', scope: 'read', summary: 'Read an agent and its instances', params: agentIdParams, responses: { 200: 'The agent', 404: 'Unknown agent' } },
  { method: 'put', path: '/v1/agents/:agent_id', summary: 'Replace the card (new revision)', agentAuth: true, params: agentIdParams, body: registerAgentBody, responses: { 200: 'Updated', 409: 'Name taken' } },
  { method: 'delete', path: '/v1/agents/:agent_id', summary: 'Deregister', agentAuth: true, params: agentIdParams, responses: { 204: 'Deregistered' } },
  { method: 'post', path: '/v1/agents/:agent_id/secret', summary: 'Rotate the secret (the old one stays valid for an overlap window)', agentAuth: true, params: agentIdParams, responses: { 200: 'New secret and signing secret' } },
  { method: 'post', path: '/v1/agents/:agent_id/heartbeat', summary: 'Heartbeat of one instance', agentAuth: true, params: agentIdParams, body: heartbeatBody, responses: { 200: 'Alive', 404: 'Unknown agent or instance' } },
  { method: 'get', path: '/v1/agents/:agent_id/events', scope: 'read', summary: 'Transitions of the agent, newest first', params: agentIdParams, query: eventsQuery, responses: { 200: '{items}' } },
  { method: 'get', path: '/v1/agents/:agent_id/agent-card.json', scope: 'read', summary: 'The agent as an A2A Agent Card', params: agentIdParams, query: agentCardQuery, responses: { 200: 'A2A card' } },
  { method: 'post', path: '/v1/messages', scope: 'send', summary: 'Send a message (optionally waiting for its outcome)', query: sendMessageQuery, body: sendMessageBody, responses: { 202: 'Accepted (routed by intent when no capability is named)', 200: 'The existing message (same id and body), or the outcome within the wait', 409: 'Same id, other body', 404: 'Unknown agent', 422: 'Unknown capability, bad deadline, reply_to unavailable, or refused by the router (no_route, no_eligible_capability, input_required: recorded as rejected)' } },
  { method: 'post', path: '/v1/route', scope: 'send', summary: 'Dry run of the intent router: its decision and explanation, nothing sent', body: routeBody, responses: { 200: '{kind: routed | input_required | refused, target?, params?, missing?, code?, explanation}' } },
  { method: 'get', path: '/v1/messages', scope: 'read', summary: 'List messages by state, agent or trace', query: listMessagesQuery, responses: { 200: '{items}' } },
  { method: 'get', path: '/v1/messages/:message_id', scope: 'read', summary: 'Status of a message', params: messageIdParams, responses: { 200: 'Status', 404: 'Unknown message', 503: 'In flight and no worker answers' } },
  { method: 'post', path: '/v1/messages/:message_id/cancel', scope: 'send', summary: 'Cancel a message', params: messageIdParams, body: cancelBody, responses: { 200: 'Cancelled', 409: 'Already ended' } },
  { method: 'post', path: '/v1/messages/:message_id/redrive', scope: 'send', summary: 'Redrive a failed or expired message', params: messageIdParams, body: redriveBody, responses: { 202: 'Redriven', 409: 'Not a dead letter' } },
  { method: 'get', path: '/v1/traces/:trace_id', scope: 'read', summary: 'The messages of a trace', params: traceParams, responses: { 200: '{trace_id, messages}', 404: 'Unknown trace' } },
  { method: 'post', path: '/v1/keys', scope: 'admin', summary: "Create an API key in the caller's tenant (shown once)", body: createKeyBody, responses: { 201: '{key_id, key, tenant, name, scopes}' } },
  { method: 'get', path: '/v1/keys', scope: 'admin', summary: "The tenant's API keys (never the keys themselves)", responses: { 200: '{items}' } },
  { method: 'delete', path: '/v1/keys/:key_id', scope: 'admin', summary: 'Revoke an API key', params: keyIdParams, responses: { 204: 'Revoked', 404: 'Unknown key', 409: 'A key from API_KEYS' } },
  { method: 'post', path: '/v1/callback', summary: "The agent's receipt", agentAuth: true, body: callbackBody, responses: { 200: '{applied, duplicate, state}', 403: 'Not your message', 404: 'Unknown message' } },
];

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });

const ERROR_BODY = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} },
    },
  },
};

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
  const query = op.query ? (jsonSchema(op.query) as { properties?: Record<string, object>; required?: string[] }) : undefined;
  const inQuery = Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: query?.required?.includes(name) ?? false,
    schema,
  }));
  return [...inPath, ...inQuery];
}

function operationObject(op: Operation) {
  const responses = Object.fromEntries(
    Object.entries(op.responses).map(([status, description]) => [
      status,
      Number(status) >= 400 ? { description, content: { 'application/json': { schema: ERROR_BODY } } } : { description },
    ]),
  );
  return {
    summary: op.summary,
    operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+/g, '_')}`,
    ...(op.scope || op.agentAuth ? { security: [...(op.scope ? [{ apiKey: [op.scope] }] : []), ...(op.agentAuth ? [{ agentSecret: [] }] : [])] } : {}),
    ...(op.scope ? { description: `Needs an API key with the \`${op.scope}\` scope${op.agentAuth ? ', or the agent secret' : ''}.` } : {}),
    parameters: parameters(op),
    ...(op.body ? { requestBody: { required: !(op.body instanceof z.ZodOptional), content: { 'application/json': { schema: jsonSchema(op.body) } } } } : {}),
    responses: { ...responses, 400: { description: 'Invalid request', content: { 'application/json': { schema: ERROR_BODY } } } },
  };
}

export function openApiDocument(publicUrl: string) {
  const paths: Record<string, Record<string, object>> = {};
  for (const op of OPERATIONS) (paths[openApiPath(op.path)] ??= {})[op.method] = operationObject(op);
  return {
    openapi: '3.1.0',
    info: { title: 'Agent-Reach', version: '0.1.0', description: 'Find an agent, deliver durably, confirm it was processed.' },
    servers: [{ url: publicUrl }],
    components: {
      securitySchemes: {
        agentSecret: { type: 'http', scheme: 'bearer', description: 'The agent secret (ars_…)' },
        apiKey: { type: 'http', scheme: 'bearer', description: "A caller's API key (rk_…); its tenant and scopes decide what it may do" },
      },
    },
    paths,
  };
}

/** A small page listing the operations (no external assets: the api may run offline). */
export function docsPage(): string {
  const rows = OPERATIONS.map(
    (op) => `<tr><td><code>${op.method.toUpperCase()}</code></td><td><code>${op.path}</code></td><td>${op.summary}${op.agentAuth ? ' 🔑' : ''}${op.scope ? ` (key: ${op.scope})` : ''}</td></tr>`,
  ).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Agent-Reach API</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}td{padding:.2rem .8rem;border-bottom:1px solid #ddd}</style></head>
<body><h1>Agent-Reach API</h1><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). 🔑 = agent secret; (key: scope) = an API key with that scope as <code>Authorization: Bearer rk_…</code>.</p>
<table>${rows}</table></body></html>`;
}
