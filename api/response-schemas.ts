/**
 * The shapes of the api's success bodies, for the OpenAPI document (and Schemathesis's response checks). They name
 * the fields a client can rely on; objects stay open (`looseObject`), so an added field is not a breaking change.
 * Error bodies have one shape, `ERROR_BODY` in openapi.ts.
 */
import { z } from 'zod';
import { CHAIN_STATES, STEP_STATES } from '../chains/chain';
import { MESSAGE_STATES } from '../messages/message';
import { TRANSPORTS } from '../rules/transport';

const timestamp = z.string().describe('ISO 8601 date-time');
const state = z.enum(MESSAGE_STATES);

export const healthResponse = z.looseObject({ status: z.literal('ok') });
export const pushReceivedResponse = z.looseObject({ received: z.literal(true) });
export const readinessResponse = z.looseObject({
  status: z.enum(['ready', 'not_ready']),
  database: z.boolean(),
  temporal: z.boolean(),
});
export const anyObject = z.looseObject({});

const instance = z.looseObject({
  instance_id: z.string(),
  transport: z.enum(TRANSPORTS),
  endpoint: z.string().optional(),
  state: z.enum(['healthy', 'busy', 'draining']),
  load: z.looseObject({ in_flight: z.number(), qps: z.number() }),
  online: z.boolean(),
});

export const agentResponse = z.looseObject({
  agent_id: z.string(),
  tenant: z.string(),
  name: z.string(),
  revision: z.number().int(),
  capabilities: z.array(z.looseObject({ name: z.string() })),
  instances: z.array(instance),
  online: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
});

const heartbeatAdvice = z.looseObject({ interval_ms: z.number().int(), offline_after_ms: z.number().int() });

export const registeredResponse = z.looseObject({
  agent_id: z.string(),
  secret: z.string(),
  signing_secret: z.string(),
  agent: agentResponse,
  heartbeat: heartbeatAdvice,
});
export const reregisteredResponse = z.looseObject({
  agent_id: z.string(),
  reregistered: z.literal(true),
  agent: agentResponse,
  heartbeat: heartbeatAdvice,
});
export const updatedAgentResponse = z.looseObject({ agent: agentResponse, heartbeat: heartbeatAdvice });
export const importedResponse = z.looseObject({
  agent_id: z.string(),
  secret: z.string().optional(),
  signing_secret: z.string().optional(),
  reregistered: z.literal(true).optional(),
  a2a_version: z.string(),
  agent: agentResponse,
});
export const agentPageResponse = z.looseObject({ items: z.array(agentResponse), next_cursor: z.string().optional() });
export const rotatedSecretResponse = z.looseObject({
  agent_id: z.string(),
  secret: z.string(),
  signing_secret: z.string(),
  previous_secret_valid_until: timestamp,
});
export const heartbeatResponse = z.looseObject({
  status: z.literal('ok'),
  instance,
  transitions: z.array(z.unknown()),
  next_heartbeat_in_ms: z.number().int(),
  offline_after_ms: z.number().int(),
});
export const eventsResponse = z.looseObject({ items: z.array(z.looseObject({ type: z.string(), at: timestamp })) });

