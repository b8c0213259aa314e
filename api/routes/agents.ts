/** The catalogue API: register, search, read, update, deregister, rotate the secret, read events. */
import { Router, type Request, type Response } from 'express';
import type { AgentCardInput } from '../../catalogue/card';
import type { Catalogue } from '../../catalogue/catalogue';
import { checkJsonSchema } from '../../catalogue/json-schema';
import type { AgentDoc } from '../../store/agents';
import { agentView, eventView } from '../../catalogue/views';
import { agentBySecret, bearerSecret, requireAgent } from '../agent-auth';
import { callerOf, requireCaller } from '../caller-auth';
import { cardEndpoints, requireAllowedEndpoints, type EndpointGuard } from '../endpoint-check';
import { ApiError } from '../errors';
import { agentIdParams, eventsQuery, registerAgentBody, searchAgentsQuery } from '../schemas';
import { parseInput } from '../validate';

/**
 * Semantic checks zod cannot make: at most `maxCapabilities` capabilities, unique capability names, and
 * parameters/returns that are real JSON Schemas.
 */
export function checkCard(card: AgentCardInput, maxCapabilities: number, where = 'body'): void {
  if (card.capabilities.length > maxCapabilities) {
    throw new ApiError(422, 'too_many_capabilities', `An agent may declare at most ${maxCapabilities} capabilities`, {
      location: `${where}.capabilities`,
      count: card.capabilities.length,
      max: maxCapabilities,
    });
  }
  const names = card.capabilities.map((c) => c.name);
  const duplicates = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
  if (duplicates.length > 0) {
    throw new ApiError(422, 'duplicate_capability', 'Capability names must be unique within an agent', {
      names: duplicates,
    });
  }
  const problems = card.capabilities.flatMap((capability, index) =>
    (['parameters', 'returns'] as const).flatMap((field) => {
      const schema = capability[field];
      if (schema === undefined) return [];
      return checkJsonSchema(schema).map((p) => ({
        location: `${where}.capabilities.${index}.${field}${p.pointer ? `#${p.pointer}` : ''}`,
        message: p.message,
      }));
    }),
  );
  if (problems.length > 0)
    throw new ApiError(
      422,
      'invalid_schema',
      'A capability schema is not a valid JSON Schema (draft 2020-12)',
      problems,
    );
}

/** An agent of the tenant as a caller reads it (`GET /v1/agents/:id`, the MCP resource): each instance with its circuit. */
export async function agentCard(catalogue: Catalogue, tenant: string, agentId: string) {
  const found = await catalogue.queries.get(tenant, agentId);
  if (!found) return undefined;
  const view = agentView(found, catalogue.now(), catalogue.policy);
  const circuits = await catalogue.circuits.states(agentId);
  return {
    ...view,
    instances: view.instances.map((i) => ({ ...i, circuit: circuits.get(i.instance_id) ?? 'closed' })),
  };
}

export interface AgentRoutesDeps {
  catalogue: Catalogue;
  /** MAX_CAPABILITIES_PER_AGENT */
  maxCapabilities: number;
  endpoints: EndpointGuard;
}

/**
 * Who registers: a caller with the `register` scope registers in its tenant; an agent's own secret re-registers
 * that agent (same name) in its tenant, and nothing else.
 */
async function registrant(
  req: Request,
  res: Response,
  store: Catalogue['store'],
): Promise<{ tenant: string; agent?: AgentDoc; secret?: string }> {
  if (callerOf(res)) return { tenant: requireCaller(res, 'register').tenant };
  const secret = bearerSecret(req);
  if (!secret) {
    throw new ApiError(
      401,
      'unauthenticated',
      'Send an API key with the "register" scope (or, to re-register, the agent secret) as "Authorization: Bearer …"',
    );
  }
  const agent = await agentBySecret(req, store);
  return { tenant: agent.tenant, agent, secret };
}

function requireSameAgent(agent: AgentDoc | undefined, name: string): void {
  if (agent && agent.name !== name) {
    throw new ApiError(
      403,
      'register_needs_api_key',
      'An agent secret re-registers its own agent only; registering another needs an API key with the "register" scope',
    );
  }
}

/** The agent as registered now, with the heartbeat advice, as the register and update routes answer it. */
async function sendAgent(catalogue: Catalogue, res: Response, status: number, agent: AgentDoc, extra: object = {}) {
  const { queries, policy, now } = catalogue;
  const heartbeatAdvice = { interval_ms: policy.intervalMs, offline_after_ms: policy.ttlMs * policy.graceWindows };
  const found = await queries.get(agent.tenant, agent._id);
  if (!found) throw new ApiError(404, 'agent_not_found', `No agent ${agent._id}`);
  res.status(status).json({ ...extra, agent: agentView(found, now(), policy), heartbeat: heartbeatAdvice });
}

