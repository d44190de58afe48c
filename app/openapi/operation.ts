/*
| One operation of the document, as an endpoint declaration describes it
| (app/http/endpoint.ts, `operationOf`): who may call it, its limits, its input (from
| the VineJS validators), its success responses (from the schemas beside the
| transformers) and the error codes it can answer. `toOperationObject()` adds what
| the access kind and the input imply: the authentication errors, 413/415/422, 429
| with Retry-After, 500 and 503, so that no endpoint repeats them and none forgets
| them.
*/
import { LIMITS, type LimitName } from '#limits/limits'
import { ERROR_STATUSES, type ErrorCode } from '#exceptions/error_codes'
import { schema, type JsonSchema } from '#openapi/json_schema'
import { ref } from '#openapi/components'

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete'

/**
 * Who may call an operation:
 * - `public`: no credentials; `app`: Portal application (HTTP Basic + X-Service-Application);
 * - `pat`: a Portal user PAT, either role; `admin`: a PAT of an administrator;
 * - `machine`: a machine access token; `signed_link`: the mailed, signed URL;
 * - `oauth_client`: client credentials of /oauth/token; `none`: open service routes.
 */
export type Access =
  'public' | 'app' | 'pat' | 'admin' | 'machine' | 'signed_link' | 'oauth_client' | 'none'

/** A limit of the contract's Limits table and what its key is made of. */
export interface LimitRef {
  name: LimitName
  per: string
}

export interface ResponseSpec {
  description: string
  /** JSON body; omitted for 204 and redirects. */
  schema?: JsonSchema
  /** Another media type than JSON (the docs page, its assets). */
  content?: Record<string, { schema: JsonSchema }>
  headers?: Record<string, HeaderSpec>
}

export interface HeaderSpec {
  description: string
  schema: JsonSchema
  required?: boolean
}

export interface OperationSpec {
  method: HttpMethod
  /** OpenAPI path, parameters in braces named as in the route's pattern. */
  path: string
  operationId: string
  tag: string
  summary: string
  description: string
  access: Access
  /** Limits consumed by the route, in order; `none` says so explicitly. */
  limits: LimitRef[] | 'none'
  /** Path parameters: names of components.parameters. */
  pathParameters?: string[]
  query?: object[]
  body?: {
    mediaType?: string
    schema: JsonSchema
    required?: boolean
    description?: string
    /** Per-part Encoding Objects of a multipart body (e.g. a file part's content types). */
    encoding?: Record<string, { contentType: string }>
  }
  /** Success (and other non-error) responses, by status. */
  responses: Record<number, ResponseSpec>
  /** Error codes beyond the implied ones; each is answered with its status (error_codes.ts). */
  errors?: ErrorCode[]
  /** Whether the route's responses use the Portal envelope (false: OAuth, health, docs). */
  envelope?: boolean
  /** Body parsed by the Portal body middleware (413/415 apply); default true on /api/v1 routes. */
  parsesBody?: boolean
  /** Cache-Control of success responses. */
  cacheControl?: string
  /**
   * The body another method gets on this path (405 with `Allow`), when it is not the
   * Portal envelope's METHOD_NOT_ALLOWED: the token endpoint answers in OAuth form.
   * Emitted as the path item's `x-method-not-allowed`.
   */
  methodNotAllowed?: JsonSchema
}

/** The WWW-Authenticate challenge of each kind of caller's 401 (app/auth/bearer.ts). */
const CHALLENGES: Partial<Record<Access, string>> = {
  app: '`Basic realm="portal", charset="UTF-8"`',
  pat: '`Bearer realm="portal"`, with `error="invalid_token"` when a token was sent',
  admin: '`Bearer realm="portal"`, with `error="invalid_token"` when a token was sent',
  machine: '`Bearer realm="merchant-api"`, with `error="invalid_token"` when a token was sent',
}

