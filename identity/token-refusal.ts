/**
 * Why a bearer token was refused, as our error codes (docs/security.md) and RFC 6750's: every refusal of a token is
 * a 401 `invalid_token` (the client should get another token) except one that maps to no tenant, a 403.
 */
import { errors } from 'jose';

export type TokenRefusalCode =
  | 'token_invalid'
  | 'token_expired'
  | 'token_not_yet_valid'
  | 'token_wrong_issuer'
  | 'token_wrong_audience'
  | 'token_unknown_key'
  | 'token_keys_unavailable'
  | 'token_unmapped';

export class TokenRefusal extends Error {
  constructor(
    readonly code: TokenRefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'TokenRefusal';
  }

  get status(): 401 | 403 {
    return this.code === 'token_unmapped' ? 403 : 401;
  }
}

/** The refusal for an error `jose` threw while verifying a token of `issuer`. */
export function refusalOf(error: unknown, issuer: string): TokenRefusal {
  if (error instanceof TokenRefusal) return error;
  if (error instanceof errors.JWTExpired) return new TokenRefusal('token_expired', 'The token has expired (exp)');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud')
      return new TokenRefusal(
        'token_wrong_audience',
        'The token is not for this gateway (aud is not its resource URL)',
      );
    if (error.claim === 'iss')
      return new TokenRefusal('token_wrong_issuer', 'The token comes from an issuer this gateway does not trust');
    if (error.claim === 'nbf') return new TokenRefusal('token_not_yet_valid', 'The token is not valid yet (nbf)');
    return new TokenRefusal('token_invalid', `The token's "${error.claim}" claim is not valid: ${error.reason}`);
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return new TokenRefusal(
      'token_unknown_key',
      `The token is signed with a key ${issuer} does not publish (its kid is not in the issuer's JWKS)`,
    );
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new TokenRefusal(
      'token_invalid',
      'The token is not signed with an accepted algorithm (unsigned tokens are never accepted)',
    );
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return new TokenRefusal('token_invalid', "The token's signature does not verify");
  if (
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JOSENotSupported
  ) {
    return new TokenRefusal('token_invalid', `The token is malformed: ${(error as Error).message}`);
  }
  // Fetching the issuer's keys failed (timeout, refused connection, not 200, not a JWKS).
  return new TokenRefusal(
    'token_keys_unavailable',
    `The signing keys of ${issuer} cannot be fetched now, and the token's key is not among those cached; try again later`,
  );
}
