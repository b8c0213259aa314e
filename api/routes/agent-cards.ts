/** A2A Agent Cards: import one (inline or fetched from a URL) and export ours. */
import { Router } from 'express';
import { agentCardUrl, agentFacePath, exportA2aCard, importA2aCard } from '../../catalogue/a2a';
import type { TokenVerifier } from '../../identity/token-verifier';
import { servedCard } from '../a2a/cards';
import { probeA2aAgent } from '../../catalogue/a2a-probe';
import { canReach } from '../../rules/acl';
import type { Catalogue } from '../../catalogue/catalogue';
import type { Config } from '../../platform/config';
import { agentView } from '../../catalogue/views';
import { requireCaller } from '../caller-auth';
import { cardEndpoints, requireAllowedEndpoints, type EndpointGuard } from '../endpoint-check';
import { AnswerTooLargeError, readCappedText } from '../../platform/capped-body';
import { ApiError } from '../errors';
import { agentCardQuery, agentIdParams, importAgentBody } from '../schemas';
import { parseInput } from '../validate';
import { checkCard } from './agents';

const MAX_REDIRECTS = 3;

/**
 * Fetches a remote card with a time and size limit (read streamed, stopped at the cap); every failure is the caller's 4xx, not our 500. Redirects are
 * followed by hand, so each hop passes the endpoint policy.
 */
async function fetchCard(
  url: string,
  limits: { timeoutMs: number; maxBytes: number },
  fetchFn: typeof fetch,
  guard: EndpointGuard,
): Promise<unknown> {
  const { timeoutMs, maxBytes } = limits;
  let response: Response | undefined;
  for (let hop = 0, next = url; hop <= MAX_REDIRECTS; hop++) {
    await requireAllowedEndpoints(guard, [
      { location: hop === 0 ? 'body.url' : `body.url (redirect ${hop})`, url: next },
    ]);
    try {
      response = await fetchFn(next, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'manual',
      });
    } catch (error) {
      throw new ApiError(422, 'agent_card_unreachable', `Could not fetch ${next}: ${(error as Error).message}`);
    }
    const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
    if (!location) break;
    await response.body?.cancel();
    next = new URL(location, next).toString();
    response = undefined;
  }
  if (!response)
    throw new ApiError(422, 'agent_card_unreachable', `Fetching ${url} redirected more than ${MAX_REDIRECTS} times`);
  if (!response.ok)
    throw new ApiError(422, 'agent_card_unreachable', `Fetching ${url} answered HTTP ${response.status}`);
  let text: string;
  try {
    text = await readCappedText(response, maxBytes);
  } catch (error) {
    if (error instanceof AnswerTooLargeError) {
      throw new ApiError(
        422,
        'agent_card_too_large',
        `The card at ${url} is larger than ${maxBytes} bytes (AGENT_ANSWER_MAX_BYTES)`,
        { max_bytes: maxBytes },
      );
    }
    throw new ApiError(422, 'agent_card_unreachable', `Reading the card at ${url} failed: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(422, 'invalid_agent_card', `The card at ${url} is not JSON`);
  }
}

export interface AgentCardRoutesDeps {
  catalogue: Catalogue;
  config: Config;
  endpoints: EndpointGuard;
  fetch: typeof fetch;
  tokens?: TokenVerifier;
}

/** `POST /v1/agents/import`: an A2A card, inline or fetched from its URL, registered as an agent. */
function addImportRoute(router: Router, deps: AgentCardRoutesDeps): void {
  const { store, queries, policy, now } = deps.catalogue;
  router.post('/v1/agents/import', async (req, res) => {
    const { tenant } = requireCaller(res, 'register');
    const body = parseInput(importAgentBody, req.body, 'body');
    const url = body.url ? agentCardUrl(body.url) : undefined;
    const raw = url
      ? await fetchCard(
          url,
          { timeoutMs: deps.config.A2A_FETCH_TIMEOUT_MS, maxBytes: deps.config.AGENT_ANSWER_MAX_BYTES },
          deps.fetch,
          deps.endpoints,
        )
      : body.card;
    const imported = importA2aCard(raw);
    if (imported.kind === 'invalid')
      throw new ApiError(422, 'invalid_agent_card', 'The A2A agent card is invalid', imported.problems);
    checkCard(imported.input, deps.config.MAX_CAPABILITIES_PER_AGENT, 'card');
    await requireAllowedEndpoints(deps.endpoints, cardEndpoints(imported.input, 'card'));
    const source = {
      kind: 'a2a' as const,
      version: imported.specVersion,
      ...(url ? { url } : {}),
      ...(imported.cardJson ? { card_json: imported.cardJson } : {}),
    };
    // A card fetched from its URL just showed the agent alive; an inline one did not: it starts offline, probed now.
    const input = url
      ? imported.input
      : { ...imported.input, instances: imported.input.instances?.map((i) => ({ ...i, unconfirmed: true })) };
    const result = await store.register(tenant, input, undefined, source);
    if (result.kind === 'name_taken') {
      throw new ApiError(
        409,
        'agent_name_taken',
        `An agent named "${imported.input.name}" is already registered in this tenant`,
      );
    }
    let found = await queries.get(tenant, result.agent._id);
    if (found && !url && result.kind === 'registered') {
      // A probe that fails leaves the instance offline; the probe rounds try again.
      const probed = await probeA2aAgent(
        { heartbeats: deps.catalogue.heartbeats, fetch: deps.fetch, timeoutMs: deps.config.A2A_FETCH_TIMEOUT_MS },
        found,
      ).catch(() => undefined);
      if (probed?.alive) found = await queries.get(tenant, result.agent._id);
    }
    res.status(result.kind === 'registered' ? 201 : 200).json({
      agent_id: result.agent._id,
      ...(result.kind === 'registered'
        ? { secret: result.secret, signing_secret: result.signingSecret }
        : { reregistered: true }),
      a2a_version: imported.specVersion,
      agent: found && agentView(found, now(), policy),
    });
  });
}

/** The agent's card as a caller reaches it through the gateway's A2A face: the skills this key may reach. */
function addCardRoute(router: Router, deps: AgentCardRoutesDeps): void {
  router.get('/v1/agents/:agent_id/agent-card.json', async (req, res) => {
    const caller = requireCaller(res, 'read');
    const { tenant } = caller;
    const { agent_id } = parseInput(agentIdParams, req.params, 'params');
    const { a2a_version } = parseInput(agentCardQuery, req.query, 'query');
    const found = await deps.catalogue.queries.get(tenant, agent_id);
    if (!found) throw new ApiError(404, 'agent_not_found', `No agent ${agent_id}`);
    const { agent } = found;
    const faceUrl = `${deps.config.PUBLIC_URL}${agentFacePath(agent._id)}`;
    res.json(
      await servedCard(
        exportA2aCard(agent, faceUrl, a2a_version, (c) => canReach(caller, { tenant, acl: c.acl }).allowed),
        deps.config,
        deps.tokens,
      ),
    );
  });
}

export function agentCardRoutes(deps: AgentCardRoutesDeps): Router {
  const router = Router();
  addImportRoute(router, deps);
  addCardRoute(router, deps);
  return router;
}
