import { z } from 'zod';
import { commaList } from './fields';

/** Why `issuer` cannot be an OIDC issuer (an https URL, or http on loopback), or undefined. */
function issuerProblem(issuer: string): string | undefined {
  if (!URL.canParse(issuer)) return `${issuer} is not a URL`;
  const url = new URL(issuer);
  if (url.search || url.hash) return `${issuer}: an issuer has no query or fragment`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return `${issuer}: an issuer must be https:// (http:// only on loopback)`;
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** Sign-in with OpenID Connect: access tokens of an identity provider, accepted beside API keys (docs/security.md). */
export const oidcShape = {
  /**
   * OpenID Connect: issuers whose JWT access tokens are accepted beside API keys on every face (`/v1`, `/mcp`,
   * `/a2a`), comma-separated issuer URLs exactly as their tokens' `iss`, trailing slash and all (discovery at
   * `<issuer without its trailing slash>/.well-known/openid-configuration`).
   * `http://` only on loopback (tests, development). Optional: unset, only API keys are accepted (docs/security.md).
   */
  AUTH_OIDC_ISSUER: commaList
    .superRefine((issuers, ctx) => {
      for (const problem of issuers.map(issuerProblem).filter(Boolean))
        ctx.addIssue({ code: 'custom', message: problem! });
    })
    .optional(),
  /**
   * OpenID Connect: the audience (`aud`) a token must name: this gateway's resource URL. On `/mcp` a token for
   * `<PUBLIC_URL>/mcp` (the resource of the MCP face's protected-resource metadata) is accepted too. @default PUBLIC_URL
   */
  AUTH_OIDC_AUDIENCE: z.string().min(1).optional(),
  /** OpenID Connect: the claim naming the caller's tenant; a token without one (or with no valid tenant name) is refused 403 `token_unmapped`. @default tenant */
  AUTH_OIDC_TENANT_CLAIM: z.string().min(1).default('tenant'),
  /** OpenID Connect: the claim holding the caller's scopes (space-separated, or an array), the api's scope names (`read`, `send`, …). @default scope */
  AUTH_OIDC_SCOPES_CLAIM: z.string().min(1).default('scope'),
  /** OpenID Connect: the claim holding the caller's groups (an array or space-separated), which capability ACLs can admit (`acl.groups`). @default groups */
  AUTH_OIDC_GROUPS_CLAIM: z.string().min(1).default('groups'),
  /** OpenID Connect: clock skew tolerated on `exp` and `nbf`, in seconds. @default 60 */
  AUTH_OIDC_CLOCK_SKEW_S: z.coerce.number().int().min(0).max(600).default(60),
  /**
   * OpenID Connect: how long fetched signing keys (JWKS) are used before they are fetched again, in ms; a token whose
   * key id is not among them refetches at most once per AUTH_OIDC_JWKS_COOLDOWN_MS. While the JWKS endpoint is down,
   * keys fetched within this time keep working. @default 600000 (10 minutes)
   */
  AUTH_OIDC_JWKS_CACHE_MS: z.coerce.number().int().min(1_000).default(600_000),
  /** OpenID Connect: least time between two fetches of an issuer's JWKS prompted by an unknown key id, in ms. @default 30000 */
  AUTH_OIDC_JWKS_COOLDOWN_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * OpenID Connect: the client id the dashboard signs in with (a public client of the first issuer, authorization
   * code + PKCE, redirect URI `<PUBLIC_URL>/dashboard`). Optional: unset, the dashboard takes a pasted API key only.
   */
  AUTH_OIDC_DASHBOARD_CLIENT_ID: z.string().min(1).max(200).optional(),
};
