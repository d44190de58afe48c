/*
| Every error code the service answers with (decisions.md §1's `error_code`) and the
| one HTTP status it goes with. Operations throw an error code (ApiError); only the
| exception handler, through this table, turns it into a status.
*/
export const ERROR_STATUSES = {
  RESET_TOKEN_INVALID: 400,
  ACCESS_TOKEN_INVALID: 401,
  ECOSYSTEM_CLIENT_UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  UNAUTHENTICATED: 401,
  ACCESS_TOKEN_SCOPE_INSUFFICIENT: 403,
  CLIENT_MERCHANT_NOT_AUTHORIZED: 403,
  ECOSYSTEM_APPLICATION_NOT_AUTHORIZED: 403,
  FORBIDDEN: 403,
  INSUFFICIENT_SCOPE: 403,
  INVALID_SIGNATURE: 403,
  MERCHANT_SCOPE_MISMATCH: 403,
  MERCHANT_USER_NOT_AUTHORIZED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  INVITATION_ALREADY_PENDING: 409,
  LAST_ADMINISTRATOR: 409,
  MEMBER_ALREADY_EXISTS: 409,
  USER_BELONGS_TO_ANOTHER_MERCHANT: 409,
  USER_IDENTITY_CONFLICT: 409,
  USER_NOT_ELIGIBLE: 409,
  GONE: 410,
  INVITATION_UNAVAILABLE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_ERROR: 422,
  RATE_LIMITED: 429,
  SERVER_ERROR: 500,
  MERCHANT_MACHINE_API_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUSES

/** The codes answered with 409: what a conflict may be called. */
export type ConflictCode = {
  [Code in ErrorCode]: (typeof ERROR_STATUSES)[Code] extends 409 ? Code : never
}[ErrorCode]

/** Whether a code is one of the conflicts, so that operations need not name a status. */
export function isConflict(code: ErrorCode): code is ConflictCode {
  return ERROR_STATUSES[code] === 409
}
