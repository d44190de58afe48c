/*
| Errors of POST /oauth/token in RFC 6749 §5.2 form: { error, error_description },
| without the Portal envelope (decisions.md §1). `invalid_client` is 401 and carries
| `WWW-Authenticate: Basic realm="oauth"` when the client tried HTTP Basic.
*/
export type OAuthErrorCode =
  'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope' | 'rate_limited'

export default class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status: number = 400,
    readonly headers: Record<string, string> = {}
  ) {
    super(description)
    this.name = 'OAuthError'
  }

  static invalidRequest(description: string) {
    return new OAuthError('invalid_request', description)
  }

  static invalidClient(usedBasic: boolean) {
    return new OAuthError(
      'invalid_client',
      'Client authentication failed.',
      401,
      usedBasic ? { 'WWW-Authenticate': 'Basic realm="oauth"' } : {}
    )
  }
}