const AUTH_ERRORS: Record<Access, ErrorCode[]> = {
  public: ['RATE_LIMITED'],
  app: ['ECOSYSTEM_CLIENT_UNAUTHENTICATED', 'RATE_LIMITED'],
  pat: [
    'UNAUTHENTICATED',
    'ACCESS_TOKEN_INVALID',
    'MERCHANT_USER_NOT_AUTHORIZED',
    'ECOSYSTEM_APPLICATION_NOT_AUTHORIZED',
    'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
    'MERCHANT_SCOPE_MISMATCH',
    'RATE_LIMITED',
  ],
  admin: [
    'UNAUTHENTICATED',
    'ACCESS_TOKEN_INVALID',
    'MERCHANT_USER_NOT_AUTHORIZED',
    'ECOSYSTEM_APPLICATION_NOT_AUTHORIZED',
    'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
    'FORBIDDEN',
    'MERCHANT_SCOPE_MISMATCH',
    'RATE_LIMITED',
  ],
  machine: [
    'UNAUTHENTICATED',
    'ACCESS_TOKEN_INVALID',
    'CLIENT_MERCHANT_NOT_AUTHORIZED',
    'INSUFFICIENT_SCOPE',
    'RATE_LIMITED',
    'MERCHANT_MACHINE_API_UNAVAILABLE',
  ],
  signed_link: ['INVALID_SIGNATURE', 'RATE_LIMITED'],
  oauth_client: [],
  none: [],
}

const SECURITY: Record<Access, object[] | undefined> = {
  public: [],
  app: [{ portalApplication: [], serviceApplication: [] }],
  pat: [{ portalPat: [] }],
  admin: [{ portalPat: [] }],
  machine: [{ machineClient: ['merchant-api'] }],
  signed_link: [],
  oauth_client: [{ oauthClientBasic: [] }, {}],
  none: [],
}

const ACCESS_TEXT: Record<Access, string> = {
  public: 'Public (no credentials).',
  app: "Portal application: HTTP Basic `client_id:client_secret` plus `X-Service-Application: merchant_portal`; an `Origin`, when sent, must be one of the application's origins.",
  pat: 'Portal user PAT (`Authorization: Bearer <user_pat>`), administrator or developer.',
  admin:
    'Portal user PAT of an **administrator** (`Authorization: Bearer <user_pat>`); a developer gets 403 `FORBIDDEN` before any validation.',
  machine:
    'Machine access token from `/oauth/token` (`Authorization: Bearer <machine_access_token>`).',
  signed_link: 'The signed link mailed for an email change (no PAT).',
  oauth_client: 'Machine client credentials, in the form body or as HTTP Basic (not both).',
  none: 'None.',
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Validation failed',
  429: 'Too many requests',
  500: 'Unexpected failure',
  503: 'Service unavailable',
}

/** "5 per minute per user" with the env variable that overrides it. */
export function limitText(limit: LimitRef) {
  const entry = LIMITS[limit.name]
  // The API-wide limit keys a request without a valid PAT by its IP (portal_auth_middleware).
  const per =
    limit.name === 'api' && limit.per === 'user'
      ? 'user (per client IP while the PAT is missing or invalid)'
      : limit.per
  return `${entry.perMinute} per minute per ${per} (\`${entry.env}\`)`
}

/** Codes grouped by their status (error_codes.ts), each once, in the order given. */
function errorsByStatus(codes: ErrorCode[]) {
  const byStatus: Record<number, Set<ErrorCode>> = {}
  for (const code of codes) (byStatus[ERROR_STATUSES[code]] ??= new Set()).add(code)
  return byStatus
}

/** The error envelope of one operation and status: its exact `error_code` values. */
export function errorEnvelope(status: number, codes: string[]): JsonSchema {
  return schema.object(
    {
      success: schema.const(false),
      message: schema.string(),
      error_code: schema.enum(codes),
      ...(status === 422 ? { errors: ref('FieldErrors') } : {}),
    },
    { description: `decisions.md §1 error envelope` }
  )
}

const cacheHeader = (description: string, value: JsonSchema): Record<string, HeaderSpec> => ({
  'Cache-Control': { description, schema: value, required: true },
})

