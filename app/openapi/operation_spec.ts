/*
| One operation of the document, as an endpoint declaration describes it
| (app/http/endpoint.ts, read by app/openapi/declared_operation.ts): who may call it,
| its limits, its input (from the VineJS validators), its success responses (from the
| response shapes) and the error codes it can answer. app/openapi/operation.ts turns it into the document's
| Operation Object.
*/
import type { LimitName } from '#limits/limits'
import type { ErrorCode } from '#exceptions/error_codes'
import type { JsonSchema } from '#openapi/json_schema'

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
    /**
     * Per-part Encoding Objects of a multipart body: a file part's content types, and
     * headers the part must carry (e.g. its `Content-Disposition` with a filename).
     */
    encoding?: Record<string, { contentType: string; headers?: Record<string, object> }>
  }
  /** Success (and other non-error) responses, by status. */
  responses: Record<number, ResponseSpec>
  /** Error codes beyond the implied ones; each is answered with its status (error_codes.ts). */
  errors?: ErrorCode[]
  /** Whether the route's responses use the Portal envelope (false: OAuth, health, docs). */
  envelope?: boolean
  /** Body parsed by the Portal body middleware (413/415 apply); default true on /api/v1 routes. */
  parsesBody?: boolean
  /** The cache policy's headers of success responses (app/http/cache_policy.ts). */
  cacheHeaders?: Record<string, HeaderSpec>
  /**
   * The body another method gets on this path (405 with `Allow`), when it is not the
   * Portal envelope's METHOD_NOT_ALLOWED: the token endpoint answers in OAuth form.
   * Emitted as the path item's `x-method-not-allowed`.
   */
  methodNotAllowed?: JsonSchema
}
