/*
| Errors of POST /oauth/token in RFC 6749 §5.2 form: { error, error_description },
| without the Portal envelope (decisions.md §1). `invalid_client` is 401 and carries
| `WWW-Authenticate: Basic realm="oauth"` when the client tried HTTP Basic.
*/
import ApiError from '#exceptions/api_error'

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'rate_limited'
  | 'temporarily_unavailable'
  | 'server_error'

/** The token endpoint's path: every failure on it is answered in OAuth form. */
export const OAUTH_TOKEN_PATH = /^\/oauth\/token\/?$/

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

  /**
   * The OAuth form of any failure of the endpoint: itself; the token throttle as
   * 429 `rate_limited` with Retry-After; a body parser refusal (size, encoding,
   * malformed) as `invalid_request`. Null for anything else (left to the handler: 500).
   */
  static from(error: unknown): OAuthError | null {
    if (error instanceof OAuthError) return error
    if (error instanceof ApiError && error.status === 429) {
      return new OAuthError(
        'rate_limited',
        'Too many token requests. Try again later.',
        429,
        error.headers ?? {}
      )
    }
    const status = (error as { status?: unknown } | null)?.status
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return OAuthError.invalidRequest('The request body could not be read.')
    }
    return null
  }

  /**
   * The OAuth form of a failure the Portal handler has classified:
   * 429 and 4xx as above, 405 (another method) as `invalid_request` with its Allow
   * header, 503 (limiter store or database unreachable) as `temporarily_unavailable`,
   * anything else as `server_error`. Status and headers are kept.
   */
  static fromApiError(error: ApiError): OAuthError {
    const known = OAuthError.from(error)
    if (known && error.status !== 405) return known
    const headers = error.headers ?? {}
    if (error.status === 405) {
      return new OAuthError('invalid_request', 'The token endpoint takes POST only.', 405, headers)
    }
    if (error.status === 503) {
      return new OAuthError(
        'temporarily_unavailable',
        'The token endpoint is temporarily unavailable.',
        503,
        headers
      )
    }
    if (error.status >= 500) {
      return new OAuthError('server_error', 'An unexpected error occurred.', 500, headers)
    }
    return new OAuthError('invalid_request', error.message, error.status, headers)
  }
}
