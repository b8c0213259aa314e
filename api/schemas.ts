/** Request bodies and parameters of the public API, as zod schemas (the single source of their shape). */
import { z } from 'zod';
import { SEARCH_STATES } from '../catalogue/agent-queries';
import { AGENT_ID_PATTERN } from '../rules/ids';
import { KEY_ID_PATTERN, scopeSchema } from '../rules/api-key';
import { MESSAGE_STATES } from '../messages/message';
import { TRANSPORTS } from '../rules/transport';
import { label, prose } from '../rules/text';
import {
  capabilityName,
  httpUrl,
  messageId,
  needsTargetOrIntent,
  paramsSchema,
  routeTarget,
  sessionId,
  targetOrIntent,
  targetOrIntentSchema,
} from '../messages/message-schema';
import { chainId } from '../chains/chain-schema';
import { CHAIN_STATES } from '../chains/chain';
import { MAX_PAGE_TOKEN_CHARS } from '../util/page-token';

/** The body of `POST /v1/messages` (kept in rules/ so the worker's `sendMessage` workflow validates with it too). */
export {
  capabilityName,
  paramsSchema,
  replyBody,
  sendMessageBody,
  type SendMessageBody,
} from '../messages/message-schema';

const tag = label(64);
const jsonSchemaObject = z.record(z.string(), z.unknown());

export const capabilityInput = z.strictObject({
  name: capabilityName,
  description: prose(4000).optional(),
  tags: z.array(tag).max(50).optional(),
  parameters: jsonSchemaObject.optional(),
  returns: jsonSchemaObject.optional(),
  examples: z.array(label(1000)).max(50).optional(),
  /** Requests that sound like this capability but that it does not handle: the router learns to refuse them. */
  counter_examples: z.array(label(1000)).max(50).optional(),
  /** How long to wait for the processed receipt after delivery, in ms. */
  ack_timeout_ms: z
    .number()
    .int()
    .min(100)
    .max(7 * 24 * 3600 * 1000)
    .optional(),
  /** Delivery attempts for this capability before the message fails (default DELIVERY_MAX_ATTEMPTS). */
  max_attempts: z.number().int().min(1).max(100).optional(),
  /** Longest time to keep trying to deliver, from acceptance, in ms; then the message fails. */
  max_delivery_ms: z
    .number()
    .int()
    .min(1000)
    .max(30 * 24 * 3600 * 1000)
    .optional(),
  /** Deliveries of this capability one instance takes at once. */
  max_concurrency: z.number().int().min(1).max(100_000).optional(),
  /**
   * Who may reach it: callers holding one of `scopes`, the API keys `key_ids`, the token subjects `subjects` (their
   * `sub` claim) or token callers in one of `groups` (docs/security.md). Absent → every caller of the tenant.
   */
  acl: z
    .strictObject({
      scopes: z.array(scopeSchema).min(1).max(20).optional(),
      key_ids: z.array(z.string().regex(KEY_ID_PATTERN, 'a key id is 12 hex digits')).min(1).max(100).optional(),
      subjects: z.array(z.string().min(1).max(255)).min(1).max(100).optional(),
      groups: z.array(z.string().min(1).max(255)).min(1).max(100).optional(),
    })
    .refine((acl) => acl.scopes || acl.key_ids || acl.subjects || acl.groups, {
      message: 'give scopes, key_ids, subjects or groups (or leave acl out)',
    })
    .meta({
      anyOf: [
        { required: ['scopes'] },
        { required: ['key_ids'] },
        { required: ['subjects'] },
        { required: ['groups'] },
      ],
    })
    .optional(),
  /** Kept off the agent's public A2A card: only a key's card (which needs a key that may reach it) shows it. */
  private: z.boolean().optional(),
});

const instanceId = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, '1–64 letters, digits and ._-');
const instanceState = z.enum(['healthy', 'busy', 'draining']);

