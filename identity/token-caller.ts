/**
 * How a validated access token's claims become a caller (pure): the tenant from AUTH_OIDC_TENANT_CLAIM, the scopes
 * from AUTH_OIDC_SCOPES_CLAIM (the api's scope names), the groups from AUTH_OIDC_GROUPS_CLAIM, the identity from
 * `iss` and `sub`. A token that names no valid tenant or no subject maps to nothing (403 `token_unmapped`).
 */
import { SCOPE_PATTERN, TENANT_PATTERN, type Caller } from '../rules/api-key';

export interface ClaimMapping {
  tenantClaim: string;
  scopesClaim: string;
  groupsClaim: string;
}

export type Mapped = { caller: Caller } | { unmapped: string };

/** A claim as a list of strings: an array of strings, or one space-separated string; anything else is empty. */
export function claimList(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter(Boolean);
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string' && item.length > 0);
  return [];
}

export function callerFromClaims(claims: Record<string, unknown>, mapping: ClaimMapping): Mapped {
  const { iss, sub } = claims;
  if (typeof iss !== 'string' || typeof sub !== 'string' || !sub)
    return { unmapped: 'the token names no subject (sub)' };
  const tenant = claims[mapping.tenantClaim];
  if (typeof tenant !== 'string')
    return { unmapped: `the token has no "${mapping.tenantClaim}" claim (AUTH_OIDC_TENANT_CLAIM) naming its tenant` };
  if (!TENANT_PATTERN.test(tenant))
    return { unmapped: `the "${mapping.tenantClaim}" claim is not a tenant name (lowercase letters, digits, _ and -)` };
  const scopes = [...new Set(claimList(claims[mapping.scopesClaim]).filter((scope) => SCOPE_PATTERN.test(scope)))];
  const groups = [...new Set(claimList(claims[mapping.groupsClaim]))];
  return { caller: { tenant, subject: { issuer: iss, sub, groups }, scopes } };
}
