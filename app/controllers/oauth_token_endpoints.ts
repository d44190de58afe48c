/*
| portal-api.md › Machine token endpoint (outside /api/v1), the endpoint of
| OAuthTokenController: every failure in OAuth form, 429 and body errors included
| (the exception handler knows this route by name).
*/
import { schema } from '#openapi/json_schema'
import { MachineToken } from '#shapes/machine_access'
import { endpointsOf } from '#http/endpoint'
import { oauthClientStack } from '#http/stacks'
import { documentedHeaders, OAUTH_TOKEN_CACHE } from '#http/cache_policy'

const oauthError = (codes: string[]) => ({
  type: 'object',
  additionalProperties: false,
  required: ['error', 'error_description'],
  properties: { error: { type: 'string', enum: codes }, error_description: schema.string() },
})

// The exception handler answers errors in OAuth form with the same two (described here).
const { 'Cache-Control': NO_STORE, 'Pragma': PRAGMA } = documentedHeaders(OAUTH_TOKEN_CACHE)

export const oauthTokenEndpoints = endpointsOf({
  issue: {
    method: 'post',
    path: '/oauth/token',
    name: 'oauth.token',
    stack: oauthClientStack(
      { name: 'oauthToken', key: ['ip'], per: 'client IP (the contract leaves the number open)' },
      OAUTH_TOKEN_CACHE
    ),
    operationId: 'issueMachineToken',
    tag: 'Machine token',
    summary: 'Machine access token (OAuth 2 client credentials)',
    description:
      'Outside `/api/v1`; OAuth response format (no envelope). Credentials go in the form or as HTTP Basic, never both; username, password, user tokens and the application header are not used, and unrelated parameters are ignored. `scope` is space-separated registered scopes: empty requests none, omitted uses the default, unknown fails. Use the returned `expires_in` and repeat the grant before expiry. The token authenticates merchant integration APIs only, never Portal user endpoints. Errors follow RFC 6749 §5.2; `invalid_client` carries `WWW-Authenticate: Basic realm="oauth"` when HTTP Basic was tried.',
    envelope: false,
    documentedBody: {
      mediaType: 'application/x-www-form-urlencoded',
      schema: {
        type: 'object',
        required: ['grant_type'],
        properties: {
          grant_type: schema.const('client_credentials'),
          client_id: schema.string({ description: 'Required unless sent as HTTP Basic.' }),
          client_secret: schema.string({ description: 'Required unless sent as HTTP Basic.' }),
          scope: schema.string({ description: 'Space-separated scopes, e.g. `merchant-api`.' }),
        },
      },
    },
    responses: {
      200: {
        description: 'Issued.',
        schema: MachineToken,
      },
      400: {
        description: 'Invalid request, grant type or scope.',
        schema: oauthError(['invalid_request', 'unsupported_grant_type', 'invalid_scope']),
        headers: { 'Cache-Control': NO_STORE, 'Pragma': PRAGMA },
      },
      401: {
        description: 'Client authentication failed.',
        schema: oauthError(['invalid_client']),
        headers: {
          'Cache-Control': NO_STORE,
          'WWW-Authenticate': {
            description: 'Present when the client tried HTTP Basic.',
            schema: { const: 'Basic realm="oauth"' },
          },
        },
      },
      429: {
        description: 'The token throttle refused the request.',
        schema: oauthError(['rate_limited']),
        headers: {
          'Cache-Control': NO_STORE,
          'Retry-After': {
            description: 'Whole seconds.',
            schema: schema.string({ pattern: '^[1-9][0-9]*$' }),
            required: true,
          },
        },
      },
      500: {
        description: 'An unexpected failure (no internals in the description).',
        schema: oauthError(['server_error']),
        headers: { 'Cache-Control': NO_STORE, 'Pragma': PRAGMA },
      },
      503: {
        description: 'The database or the limiter store is unreachable; retry later.',
        schema: oauthError(['temporarily_unavailable']),
        headers: { 'Cache-Control': NO_STORE, 'Pragma': PRAGMA },
      },
    },
    // Every failure there, outages and other methods included, is in OAuth form.
    methodNotAllowed: oauthError(['invalid_request']),
  },
})
