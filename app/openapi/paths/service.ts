/*
| The service's own routes (decisions.md §6): health, the machine-token endpoint and
| the merchant integration API's whoami, this document with its reference page, and
| the logo files of the fs disk.
*/
import { schema } from '#openapi/json_schema'
import { ok } from '#openapi/components'
import { LOGO_CACHE_CONTROL } from '#services/merchants/logo_storage'
import type { OperationSpec } from '#openapi/operation'

const oauthError = (codes: string[]) => ({
  type: 'object',
  additionalProperties: false,
  required: ['error', 'error_description'],
  properties: { error: { type: 'string', enum: codes }, error_description: schema.string() },
})

const NO_STORE = { description: 'Never cached.', schema: { const: 'no-store' }, required: true }
const PRAGMA = { description: 'HTTP/1.0 caches.', schema: { const: 'no-cache' }, required: true }
const STATIC_CACHE = {
  'Cache-Control': {
    description: 'Static documentation: cacheable, revalidated with the ETag.',
    schema: schema.string({ pattern: '^public, max-age=[0-9]+' }),
    required: true,
  },
  'ETag': { description: 'Content hash.', schema: schema.string(), required: true },
}

export const serviceOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/health/live',
    operationId: 'healthLive',
    tag: 'Service',
    summary: 'Liveness',
    description: 'The process answers.',
    access: 'none',
    limits: 'none',
    envelope: false,
    responses: {
      200: { description: 'Alive.', schema: schema.object({ status: schema.const('ok') }) },
    },
    cacheControl: 'no-store',
  },
  {
    method: 'get',
    path: '/health/ready',
    operationId: 'healthReady',
    tag: 'Service',
    summary: 'Readiness',
    description: 'Database reachable and migrations current (and Redis when configured).',
    access: 'none',
    limits: 'none',
    envelope: false,
    responses: {
      200: {
        description: 'Ready.',
        schema: schema.object({
          status: schema.const('ok'),
          checks: schema.array(schema.object({ name: schema.string(), status: schema.string() })),
        }),
      },
      503: {
        description: 'Not ready.',
        schema: schema.object({
          status: schema.const('unavailable'),
          checks: schema.array(schema.object({ name: schema.string(), status: schema.string() })),
        }),
      },
    },
    cacheControl: 'no-store',
  },
  {
    method: 'post',
    path: '/oauth/token',
    operationId: 'issueMachineToken',
    tag: 'Machine token',
    summary: 'Machine access token (OAuth 2 client credentials)',
    description:
      'Outside `/api/v1`; OAuth response format (no envelope). Credentials go in the form or as HTTP Basic, never both; username, password, user tokens and the application header are not used, and unrelated parameters are ignored. `scope` is space-separated registered scopes: empty requests none, omitted uses the default, unknown fails. Use the returned `expires_in` and repeat the grant before expiry. The token authenticates merchant integration APIs only, never Portal user endpoints. Errors follow RFC 6749 §5.2; `invalid_client` carries `WWW-Authenticate: Basic realm="oauth"` when HTTP Basic was tried.',
    access: 'oauth_client',
    limits: [{ name: 'oauthToken', per: 'client IP (the contract leaves the number open)' }],
    envelope: false,
    body: {
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
        schema: schema.object({
          token_type: schema.const('Bearer'),
          expires_in: schema.integer({ minimum: 1, description: 'Seconds.' }),
          access_token: schema.string(),
        }),
        headers: { 'Cache-Control': NO_STORE, 'Pragma': PRAGMA },
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
  {
    method: 'get',
    path: '/api/v1/merchant-api/whoami',
    operationId: 'merchantApiWhoami',
    tag: 'Merchant integration API',
    summary: 'Who a machine token acts for',
    description:
      'Machine tokens only: the merchant and client a token acts for (an end-to-end check of machine credentials). Merchant ownership, business activation and the rotation deadline are checked here, not at token grant.',
    access: 'machine',
    limits: [{ name: 'api', per: 'machine client' }],
    parsesBody: false,
    responses: {
      200: {
        description: 'The acting merchant and client.',
        schema: ok(
          schema.object({
            merchant_reference_id: schema.string(),
            oauth_client_id: schema.integer(),
            scopes: schema.array(schema.string()),
            expires_at: schema.nullable(schema.timestamp()),
          })
        ),
      },
    },
    cacheControl: 'no-store',
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Service',
    summary: 'This OpenAPI 3.1 document',
    description: 'Generate clients and mocks from it. Supports `If-None-Match` (304).',
    access: 'none',
    limits: 'none',
    envelope: false,
    responses: {
      200: {
        description: 'The document.',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['openapi', 'info', 'paths'],
              properties: {
                openapi: schema.const('3.1.0'),
                info: { type: 'object' },
                paths: { type: 'object' },
              },
            },
          },
        },
        headers: STATIC_CACHE,
      },
      304: { description: 'Unchanged since the ETag given.', headers: STATIC_CACHE },
    },
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getReferencePage',
    tag: 'Service',
    summary: 'API reference page',
    description:
      "A self-contained page rendered from `/openapi.json` by Swagger UI, bundled with the service (no CDN). Its Content-Security-Policy allows only the page's own scripts, styles, images and the document.",
    access: 'none',
    limits: 'none',
    envelope: false,
    responses: {
      200: {
        description: 'The page.',
        content: { 'text/html': { schema: schema.string() } },
        headers: {
          ...STATIC_CACHE,
          'Content-Security-Policy': {
            description: 'Same-origin resources only.',
            schema: schema.string({ pattern: "^default-src 'none'" }),
            required: true,
          },
        },
      },
      304: { description: 'Unchanged since the ETag given.', headers: STATIC_CACHE },
    },
  },
  {
    method: 'get',
    path: '/docs/assets/{asset}',
    operationId: 'getReferencePageAsset',
    tag: 'Service',
    summary: 'A file of the reference page',
    description: 'The bundled reference UI (scripts, styles, icon). Unknown names are 404.',
    access: 'none',
    limits: 'none',
    envelope: false,
    pathParameters: ['asset'],
    responses: {
      200: {
        description: 'The file.',
        content: {
          'text/javascript': { schema: schema.string() },
          'text/css': { schema: schema.string() },
          'image/png': { schema: schema.string({ contentMediaType: 'image/png' }) },
        },
        headers: STATIC_CACHE,
      },
      304: { description: 'Unchanged since the ETag given.', headers: STATIC_CACHE },
    },
    errors: { 404: ['NOT_FOUND'] },
  },
  {
    method: 'get',
    path: '/media/logos/{merchant}/{file}',
    operationId: 'getMerchantLogoFile',
    tag: 'Service',
    summary: 'A merchant logo (fs disk)',
    description:
      'Outside `/api/v1`. With `DRIVE_DISK=fs`, the `url` and `logo_url` values of the merchant endpoints point here (with `s3` they point to the bucket or CDN instead). Public like any `<img>` source: names are unguessable and change with every upload, so a file never changes and is cached for a year. The type comes from the stored name (the upload was checked and re-encoded), never sniffed. Only logo-shaped names are routed; a missing file or any other name is 404 `NOT_FOUND`.',
    access: 'public',
    limits: [{ name: 'public', per: 'client IP' }],
    pathParameters: ['merchant', 'file'],
    responses: {
      200: {
        description: 'The image, in the type of its extension.',
        content: {
          'image/png': { schema: schema.string({ contentMediaType: 'image/png' }) },
          'image/jpeg': { schema: schema.string({ contentMediaType: 'image/jpeg' }) },
          'image/webp': { schema: schema.string({ contentMediaType: 'image/webp' }) },
        },
        headers: {
          'Cache-Control': {
            description: 'Immutable: a new logo always gets a new name.',
            schema: { const: LOGO_CACHE_CONTROL },
            required: true,
          },
          'X-Content-Type-Options': {
            description: 'The declared type is final.',
            schema: { const: 'nosniff' },
            required: true,
          },
          'Content-Security-Policy': {
            description: 'Nothing in the file may run or load anything.',
            schema: { const: "default-src 'none'; sandbox" },
            required: true,
          },
          'Cross-Origin-Resource-Policy': {
            description: 'Embeddable from any origin.',
            schema: { const: 'cross-origin' },
            required: true,
          },
          'Content-Length': {
            description: 'Bytes.',
            schema: schema.string({ pattern: '^[0-9]+$' }),
          },
        },
      },
    },
  },
]
