/** Why a token was refused; `reason` is stable and goes into the 401 body as `details.reason`. */
export type TokenFailureReason =
  | 'token_missing'
  | 'token_malformed'
  | 'unsupported_algorithm'
  | 'unknown_key'
  | 'invalid_signature'
  | 'token_expired'
  | 'token_not_yet_valid'
  | 'invalid_issuer'
  | 'invalid_audience'
  | 'invalid_claims'
  | 'token_revoked'
  | 'jwks_unavailable';

export class TokenError extends Error {
  constructor(
    readonly reason: TokenFailureReason,
    message: string,
    readonly expiredAt?: Date,
  ) {
    super(message);
    this.name = 'TokenError';
  }
}