const links = z.looseObject({ self: z.string() });
export const messageStatusResponse = z.looseObject({
  message_id: z.string(),
  trace_id: z.string(),
  tenant: z.string(),
  state,
  target: z.looseObject({ agent_id: z.string() }),
  attempts: z.array(z.unknown()),
  accepted_at: timestamp,
  updated_at: timestamp,
  links,
});
export const messageListResponse = z.looseObject({
  items: z.array(z.looseObject({ message_id: z.string(), state: z.string(), started_at: timestamp })),
});
export const cancelledResponse = z.looseObject({
  message_id: z.string(),
  cancelled: z.literal(true),
  state: z.literal('cancelled'),
});
export const routeDecisionResponse = z.looseObject({
  kind: z.enum(['routed', 'input_required', 'refused']),
  explanation: z.looseObject({}),
});
const headStatus = z.looseObject({
  revision: z.string(),
  capabilities: z.number().int(),
  changed_at: timestamp,
  ready_at: timestamp.optional(),
  full_at: timestamp
    .optional()
    .describe(
      'When every head serves (the late ones joined); absent while they train, or if they failed or were discarded',
    ),
  heads: z.array(z.string()).optional().describe('The models whose heads decide now'),
  late: z
    .looseObject({
      models: z.array(z.string()),
      state: z.enum(['training', 'joined', 'failed', 'discarded']),
      error: z.string().optional(),
    })
    .optional()
    .describe('The heads that join once the first ones serve (models after the first two), and how far they are'),
  calibration: z.looseObject({}).optional(),
  time_guard: z
    .string()
    .optional()
    .describe(
      "Only when the training's time guard cut a training short: this head, and its operating point, then depend on the machine's load",
    ),
});
export const misrouteResponse = z.looseObject({
  misroute_id: z.string(),
  capability: z.string(),
  text: z.string(),
  reports: z.number().int(),
  message_ids: z.array(z.string()),
  state: z.enum(['pending', 'applied', 'dismissed']),
  first_reported_at: timestamp,
  last_reported_at: timestamp,
  decided_at: timestamp.optional(),
  decided_by: z.string().optional(),
});
export const misrouteListResponse = z.looseObject({ items: z.array(misrouteResponse) });
export const routerStatusResponse = z.looseObject({
  provider: z.string(),
  state: z.enum(['ready', 'training', 'none', 'failed']),
  serving: headStatus.optional(),
  training: headStatus.optional(),
  error: z.string().optional(),
  cards: z
    .looseObject({
      capabilities: z.number().int(),
      examples: z.looseObject({ min: z.number().int(), median: z.number(), max: z.number().int() }),
      few_examples: z.looseObject({
        under: z.number().int(),
        count: z.number().int(),
        capabilities: z.array(z.looseObject({ capability: z.string(), examples: z.number().int() })),
      }),
    })
    .optional()
    .describe(
      "The catalogue's capabilities by their examples (absent for an empty catalogue): the head learns each capability from them, so those with fewest are the ones to write more for",
    ),
});
export const traceResponse = z.looseObject({
  trace_id: z.string(),
  messages: z.array(
    z.looseObject({
      message_id: z.string(),
      state,
      agent_id: z.string(),
      capability: z.string(),
      attempts: z.number().int(),
      accepted_at: timestamp,
      links,
    }),
  ),
});

const keyView = z.looseObject({
  key_id: z.string(),
  tenant: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  source: z.enum(['api', 'config']),
  /** `legacy`: created before key proofs bound the body sent; rotate it (docs/security.md). */
  proofs: z.enum(['bound', 'legacy']),
});
export const createdKeyResponse = keyView.extend({ key: z.string() });
export const keyListResponse = z.looseObject({ items: z.array(keyView) });
export const receiptResponse = z.looseObject({
  message_id: z.string(),
  applied: z.boolean(),
  duplicate: z.boolean(),
  state,
});

const sentMessage = {
  message_id: z.string(),
  state: z.enum(STEP_STATES),
  result: z.unknown().optional(),
  started_at: timestamp.optional(),
  ended_at: timestamp.optional(),
  error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
};
export const chainStatusResponse = z.looseObject({
  chain_id: z.string(),
  tenant: z.string(),
  state: z.enum(CHAIN_STATES),
  steps: z.array(
    z.looseObject({
      id: z.string(),
      after: z.array(z.string()).optional(),
      ...sentMessage,
      compensation: z.looseObject(sentMessage).optional(),
    }),
  ),
  started_at: timestamp,
  ended_at: timestamp.optional(),
});
/** A listed chain: its status without what the agents answered (no step results, no error messages). */
const sentSummary = {
  message_id: z.string(),
  state: z.enum(STEP_STATES),
  started_at: timestamp.optional(),
  ended_at: timestamp.optional(),
};
export const chainPageResponse = z.looseObject({
  items: z.array(
    z.looseObject({
      chain_id: z.string(),
      tenant: z.string(),
      state: z.enum(CHAIN_STATES),
      steps: z.array(
        z.looseObject({
          id: z.string(),
          after: z.array(z.string()).optional(),
          ...sentSummary,
          compensation: z.looseObject(sentSummary).optional(),
        }),
      ),
      started_at: timestamp,
      ended_at: timestamp.optional(),
      error: z.looseObject({ code: z.string(), step: z.string().optional() }).optional(),
    }),
  ),
  next_cursor: z.string().optional(),
});
export const chainPlanResponse = z.looseObject({
  chain: z.looseObject({
    steps: z.array(
      z.looseObject({
        id: z.string(),
        target: z.looseObject({ agent_id: z.string(), capability: z.string() }),
        after: z.array(z.string()),
      }),
    ),
  }),
  steps: z.array(
    z.looseObject({
      id: z.string(),
      text: z.string(),
      planner: z.string(),
      accepted: z.boolean(),
      capability: z.string(),
    }),
  ),
  unplanned: z.array(
    z.looseObject({
      code: z.enum(['refused', 'condition_not_understood', 'input_required']),
      text: z.string(),
      message: z.string(),
    }),
  ),
  runnable: z.boolean(),
  check: z.looseObject({ ok: z.boolean() }),
  started: z.boolean().optional(),
});
export const chainCancelledResponse = z.looseObject({
  chain_id: z.string(),
  cancelled: z.literal(true),
  state: z.literal('cancelled'),
});