/** What an envelope route answers without declaring it: its access kind's, 5xx, body and path codes. */
function impliedErrors(spec: OperationSpec, parsesBody: boolean): ErrorCode[] {
  const codes: ErrorCode[] = [...AUTH_ERRORS[spec.access], 'SERVER_ERROR', 'SERVICE_UNAVAILABLE']
  if (parsesBody) {
    // A GET body is never read (config/bodyparser.ts allowedMethods), so it cannot be
    // too large; one sent with a content type the route does not take is still 415.
    if (spec.method !== 'get') codes.push('PAYLOAD_TOO_LARGE')
    codes.push('UNSUPPORTED_MEDIA_TYPE')
  }
  if (spec.body || spec.query || parsesBody) codes.push('VALIDATION_ERROR')
  if (spec.pathParameters?.length) codes.push('NOT_FOUND')
  return codes
}

export function toOperationObject(spec: OperationSpec) {
  const envelope = spec.envelope ?? true
  const parsesBody = spec.parsesBody ?? (envelope && spec.path.startsWith('/api/v1/'))
  // Outside the Portal envelope (OAuth, health, the docs) only the declared codes.
  const implied = envelope ? impliedErrors(spec, parsesBody) : []
  const errors = errorsByStatus([...implied, ...(spec.errors ?? [])])

  const responses: Record<string, object> = {}
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[status] = responseObject(response, spec.cacheControl)
  }
  for (const status of Object.keys(errors).map(Number).sort()) {
    const codes = [...errors[status]]
    const headers: Record<string, HeaderSpec> = {
      ...cacheHeader('Errors are never cached.', { type: 'string', pattern: '^no-store' }),
    }
    const challenge = CHALLENGES[spec.access]
    if (status === 401 && challenge && envelope) {
      // Not on every 401: a wrong login password or a changed password is answered in
      // the body (INVALID_CREDENTIALS, reauthentication), not as an HTTP challenge.
      headers['WWW-Authenticate'] = {
        description: `The authentication challenge (RFC 7235 §3.1) when the request's own credentials (the header) are refused: ${challenge}.`,
        schema: { type: 'string' },
        required: false,
      }
    }
    if (status === 429) {
      headers['Retry-After'] = {
        description: 'Whole seconds until the limit admits a request again.',
        schema: { type: 'string', pattern: '^[1-9][0-9]*$' },
        required: true,
      }
    }
    responses[String(status)] = responseObject({
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((code) => `\`${code}\``).join(', ')}`,
      schema: errorEnvelope(status, codes),
      headers,
    })
  }

  const limits =
    spec.limits === 'none' ? 'none' : spec.limits.map((limit) => `- ${limitText(limit)}`).join('\n')
  const description = [
    spec.description,
    `**Access:** ${ACCESS_TEXT[spec.access]}`,
    spec.limits === 'none'
      ? '**Limits:** none.'
      : `**Limits** (a refused request counts too; 429 \`RATE_LIMITED\` carries \`Retry-After\`):\n${limits}`,
  ]
    .filter(Boolean)
    .join('\n\n')

  const parameters = [
    ...(spec.pathParameters ?? []).map((name) => ({ $ref: `#/components/parameters/${name}` })),
    ...(spec.query ?? []),
  ]
  return {
    'operationId': spec.operationId,
    'tags': [spec.tag],
    'summary': spec.summary,
    description,
    'security': SECURITY[spec.access],
    ...(parameters.length ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: spec.body.required ?? true,
            ...(spec.body.description ? { description: spec.body.description } : {}),
            content: {
              [spec.body.mediaType ?? 'application/json']: {
                schema: spec.body.schema,
                ...(spec.body.encoding ? { encoding: spec.body.encoding } : {}),
              },
            },
          },
        }
      : {}),
    responses,
    'x-limits':
      spec.limits === 'none'
        ? []
        : spec.limits.map((limit) => ({
            name: limit.name,
            per_minute: LIMITS[limit.name].perMinute,
            key: limit.per,
            env: LIMITS[limit.name].env,
          })),
  }
}

function responseObject(response: ResponseSpec, cacheControl?: string) {
  const headers: Record<string, HeaderSpec> = { ...(response.headers ?? {}) }
  if (cacheControl && !headers['Cache-Control']) {
    Object.assign(headers, cacheHeader('Cache policy of this response.', { const: cacheControl }))
  }
  const content =
    response.content ??
    (response.schema ? { 'application/json': { schema: response.schema } } : undefined)
  return {
    description: response.description,
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(content ? { content } : {}),
  }
}
