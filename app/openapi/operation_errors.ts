/*
| The error responses of an operation: the codes it declares, and what its access kind
| and input imply (the authentication errors, 413/415/422, 429 with Retry-After, 500
| and 503), so that no endpoint repeats them and none forgets them; each status with
| its exact `error_code` values in the decisions.md §1 envelope.
*/
import { ERROR_STATUSES, type ErrorCode } from '#exceptions/error_codes'
import { schema, type JsonSchema } from '#openapi/json_schema'
import { ref } from '#openapi/components'
import { AUTH_ERRORS, CHALLENGES } from '#openapi/access'
import type { HeaderSpec, OperationSpec, ResponseSpec } from '#openapi/operation_spec'

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

/** The error responses of an operation, by status (with Cache-Control, and the challenge or Retry-After). */
export function errorResponses(
  spec: OperationSpec,
  envelope: boolean,
  parsesBody: boolean
): Record<string, ResponseSpec> {
  // Outside the Portal envelope (OAuth, health, the docs) only the declared codes.
  const implied = envelope ? impliedErrors(spec, parsesBody) : []
  const errors = errorsByStatus([...implied, ...(spec.errors ?? [])])

  const responses: Record<string, ResponseSpec> = {}
  for (const status of Object.keys(errors).map(Number).sort()) {
    const codes = [...errors[status]]
    const headers: Record<string, HeaderSpec> = {
      'Cache-Control': {
        description: 'Errors are never cached.',
        schema: { type: 'string', pattern: '^no-store' },
        required: true,
      },
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
    if (status === 503) {
      // Not on every 503: an unreachable database has no known end; shed load does.
      headers['Retry-After'] = {
        description:
          'When the service sheds load (busy image lane, password hashing queue): whole seconds after which a retry is expected to be admitted.',
        schema: { type: 'string', pattern: '^[1-9][0-9]*$' },
        required: false,
      }
    }
    responses[String(status)] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((code) => `\`${code}\``).join(', ')}`,
      schema: errorEnvelope(status, codes),
      headers,
    }
  }
  return responses
}