export const instanceInput = z
  .strictObject({
    instance_id: instanceId.optional(),
    transport: z.enum(TRANSPORTS).optional(),
    endpoint: httpUrl.optional(),
    state: instanceState.optional(),
  })
  .refine((i) => i.transport === 'websocket' || i.endpoint, {
    message: 'an http or a2a instance needs an endpoint',
    path: ['endpoint'],
  })
  .meta({
    anyOf: [{ required: ['endpoint'] }, { required: ['transport'], properties: { transport: { const: 'websocket' } } }],
  });

export const registerAgentBody = z
  .strictObject({
    name: label(128),
    version: label(64).optional(),
    description: prose(4000).optional(),
    tags: z.array(tag).max(50).optional(),
    endpoint: httpUrl.optional(),
    instances: z.array(instanceInput).min(1).max(50).optional(),
    /** At most MAX_CAPABILITIES_PER_AGENT (checked by the route; 1000 is the hard ceiling). */
    capabilities: z.array(capabilityInput).min(1).max(1000),
  })
  .refine((body) => !(body.endpoint && body.instances), {
    message: 'give either endpoint or instances, not both',
    path: ['instances'],
  })
  .refine((body) => body.endpoint || body.instances, {
    message: 'an endpoint (or instances) is required',
    path: ['endpoint'],
  })
  .meta({
    oneOf: [{ required: ['endpoint'] }, { required: ['instances'] }],
    examples: [
      {
        name: 'echo-agent',
        description: 'Echoes what it is sent',
        instances: [{ instance_id: 'ws-1', transport: 'websocket' }],
        capabilities: [{ name: 'echo', description: 'Echo the payload back', examples: ['echo this back'] }],
      },
    ],
  });
export type RegisterAgentBody = z.output<typeof registerAgentBody>;

const agentId = z.string().regex(AGENT_ID_PATTERN, 'not an agent id');
export const agentIdParams = z.strictObject({ agent_id: agentId });
/** An A2A agent's push notification about one message (api/a2a/push.ts). */
export const pushParams = z.strictObject({ agent_id: agentId, message_id: messageId });

export const heartbeatBody = z.strictObject({
  instance_id: instanceId,
  state: instanceState.optional(),
  load: z
    .strictObject({
      in_flight: z.number().int().min(0).max(1_000_000).optional(),
      qps: z.number().min(0).max(1_000_000).optional(),
    })
    .optional(),
  /** A new address for this instance (it moved), or the address of a new instance joining. */
  endpoint: httpUrl.optional(),
  transport: z.enum(TRANSPORTS).optional(),
});

export const searchAgentsQuery = z.strictObject({
  tag: label(64).optional(),
  capability: label(64).optional(),
  state: z.enum(SEARCH_STATES).optional(),
  q: label(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: agentId.optional(),
});

export const eventsQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(1000).default(100) });

export const importAgentBody = z
  .strictObject({ card: z.record(z.string(), z.unknown()).optional(), url: httpUrl.optional() })
  .refine((b) => Boolean(b.card) !== Boolean(b.url), { message: 'give either card or url', path: ['card'] })
  .meta({ oneOf: [{ required: ['card'] }, { required: ['url'] }] });

export const agentCardQuery = z.strictObject({ a2a_version: z.enum(['1.0', '0.3']).default('1.0') });

/** `POST /v1/route`: what the router would do with a message, without sending anything. */
export const routeBody = z
  .strictObject({
    intent: prose(10_000).optional(),
    target: routeTarget.optional(),
    session_id: sessionId.optional(),
    params: paramsSchema.optional(),
  })
  .refine(needsTargetOrIntent, targetOrIntent)
  .meta(targetOrIntentSchema);
export type RouteBody = z.output<typeof routeBody>;

