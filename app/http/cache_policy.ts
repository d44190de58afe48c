/*
| Cache policies, as data: the headers a route's answers carry and what the OpenAPI
| document says of each. A route's stack names its policy (app/http/stacks.ts);
| registration sends the headers (start/register_endpoint.ts for a policy of the
| whole request, start/endpoint_handler.ts for one of the success answer) and the
| document describes each success response with the same headers
| (app/openapi/declared_operation.ts).
*/
import type { JsonSchema } from '#openapi/json_schema'
import type { HeaderSpec } from '#openapi/operation_spec'

export interface CacheHeader {
  value: string
  /** Document: what the header means. */
  description: string
  /** Document: the header's schema, when it is not the value itself (a const). */
  schema?: JsonSchema
}

export interface CachePolicy {
  /**
   * `request`: set before anything can refuse the request, so errors carry it too;
   * `success`: set once the action has answered, so an error keeps the default.
   */
  on: 'request' | 'success'
  headers: Record<string, CacheHeader>
}

/** Every response's policy unless its route names another (request_context_middleware.ts). */
export const DEFAULT_CACHE: CachePolicy = {
  on: 'request',
  headers: {
    'Cache-Control': { value: 'no-store', description: 'Cache policy of this response.' },
  },
}

/** Member, team-list and key data. */
export const PRIVATE_CACHE: CachePolicy = {
  on: 'request',
  headers: {
    'Cache-Control': { value: 'no-store, private', description: 'Cache policy of this response.' },
  },
}

/** The one-time secret of a credential delivery (portal-api.md › Machine clients). */
export const CREDENTIAL_CACHE: CachePolicy = {
  on: 'request',
  headers: {
    'Cache-Control': { value: 'no-store, private, max-age=0', description: 'Never stored.' },
    'Pragma': { value: 'no-cache', description: 'HTTP/1.0 caches.' },
    'X-Content-Type-Options': { value: 'nosniff', description: 'No sniffing.' },
  },
}

/** The signed link mailed for an email change: a redirect never cached, sent with no referrer. */
export const SIGNED_LINK_CACHE: CachePolicy = {
  on: 'request',
  headers: {
    'Cache-Control': { value: 'no-store', description: 'Never cached.' },
    'Referrer-Policy': { value: 'no-referrer', description: 'No referrer.' },
  },
}

/**
 * The token endpoint: the issued token is never cached, by HTTP/1.0 caches either
 * (RFC 6749 §5.1). Its errors carry the same two, set by the exception handler, which
 * answers them in OAuth form whether or not the route was matched.
 */
export const OAUTH_TOKEN_CACHE: CachePolicy = {
  on: 'success',
  headers: {
    'Cache-Control': { value: 'no-store', description: 'Never cached.' },
    'Pragma': { value: 'no-cache', description: 'HTTP/1.0 caches.' },
  },
}

/** The policies a Portal stack can name. */
export const PORTAL_CACHE = { private: PRIVATE_CACHE, credential: CREDENTIAL_CACHE }

/** The headers a policy sends, as name and value. */
export const headersOf = (policy: CachePolicy): [string, string][] =>
  Object.entries(policy.headers).map(([name, header]) => [name, header.value])

/** The document's Header Objects of a policy. */
export function documentedHeaders(policy: CachePolicy): Record<string, HeaderSpec> {
  const headers: Record<string, HeaderSpec> = {}
  for (const [name, { value, description, schema }] of Object.entries(policy.headers)) {
    headers[name] = { description, schema: schema ?? { const: value }, required: true }
  }
  return headers
}
