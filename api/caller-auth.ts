/**
 * How callers prove who they are: `Authorization: Bearer rk_…` (an API key). The key gives the tenant and the
 * scopes; every caller route names the scope it needs. Agent routes authenticate with the agent secret instead
 * (agent-auth.ts), so a bearer token that is not shaped like an API key is left to them.
 */
import type { RequestHandler, Response } from 'express';
import { hasScope, looksLikeApiKey, type BuiltInScope, type Caller, type METRICS_SCOPE } from '../rules/api-key';
import type { ApiKeyStore } from '../store/api-keys';
import type { RateLimiter } from '../util/rate-limiter';
import { bearerSecret } from './agent-auth';
import { refuseWhenSpent } from './client-limit';
import { ApiError } from './errors';

/** The caller of this request, when it presented a valid API key. */
export function callerOf(res: Response): Caller | undefined {
  return res.locals.caller as Caller | undefined;
}

/**
 * Authenticates an API key if one is presented (401 when it is not valid), then takes one token of its tenant's
 * rate limit (429 with Retry-After when empty). Requests without a key go on: the route decides.
 */
export function identifyCaller(keys: Pick<ApiKeyStore, 'authenticate'>, limiter: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    const token = bearerSecret(req);
    if (!token || !looksLikeApiKey(token)) return next();
    const caller = await keys.authenticate(token);
    if (!caller) throw new ApiError(401, 'invalid_api_key', 'The API key is not valid (unknown, revoked or mistyped)');
    refuseWhenSpent(res, limiter.take(caller.tenant), 'for this tenant');
    res.locals.caller = caller;
    next();
  };
}

/** The caller, who must hold `scope` (401 without a key, 403 without the scope). */
export function requireCaller(res: Response, scope: BuiltInScope | typeof METRICS_SCOPE): Caller {
  const caller = callerOf(res);
  if (!caller) throw new ApiError(401, 'unauthenticated', 'Send an API key as "Authorization: Bearer rk_…"');
  return requireScope(caller, scope);
}

/** The caller, who must hold `scope` (403 `insufficient_scope` otherwise). */
export function requireScope(caller: Caller, scope: BuiltInScope | typeof METRICS_SCOPE): Caller {
  if (!hasScope(caller, scope)) {
    throw new ApiError(403, 'insufficient_scope', `This API key lacks the "${scope}" scope`, { required_scope: scope });
  }
  return caller;
}
