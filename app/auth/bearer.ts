/*
| Reading a Bearer credential (RFC 6750 §2.1) from the Authorization header, for
| Portal and merchant-API routes alike (decisions.md §1):
| - no header, a blank one, or only another scheme (Basic, Digest...): no bearer
|   token was sent at all, 401 UNAUTHENTICATED (RFC 6750 §3.1 also treats "an
|   unsupported authentication method" as lacking authentication);
| - a Bearer credential that is not exactly `Bearer <token68>` (empty, garbage,
|   several credentials in one header): 401 ACCESS_TOKEN_INVALID.
| The scheme name is case-insensitive (RFC 7235 §2.1). Both 401s carry the challenge
| RFC 6750 §3 requires, `error="invalid_token"` when a token was sent.
*/
import ApiError from '#exceptions/api_error'

const BEARER = /^Bearer [A-Za-z0-9._~+/-]+=*$/i
const BEARER_SCHEME = /(?:^|[\s,])Bearer(?:\s|$)/i

export type BearerCredential =
  { kind: 'absent' } | { kind: 'malformed' } | { kind: 'token'; token: string }

export function bearerCredential(authorization: string | undefined): BearerCredential {
  if (authorization === undefined || !BEARER_SCHEME.test(authorization)) return { kind: 'absent' }
  if (!BEARER.test(authorization)) return { kind: 'malformed' }
  return { kind: 'token', token: authorization.slice(7) }
}

/** The two 401s of a Bearer-protected realm (`portal`, `merchant-api`), built when thrown. */
export function bearerRefusals(realm: string) {
  return {
    unauthenticated: () =>
      new ApiError('UNAUTHENTICATED', 'Authentication is required.', undefined, {
        'WWW-Authenticate': `Bearer realm="${realm}"`,
      }),
    invalidToken: () =>
      new ApiError('ACCESS_TOKEN_INVALID', 'The access token is invalid or expired.', undefined, {
        'WWW-Authenticate': `Bearer realm="${realm}", error="invalid_token"`,
      }),
  }
}
