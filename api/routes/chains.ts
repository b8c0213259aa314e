/** `/v1/chains`: start a chain, list the tenant's chains, read one's status, cancel it (docs/chains.md). */
import { Router } from 'express';
import type { Config } from '../../platform/config';
import { hasScope, type Caller } from '../../rules/api-key';
import type { ChainStatus, SentMessage, StepStatus } from '../../chains/chain';
import { chainIdParams } from '../../chains/chain-schema';
import type { ChainRefusal } from '../../chains/check-chain';
import type { ChainService, StartChainResult } from '../../chains/chain-service';
import { chainWorkflowId } from '../../chains/temporal';
import type { RateLimiter } from '../../util/rate-limiter';
import { requireCaller } from '../caller-auth';
import { refuseWhenSpent } from '../client-limit';
import { ApiError } from '../errors';
import { cancelBody, listChainsQuery } from '../schemas';
import { parseInput } from '../validate';

/** A refusal of the chain, naming its step: 400 for the schema, 413 for the size, 403 for an ACL, 404 for an unknown agent, else 422. */
export function refusalError(refusal: ChainRefusal, caller: Caller): ApiError {
  const step = refusal.step ? { step: refusal.step } : {};
  if (refusal.code === 'invalid_request')
    return new ApiError(
      400,
      'invalid_request',
      refusal.message,
      refusal.issues?.map((issue) => ({ ...issue, ...step })) ?? step,
    );
  if (refusal.code === 'payload_too_large')
    return new ApiError(413, 'payload_too_large', refusal.message, refusal.step ? step : undefined);
  if (refusal.code === 'capability_forbidden')
    return new ApiError(
      403,
      'capability_forbidden',
      hasScope(caller, 'admin') ? refusal.message : "This API key may not reach a step's capability",
      step,
    );
  if (refusal.code === 'agent_not_found') return new ApiError(404, 'agent_not_found', refusal.message, step);
  return new ApiError(422, refusal.code, refusal.message, step);
}

/** A start that did not start (refused, or the id taken by another body) as the error the api answers. */
export function startError(result: StartChainResult, caller: Caller): ApiError | undefined {
  if (result.kind === 'refused') return refusalError(result.refusal, caller);
  if (result.kind === 'conflict')
    return new ApiError(
      409,
      'idempotency_conflict',
      `Chain ${result.chain_id} was already started with a different body`,
      { chain_id: result.chain_id },
    );
  return undefined;
}

export function chainLinks(config: Config, tenant: string, chainId: string) {
  return {
    self: `${config.PUBLIC_URL}/v1/chains/${encodeURIComponent(chainId)}`,
    ...(config.TEMPORAL_UI_URL
      ? {
          temporal_ui: `${config.TEMPORAL_UI_URL.replace(/\/$/, '')}/namespaces/${config.TEMPORAL_NAMESPACE}/workflows/${encodeURIComponent(chainWorkflowId(tenant, chainId))}`,
        }
      : {}),
  };
}

/**
 * The rate-limit units a chain body costs: one per message it may send (each step and each compensation), the
 * steps counted up to MAX_CHAIN_STEPS (a longer chain is refused). Read before the body is checked: a body that is
 * no chain costs nothing more than its request.
 */
export function chainCost(body: unknown, maxSteps: number): number {
  const steps = (body as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(steps)) return 1;
  const counted = steps.slice(0, maxSteps);
  const compensations = counted.filter(
    (step) => (step as { compensate?: unknown } | null)?.compensate !== undefined,
  ).length;
  return Math.max(1, counted.length + compensations);
}

/** What a key without `read` is shown of a sent message: where it is, not what the agent answered. */
type SentSummary = Pick<SentMessage, 'message_id' | 'state' | 'started_at' | 'ended_at' | 'target'>;
export type ChainSummary = Pick<ChainStatus, 'chain_id' | 'tenant' | 'state' | 'started_at' | 'ended_at'> & {
  steps: (SentSummary & Pick<StepStatus, 'id' | 'after'> & { compensation?: SentSummary })[];
  error?: { code: string; step?: string };
};

/** Listed field by field, so that what a status gains later (results, references) stays out until it is added here. */
function sentSummary(sent: SentMessage): SentSummary {
  const { message_id, state, started_at, ended_at, target } = sent;
  return {
    message_id,
    state,
    ...(started_at ? { started_at } : {}),
    ...(ended_at ? { ended_at } : {}),
    ...(target ? { target } : {}),
  };
}

/**
 * A chain's status without what its agents answered (step results and errors, the chain error's message): what a
 * repeated POST tells a key without the `read` scope, so `send` alone never reads results.
 */
