/**
 * The configured OpenID Connect issuers (AUTH_OIDC_ISSUER): each one's discovery document, read once when first
 * needed (again after a failure), and its signing keys, a JWKS fetched with jose's `createRemoteJWKSet` — cached for
 * AUTH_OIDC_JWKS_CACHE_MS (while the endpoint is down too), fetched again for an unknown key id at most once per
 * AUTH_OIDC_JWKS_COOLDOWN_MS (keys rotated at the issuer are picked up that way).
 */
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { discoveryUrl } from './discovery-url';
import { TokenRefusal } from './token-refusal';

/** What we read of an issuer's `/.well-known/openid-configuration`. */
export interface IssuerMetadata {
  issuer: string;
  jwks_uri: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
  code_challenge_methods_supported?: string[];
}

export interface IssuerSettings {
  jwksCacheMs: number;
  jwksCooldownMs: number;
  /** @default global fetch */
  fetch?: typeof fetch;
}

interface Known {
  metadata: IssuerMetadata;
  keys: JWTVerifyGetKey;
}

const DISCOVERY_TIMEOUT_MS = 5_000;

export class OidcIssuers {
  private readonly known = new Map<string, Promise<Known>>();

  constructor(
    readonly issuers: readonly string[],
    private readonly settings: IssuerSettings,
  ) {}

  has(issuer: string): boolean {
    return this.issuers.includes(issuer);
  }

  /** The issuer's metadata (discovery); a TokenRefusal `token_keys_unavailable` when it cannot be read. */
  async metadata(issuer: string): Promise<IssuerMetadata> {
    return (await this.knownOf(issuer)).metadata;
  }

  /** The issuer's key resolver for `jwtVerify`. */
  async keys(issuer: string): Promise<JWTVerifyGetKey> {
    return (await this.knownOf(issuer)).keys;
  }

  private knownOf(issuer: string): Promise<Known> {
    let known = this.known.get(issuer);
    if (!known) {
      known = this.discover(issuer);
      this.known.set(issuer, known);
      // A failed discovery is tried again by the next token, not remembered.
      known.catch(() => this.known.delete(issuer));
    }
    return known;
  }

  private async discover(issuer: string): Promise<Known> {
    const url = discoveryUrl(issuer);
    let metadata: IssuerMetadata;
    try {
      const response = await (this.settings.fetch ?? fetch)(url, {
        signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
        redirect: 'error',
      });
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      metadata = (await response.json()) as IssuerMetadata;
    } catch (error) {
      throw new TokenRefusal(
        'token_keys_unavailable',
        `The discovery document of ${issuer} cannot be read now (${(error as Error).message}); try again later`,
      );
    }
    if (metadata.issuer !== issuer)
      throw new TokenRefusal(
        'token_keys_unavailable',
        `The discovery document at ${url} names issuer ${String(metadata.issuer)}, not ${issuer}`,
      );
    if (typeof metadata.jwks_uri !== 'string' || !URL.canParse(metadata.jwks_uri))
      throw new TokenRefusal('token_keys_unavailable', `The discovery document of ${issuer} has no jwks_uri`);
    const keys = createRemoteJWKSet(new URL(metadata.jwks_uri), {
      cacheMaxAge: this.settings.jwksCacheMs,
      cooldownDuration: this.settings.jwksCooldownMs,
    });
    return { metadata, keys };
  }
}
