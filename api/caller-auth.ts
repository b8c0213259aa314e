/**
 * How callers prove who they are: `Authorization: Bearer <credential>`, either an API key (`rk_…`) or, where
 * AUTH_OIDC_ISSUER is set, a JWT access token of a configured issuer (identity/token-verifier.ts). Either gives the
 * caller's identity, tenant and scopes; every caller route names the scope it needs. Agent routes authenticate with
 * the agent secret instead (agent-auth.ts), so a bearer credential shaped like neither is left to them.
 */
import type { RequestHandler, Response } from 'express';
import { hasScope, looksLikeApiKey, type BuiltInScope, type Caller, type METRICS_SCOPE } from '../rules/api-key';
import { looksLikeJwt, type TokenVerifier } from '../identity/token-verifier';
import { TokenRefusal } from '../identity/token-refusal';
import type { ApiKeyStore } from '../store/api-keys';
import type { RateLimiter } from '../util/rate-limiter';
import { bearerSecret } from './agent-auth';
import { refuseWhenSpent } from './client-limit';
import { ApiError } from './errors';

/** The caller of this request, when it presented a valid API key or access token. */
export function callerOf(res: Response): Caller | undefined {
  return res.locals.caller as Caller | undefined;
}

/** The RFC 6750 challenge for a refused token (quotes and backslashes cannot appear in our messages' values). */
export function bearerChallenge(params: Record<string, string>): string {
  const shown = Object.entries(params).map(([name, value]) => `${name}="${value.replace(/["\\]/g, "'")}"`);
  return ['Bearer', shown.join(', ')].filter(Boolean).join(' ');
}

/** Whether a request goes to the MCP face, where a token for the MCP resource URL is accepted too. */
function isMcpPath(path: string): boolean {
  return path === '/mcp' || path.startsWith('/mcp/');
}

/**
 * Authenticates an API key or an access token if one is presented (401 when it is not valid, 403 `token_unmapped`
 * for a token naming no tenant), then takes one token of its tenant's rate limit (429 with Retry-After when empty).
 * Requests without a credential go on: the route decides.
 */
export function identifyCaller(
  keys: Pick<ApiKeyStore, 'authenticate'>,
  limiter: RateLimiter,
  tokens?: TokenVerifier,
): RequestHandler {
  return async (req, res, next) => {
    const credential = bearerSecret(req);
    if (!credential) return next();
    let caller: Caller | undefined;
    if (looksLikeApiKey(credential)) {
      caller = await keys.authenticate(credential);
      if (!caller)
        throw new ApiError(401, 'invalid_api_key', 'The API key is not valid (unknown, revoked or mistyped)');
    } else if (tokens && looksLikeJwt(credential)) {
      caller = await tokenCaller(tokens, credential, isMcpPath(req.path), res);
    } else {
      return next();
    }
    refuseWhenSpent(res, limiter.take(caller.tenant), 'for this tenant');
    res.locals.caller = caller;
    next();
  };
}

async function tokenCaller(tokens: TokenVerifier, token: string, forMcp: boolean, res: Response): Promise<Caller> {
  try {
    return await tokens.verify(token, { forMcp });
  } catch (error) {
    if (!(error instanceof TokenRefusal)) throw error;
    if (error.status === 401)
      res.set('www-authenticate', bearerChallenge({ error: 'invalid_token', error_description: error.message }));
    throw new ApiError(error.status, error.code, error.message);
  }
}

/** The caller, who must hold `scope` (401 without a credential, 403 without the scope). */
export function requireCaller(res: Response, scope: BuiltInScope | typeof METRICS_SCOPE): Caller {
  const caller = callerOf(res);
  if (!caller)
    throw new ApiError(
      401,
      'unauthenticated',
      'Send an API key as "Authorization: Bearer rk_…" (or an access token of the configured identity provider)',
    );
  return requireScope(caller, scope);
}

/** The caller, who must hold `scope` (403 `insufficient_scope` otherwise). */
export function requireScope(caller: Caller, scope: BuiltInScope | typeof METRICS_SCOPE): Caller {
  if (!hasScope(caller, scope)) {
    const who = caller.subject ? 'This access token' : 'This API key';
    throw new ApiError(403, 'insufficient_scope', `${who} lacks the "${scope}" scope`, { required_scope: scope });
  }
  return caller;
}