/** `POST /v1/agents`: register, or re-register with the agent's own secret. */
function addRegisterRoute(router: Router, deps: AgentRoutesDeps): void {
  const { store, heartbeats } = deps.catalogue;
  router.post('/v1/agents', async (req, res) => {
    const { tenant, agent, secret } = await registrant(req, res, store);
    const body = parseInput(registerAgentBody, req.body, 'body');
    requireSameAgent(agent, body.name);
    checkCard(body, deps.maxCapabilities);
    await requireAllowedEndpoints(deps.endpoints, cardEndpoints(body));
    const result = await store.register(tenant, body, secret);
    switch (result.kind) {
      case 'name_taken':
        throw new ApiError(
          409,
          'agent_name_taken',
          `An agent named "${body.name}" is already registered in this tenant`,
          {
            hint: 'to re-register it, send its secret as "Authorization: Bearer <secret>"',
          },
        );
      case 'reregistered':
        heartbeats.forget(result.agent._id);
        return sendAgent(deps.catalogue, res, 200, result.agent, { agent_id: result.agent._id, reregistered: true });
      case 'registered':
        res.location(`/v1/agents/${result.agent._id}`);
        return sendAgent(deps.catalogue, res, 201, result.agent, {
          agent_id: result.agent._id,
          secret: result.secret,
          signing_secret: result.signingSecret,
        });
    }
  });
}

/** A caller's reads: the search and one agent. */
function addReadRoutes(router: Router, deps: AgentRoutesDeps): void {
  const { index, policy, now } = deps.catalogue;
  router.get('/v1/agents', async (req, res) => {
    const { tenant } = requireCaller(res, 'read');
    const query = parseInput(searchAgentsQuery, req.query, 'query');
    // Served from this replica's in-memory copy, after checking the change counter: a change made through any
    // replica is visible to the next search.
    await index.ensureCurrent();
    const at = now();
    const page = index.search(tenant, query, at, policy);
    res.json({
      items: page.items.map((item) => agentView(item, at, policy)),
      ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}),
    });
  });

  router.get('/v1/agents/:agent_id', async (req, res) => {
    const { tenant } = requireCaller(res, 'read');
    const { agent_id } = parseInput(agentIdParams, req.params, 'params');
    const card = await agentCard(deps.catalogue, tenant, agent_id);
    if (!card) throw new ApiError(404, 'agent_not_found', `No agent ${agent_id}`);
    res.json(card);
  });
}

/** What an agent does with its own secret: update its card, deregister, rotate the secret. */
function addOwnRoutes(router: Router, deps: AgentRoutesDeps): void {
  const { store, heartbeats } = deps.catalogue;
  router.put('/v1/agents/:agent_id', async (req, res) => {
    const { agent_id } = parseInput(agentIdParams, req.params, 'params');
    const agent = await requireAgent(req, store, agent_id);
    const body = parseInput(registerAgentBody, req.body, 'body');
    checkCard(body, deps.maxCapabilities);
    await requireAllowedEndpoints(deps.endpoints, cardEndpoints(body));
    const updated = await store.update(agent, body);
    heartbeats.forget(agent._id);
    if (updated === 'name_taken')
      throw new ApiError(409, 'agent_name_taken', `An agent named "${body.name}" already exists in this tenant`);
    return sendAgent(deps.catalogue, res, 200, updated);
  });

  router.delete('/v1/agents/:agent_id', async (req, res) => {
    const { agent_id } = parseInput(agentIdParams, req.params, 'params');
    await store.deregister(await requireAgent(req, store, agent_id));
    heartbeats.forget(agent_id);
    res.status(204).end();
  });

  router.post('/v1/agents/:agent_id/secret', async (req, res) => {
    const { agent_id } = parseInput(agentIdParams, req.params, 'params');
    const rotated = await store.rotateSecret(await requireAgent(req, store, agent_id));
    res.json({
      agent_id,
      secret: rotated.secret,
      signing_secret: rotated.signingSecret,
      previous_secret_valid_until: rotated.previousValidUntil,
    });
  });
}

/** `GET /v1/agents/:agent_id/events`: the agent's recent events. */
function addEventsRoute(router: Router, deps: AgentRoutesDeps): void {
  const { queries } = deps.catalogue;
  router.get('/v1/agents/:agent_id/events', async (req, res) => {
    const { tenant } = requireCaller(res, 'read');
    const { agent_id } = parseInput(agentIdParams, req.params, 'params');
    const { limit } = parseInput(eventsQuery, req.query, 'query');
    if (!(await queries.get(tenant, agent_id))) throw new ApiError(404, 'agent_not_found', `No agent ${agent_id}`);
    res.json({ items: (await queries.events(tenant, agent_id, limit)).map(eventView) });
  });
}

export function agentRoutes(deps: AgentRoutesDeps): Router {
  const router = Router();
  addRegisterRoute(router, deps);
  addReadRoutes(router, deps);
  addOwnRoutes(router, deps);
  addEventsRoute(router, deps);
  return router;
}