export function chainSummary(status: ChainStatus): ChainSummary {
  const { chain_id, tenant, state, started_at, ended_at, error } = status;
  const steps = status.steps.map((step) => ({
    id: step.id,
    after: step.after,
    ...sentSummary(step),
    ...(step.compensation ? { compensation: sentSummary(step.compensation) } : {}),
  }));
  return {
    chain_id,
    tenant,
    state,
    steps,
    started_at,
    ...(ended_at ? { ended_at } : {}),
    ...(error ? { error: { code: error.code, ...(error.step ? { step: error.step } : {}) } } : {}),
  };
}

interface ChainRoutesDeps {
  chains: ChainService;
  config: Config;
  limiter: RateLimiter;
}

/** A chain's status (or summary) with its links. */
function withLinks(config: Config, status: ChainStatus | ChainSummary) {
  return { ...status, links: chainLinks(config, status.tenant, status.chain_id) };
}

/** `POST /v1/chains`: start a chain, charged one unit per message it may send. */
function addStartRoute(router: Router, deps: ChainRoutesDeps): void {
  router.post('/v1/chains', async (req, res) => {
    const caller = requireCaller(res, 'send');
    // As many units as messages: the request itself took one (caller-auth.ts), from the same per-tenant bucket.
    const extra = chainCost(req.body, deps.config.MAX_CHAIN_STEPS) - 1;
    if (extra > 0) refuseWhenSpent(res, deps.limiter.take(caller.tenant, extra), 'for this tenant');
    // Each step is sent as this key: the workflow gets the key's proof for each of the chain's message ids.
    const result = await deps.chains.start(caller, req.body);
    const error = startError(result, caller);
    if (error) throw error;
    switch (result.kind) {
      case 'duplicate':
        // A retry must learn its chain is there; its results are for keys that may read them.
        res
          .status(200)
          .json(withLinks(deps.config, hasScope(caller, 'read') ? result.status : chainSummary(result.status)));
        return;
      case 'accepted':
        res.location(`/v1/chains/${encodeURIComponent(result.status.chain_id)}`);
        res.status(202).json(withLinks(deps.config, result.status));
    }
  });
}

/** The tenant's chains, a page at a time, and one chain's status. */
function addReadRoutes(router: Router, deps: ChainRoutesDeps): void {
  router.get('/v1/chains', async (req, res) => {
    const { tenant } = requireCaller(res, 'read');
    const query = parseInput(listChainsQuery, req.query, 'query');
    const page = await deps.chains.list(tenant, query);
    // Well-formed (else zod's 400) but not a cursor this list gave, for this state: 422, as other checks zod cannot make.
    if (page.kind === 'invalid_cursor') {
      throw new ApiError(
        422,
        'invalid_cursor',
        'cursor is not one this list gave (give the next_cursor of the previous page, with the same state)',
        { location: 'query.cursor' },
      );
    }
    // What the agents answered is read one chain at a time (GET /v1/chains/:chain_id).
    res.json({
      items: page.items.map((status) => withLinks(deps.config, chainSummary(status))),
      ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}),
    });
  });

  router.get('/v1/chains/:chain_id', async (req, res) => {
    const { tenant } = requireCaller(res, 'read');
    const { chain_id } = parseInput(chainIdParams, req.params, 'params');
    const status = await deps.chains.get(tenant, chain_id);
    if (!status) throw new ApiError(404, 'chain_not_found', `No chain ${chain_id}`);
    res.json(withLinks(deps.config, status));
  });
}

/** `POST /v1/chains/:chain_id/cancel`. */
function addCancelRoute(router: Router, deps: ChainRoutesDeps): void {
  router.post('/v1/chains/:chain_id/cancel', async (req, res) => {
    const { tenant } = requireCaller(res, 'send');
    const { chain_id } = parseInput(chainIdParams, req.params, 'params');
    const body = parseInput(cancelBody, req.body, 'body');
    const result = await deps.chains.cancel(tenant, chain_id, body?.reason);
    switch (result.kind) {
      case 'unknown_chain':
        throw new ApiError(404, 'chain_not_found', `No chain ${chain_id}`);
      case 'already_ended':
        throw new ApiError(
          409,
          'already_ended',
          `Chain ${chain_id} is ${result.state}: it can no longer be cancelled`,
          { state: result.state },
        );
      case 'cancelled':
        res.json({ chain_id, cancelled: true, state: 'cancelled' });
    }
  });
}

export function chainRoutes(deps: ChainRoutesDeps): Router {
  const router = Router();
  addStartRoute(router, deps);
  addReadRoutes(router, deps);
  addCancelRoute(router, deps);
  return router;
}
