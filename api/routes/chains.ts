/** `/v1/chains`: start a chain, read its status, cancel it (docs/chains.md). */
import { Router } from 'express';
import type { Config } from '../../platform/config';
import { hasScope, type Caller } from '../../rules/api-key';
import type { ChainStatus } from '../../chains/chain';
import { chainIdParams } from '../../chains/chain-schema';
import type { ChainRefusal } from '../../chains/check-chain';
import { ChainStatusUnavailableError, type ChainService } from '../../chains/chain-service';
import { chainWorkflowId } from '../../chains/temporal';
import { bearerSecret } from '../agent-auth';
import { requireCaller } from '../caller-auth';
import { ApiError } from '../errors';
import { cancelBody } from '../schemas';
import { parseInput } from '../validate';

/** A refusal of the chain, naming its step: 400 for the schema, 413 for the size, 403 for an ACL, else 422. */
function refusalError(refusal: ChainRefusal, caller: Caller): ApiError {
  const step = refusal.step ? { step: refusal.step } : {};
  if (refusal.code === 'invalid_request') return new ApiError(400, 'invalid_request', refusal.message, refusal.issues?.map((issue) => ({ ...issue, ...step })) ?? step);
  if (refusal.code === 'payload_too_large') return new ApiError(413, 'payload_too_large', refusal.message);
  if (refusal.code === 'capability_forbidden') return new ApiError(403, 'capability_forbidden', hasScope(caller, 'admin') ? refusal.message : "This API key may not reach a step's capability", step);
  return new ApiError(422, refusal.code, refusal.message, step);
}

export function chainLinks(config: Config, tenant: string, chainId: string) {
  return {
    self: `${config.PUBLIC_URL}/v1/chains/${encodeURIComponent(chainId)}`,
    ...(config.TEMPORAL_UI_URL
      ? { temporal_ui: `${config.TEMPORAL_UI_URL.replace(/\/$/, '')}/namespaces/${config.TEMPORAL_NAMESPACE}/workflows/${encodeURIComponent(chainWorkflowId(tenant, chainId))}` }
      : {}),
  };
}

export function chainRoutes(deps: { chains: ChainService; config: Config }): Router {
  const router = Router();
  const withLinks = (status: ChainStatus) => ({ ...status, links: chainLinks(deps.config, status.tenant, status.chain_id) });

  router.post('/v1/chains', async (req, res) => {
    const caller = requireCaller(res, 'send');
    // Each step is sent as this key: the workflow gets the key's proof for each of the chain's message ids.
    const result = await deps.chains.start(caller, bearerSecret(req)!, req.body);
    switch (result.kind) {
      case 'refused':
        throw refusalError(result.refusal, caller);
      case 'conflict':
        throw new ApiError(409, 'idempotency_conflict', `Chain ${result.chain_id} was already started with a different body`, { chain_id: result.chain_id });
      case 'duplicate':
        res.status(200).json(withLinks(result.status));
        return;
      case 'accepted':
        res.location(`/v1/chains/${encodeURIComponent(result.status.chain_id)}`);
        res.status(202).json(withLinks(result.status));
    }
  });

  router.get('/v1/chains/:chain_id', async (req, res) => {
    const { tenant } = requireCaller(res, 'read');
    const { chain_id } = parseInput(chainIdParams, req.params, 'params');
    let status: ChainStatus | undefined;
    try {
      status = await deps.chains.get(tenant, chain_id);
    } catch (error) {
      if (!(error instanceof ChainStatusUnavailableError)) throw error;
      res.set('retry-after', '5');
      throw new ApiError(503, 'status_unavailable', 'The chain is running but no worker answers; retry shortly');
    }
    if (!status) throw new ApiError(404, 'chain_not_found', `No chain ${chain_id}`);
    res.json(withLinks(status));
  });

  router.post('/v1/chains/:chain_id/cancel', async (req, res) => {
    const { tenant } = requireCaller(res, 'send');
    const { chain_id } = parseInput(chainIdParams, req.params, 'params');
    const body = parseInput(cancelBody, req.body, 'body');
    const result = await deps.chains.cancel(tenant, chain_id, body?.reason);
    switch (result.kind) {
      case 'unknown_chain':
        throw new ApiError(404, 'chain_not_found', `No chain ${chain_id}`);
      case 'already_ended':
        throw new ApiError(409, 'already_ended', `Chain ${chain_id} is ${result.state}: it can no longer be cancelled`, { state: result.state });
      case 'cancelled':
        res.json({ chain_id, cancelled: true, state: 'cancelled' });
    }
  });

  return router;
}
