/** Where an issuer's metadata is (OpenID Connect Discovery): some issuers end in a slash (Auth0's do), their `iss` too. Pure. */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
}
