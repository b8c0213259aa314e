/**
 * The gateway as an OAuth 2.1 resource server (MCP authorization; RFC 9728, RFC 6750), where AUTH_OIDC_ISSUER is set:
 *
 * - Protected Resource Metadata at `/.well-known/oauth-protected-resource` (the gateway, resource PUBLIC_URL) and
 *   `/.well-known/oauth-protected-resource/mcp` (the MCP face, resource `<PUBLIC_URL>/mcp`): the authorization
 *   servers (the configured issuers) and the scopes. The gateway is no authorization server: it points at them.
 * - `/mcp` without a credential: 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, where an MCP client
 *   starts its discovery; a caller holding neither `read` nor `send`: 403 `insufficient_scope` with the scopes needed.
 */
import { Router, type RequestHandler } from 'express';
import type { Config } from '../platform/config';
import { BUILT_IN_SCOPES, hasScope } from '../rules/api-key';
import { withTokenSchemes } from '../catalogue/a2a';
import { mcpResource, type TokenVerifier } from '../identity/token-verifier';
import { bearerChallenge, callerOf } from './caller-auth';
import { ApiError } from './errors';
import { originGuard } from './mcp/mcp-origin';

type ResourceConfig = Pick<Config, 'PUBLIC_URL' | 'AUTH_OIDC_ISSUER'>;

/** The scopes a client may ask for at this resource (the api's built-in ones). */
export const RESOURCE_SCOPES = Object.values(BUILT_IN_SCOPES);
/** What the MCP face needs at least one of: `read` lists and reads, `send` sends. */
const MCP_SCOPES = ['read', 'send'] as const;

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export function resourceMetadataUrl(config: Pick<Config, 'PUBLIC_URL'>, face: 'gateway' | 'mcp'): string {
  return `${config.PUBLIC_URL}${WELL_KNOWN}${face === 'mcp' ? '/mcp' : ''}`;
}

/** RFC 9728 metadata of `resource`. */
export function protectedResourceMetadata(config: ResourceConfig, resource: string): object {
  return {
    resource,
    authorization_servers: config.AUTH_OIDC_ISSUER ?? [],
    scopes_supported: RESOURCE_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: 'Agent-Reach',
    resource_documentation: `${config.PUBLIC_URL}/docs`,
  };
}

/**
 * `card` declaring the configured token schemes: an OpenID Connect scheme per issuer, and its OAuth2 flows (code +
 * PKCE, client credentials) where its metadata can be read now (identity/oidc-issuers.ts keeps it once read).
 */
export async function withConfiguredSchemes<T extends Record<string, unknown>>(
  card: T,
  config: Pick<Config, 'AUTH_OIDC_ISSUER'>,
  tokens?: TokenVerifier,
): Promise<T> {
  const issuers = config.AUTH_OIDC_ISSUER;
  if (!issuers?.length) return card;
  const endpoints = tokens
    ? await Promise.all(issuers.map((issuer) => tokens.issuers.metadata(issuer).catch(() => undefined)))
    : [];
  return withTokenSchemes(card, issuers, endpoints);
}

/** The metadata routes (only where an issuer is configured: otherwise there is no authorization server to name). */
export function protectedResourceRoutes(config: ResourceConfig): Router {
  const router = Router();
  if (!config.AUTH_OIDC_ISSUER?.length) return router;
  router.get(WELL_KNOWN, (_req, res) => {
    res.json(protectedResourceMetadata(config, config.PUBLIC_URL));
  });
  router.get(`${WELL_KNOWN}/mcp`, (_req, res) => {
    res.json(protectedResourceMetadata(config, mcpResource(config)));
  });
  return router;
}

/**
 * `/mcp`: the challenge that starts an MCP client's authorization, and the scope the face needs — after the face's
 * Host/Origin check (DNS rebinding), which comes before anything else there.
 */
export function mcpAuthorization(config: ResourceConfig & Parameters<typeof originGuard>[0]): Router {
  const metadata = config.AUTH_OIDC_ISSUER?.length
    ? { resource_metadata: resourceMetadataUrl(config, 'mcp') }
    : undefined;
  const authorize: RequestHandler = (_req, res, next) => {
    const caller = callerOf(res);
    if (!caller) {
      res.set(
        'www-authenticate',
        bearerChallenge({ ...metadata, ...(metadata ? { scope: MCP_SCOPES.join(' ') } : {}) }),
      );
      throw new ApiError(
        401,
        'unauthenticated',
        metadata
          ? 'Send a bearer access token (see the resource metadata in WWW-Authenticate) or an API key'
          : 'Send an API key as "Authorization: Bearer rk_…"',
      );
    }
    if (!MCP_SCOPES.some((scope) => hasScope(caller, scope))) {
      res.set(
        'www-authenticate',
        bearerChallenge({ error: 'insufficient_scope', scope: MCP_SCOPES.join(' '), ...metadata }),
      );
      throw new ApiError(403, 'insufficient_scope', 'The MCP face needs the "read" or the "send" scope', {
        required_scope: MCP_SCOPES.join(' '),
      });
    }
    next();
  };
  return Router().use('/mcp', originGuard(config), authorize);
}