/** `POST /v1/chains/plan`: one free-text request → a proposed chain (docs/chains.md, "Planning a chain"). */
export const chainPlanBody = z.strictObject({
  intent: prose(10_000),
  /** Values the plan's chain input starts with (what an `input_required` asked for). */
  input: paramsSchema.optional(),
  /** Carried into the proposed chain body (and used by `?run=true`). */
  chain_id: chainId.optional(),
  reply_to: z.strictObject({ url: httpUrl }).optional(),
});
export type ChainPlanBody = z.output<typeof chainPlanBody>;
export const chainPlanQuery = z.strictObject({ run: z.enum(['true', 'false']).optional() });

export const messageIdParams = z.strictObject({ message_id: messageId });

export const traceParams = z.strictObject({ trace_id: z.string().regex(/^[0-9a-f]{32}$/, '32 lowercase hex digits') });

export const listMessagesQuery = z.strictObject({
  state: z.enum(MESSAGE_STATES).optional(),
  agent_id: agentId.optional(),
  trace_id: z
    .string()
    .regex(/^[0-9a-f]{32}$/, '32 lowercase hex digits')
    .optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** `GET /v1/chains`: the tenant's chains, by state, in pages (each listed chain's status is read: at most 100). */
export const listChainsQuery = z.strictObject({
  state: z.enum(CHAIN_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z
    .string()
    .max(MAX_PAGE_TOKEN_CHARS)
    .regex(/^[A-Za-z0-9_-]+$/, 'the next_cursor of the previous page')
    .optional(),
});

/** `GET /v1/router/misroutes`: the tenant's misroute reports, newest first. */
export const listMisroutesQuery = z.strictObject({
  state: z.enum(['pending', 'applied', 'dismissed']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const misrouteParams = z.strictObject({
  misroute_id: z.string().regex(/^[A-Za-z0-9_-]{32}$/, 'a misroute id is 32 base64url characters'),
});

/** `POST /v1/router/misroutes/:misroute_id`: an operator applies a report as a lesson, or dismisses it. */
export const decideMisrouteBody = z.strictObject({ state: z.enum(['applied', 'dismissed']) });

/** `POST /v1/router/misroutes`: an operator teaches the router that a request is not for a capability. */
export const teachMisrouteBody = z.strictObject({
  agent_id: agentId,
  capability: capabilityName,
  text: label(1000),
});

export const cancelBody = z.strictObject({ reason: prose(1000).optional() }).optional();

/** `?wait=30s` (or `1500ms`): how long POST /v1/messages may hold the request for the outcome; at most 120 s. */
export const sendMessageQuery = z.strictObject({
  wait: z
    .string()
    .regex(/^\d{1,6}(ms|s)$/, 'a duration such as 30s or 1500ms')
    // 0–120000 ms or 0–120 s, as a pattern so the OpenAPI document states the limit too.
    .regex(/^0*(?:\d{1,5}|1[01]\d{4}|120000)ms$|^0*(?:\d{1,2}|1[01]\d|120)s$/, 'at most 120s')
    .transform((w) => (w.endsWith('ms') ? Number(w.slice(0, -2)) : Number(w.slice(0, -1)) * 1000))
    .optional(),
});

export const redriveBody = z.strictObject({ deadline: z.iso.datetime({ offset: true }).optional() }).optional();

export const createKeyBody = z
  .strictObject({
    /** A label for people. */
    name: label(128).optional(),
    /** `read`, `send`, `register`, `admin`, or custom scopes that capability ACLs name. */
    scopes: z.array(scopeSchema).min(1).max(20),
  })
  .meta({ examples: [{ name: 'reporting', scopes: ['read'] }] });

export const keyIdParams = z.strictObject({ key_id: z.string().regex(KEY_ID_PATTERN, 'a key id is 12 hex digits') });

/** `/mcp?capability_tools=true|false`: whether the session lists each reachable capability as a tool (default MCP_CAPABILITY_TOOLS). */
export const mcpQuery = z.strictObject({
  capability_tools: z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .optional(),
  /** The agent face (api/mcp/agent-face.ts): one agent's capabilities under their own names. */
  agent: label(128).optional(),
});
