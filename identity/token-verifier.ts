/**
 * Validates an OIDC (OAuth 2.1) JWT access token with `jose` and maps it to a caller: its issuer must be one of
 * AUTH_OIDC_ISSUER, its signature verify under that issuer's published keys (asymmetric algorithms only: never
 * `none`, never a shared secret), its audience be this gateway's resource URL, `exp` and `nbf` hold (within
 * AUTH_OIDC_CLOCK_SKEW_S), and its claims name a tenant (identity/token-caller.ts).
 */
import { decodeJwt, jwtVerify } from 'jose';
import type { Config } from '../platform/config';
import type { Caller } from '../rules/api-key';
import { OidcIssuers } from './oidc-issuers';
import { callerFromClaims, type ClaimMapping } from './token-caller';
import { refusalOf, TokenRefusal } from './token-refusal';

/** Algorithms of public-key signatures; `none` and HMAC (a secret the gateway would share) are refused. */
const ACCEPTED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export type OidcConfig = Pick<
  Config,
  | 'PUBLIC_URL'
  | 'AUTH_OIDC_ISSUER'
  | 'AUTH_OIDC_AUDIENCE'
  | 'AUTH_OIDC_TENANT_CLAIM'
  | 'AUTH_OIDC_SCOPES_CLAIM'
  | 'AUTH_OIDC_GROUPS_CLAIM'
  | 'AUTH_OIDC_CLOCK_SKEW_S'
  | 'AUTH_OIDC_JWKS_CACHE_MS'
  | 'AUTH_OIDC_JWKS_COOLDOWN_MS'
>;

/** Whether a bearer token has the shape of a JWT (three base64url parts), rather than an API key or agent secret. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

/** The audience a token must name: AUTH_OIDC_AUDIENCE, or PUBLIC_URL. */
export function gatewayAudience(config: Pick<Config, 'PUBLIC_URL' | 'AUTH_OIDC_AUDIENCE'>): string {
  return config.AUTH_OIDC_AUDIENCE ?? config.PUBLIC_URL;
}

/** The resource URL of the MCP face (its protected-resource metadata names it): a token for it is accepted on `/mcp`. */
export function mcpResource(config: Pick<Config, 'PUBLIC_URL'>): string {
  return `${config.PUBLIC_URL}/mcp`;
}

export class TokenVerifier {
  readonly issuers: OidcIssuers;
  private readonly mapping: ClaimMapping;

  constructor(
    private readonly config: OidcConfig & { AUTH_OIDC_ISSUER: string[] },
    fetchImpl?: typeof fetch,
  ) {
    this.issuers = new OidcIssuers(config.AUTH_OIDC_ISSUER, {
      jwksCacheMs: config.AUTH_OIDC_JWKS_CACHE_MS,
      jwksCooldownMs: config.AUTH_OIDC_JWKS_COOLDOWN_MS,
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    });
    this.mapping = {
      tenantClaim: config.AUTH_OIDC_TENANT_CLAIM,
      scopesClaim: config.AUTH_OIDC_SCOPES_CLAIM,
      groupsClaim: config.AUTH_OIDC_GROUPS_CLAIM,
    };
  }

  /** The caller `token` proves, for a request to the MCP face (`forMcp`) or another; a TokenRefusal otherwise. */
  async verify(token: string, options: { forMcp: boolean }): Promise<Caller> {
    const issuer = this.issuerOf(token);
    const audience = [
      gatewayAudience(this.config),
      ...(options.forMcp ? [this.config.PUBLIC_URL, mcpResource(this.config)] : []),
    ];
    let payload;
    try {
      ({ payload } = await jwtVerify(token, await this.issuers.keys(issuer), {
        issuer,
        audience,
        algorithms: ACCEPTED_ALGORITHMS,
        clockTolerance: this.config.AUTH_OIDC_CLOCK_SKEW_S,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      throw refusalOf(error, issuer);
    }
    const mapped = callerFromClaims(payload as Record<string, unknown>, this.mapping);
    if ('unmapped' in mapped)
      throw new TokenRefusal('token_unmapped', `The token maps to no caller: ${mapped.unmapped}`);
    return mapped.caller;
  }

  /** The token's (still unverified) issuer, when it is one of ours: it says which keys to verify it with. */
  private issuerOf(token: string): string {
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch (error) {
      throw refusalOf(error, '(unknown issuer)');
    }
    if (typeof iss !== 'string' || !this.issuers.has(iss))
      throw new TokenRefusal(
        'token_wrong_issuer',
        `The token comes from an issuer this gateway does not trust (${typeof iss === 'string' ? iss : 'no iss'}; AUTH_OIDC_ISSUER)`,
      );
    return iss;
  }
}

/** The verifier for the configured issuers, or undefined when none is configured. */
export function tokenVerifierOf(config: OidcConfig, fetchImpl?: typeof fetch): TokenVerifier | undefined {
  const issuers = config.AUTH_OIDC_ISSUER;
  if (!issuers?.length) return undefined;
  return new TokenVerifier({ ...config, AUTH_OIDC_ISSUER: issuers }, fetchImpl);
}
