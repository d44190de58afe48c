/*
| The one error kind of the Portal API: an HTTP status, a contract error code and a
| sentence. The exception handler turns it into decisions.md §1's envelope.
*/
export type FieldErrors = Record<string, string[]>

export default class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly fieldErrors?: FieldErrors,
    readonly headers?: Record<string, string>
  ) {
    super(message)
    this.name = 'ApiError'
  }

  static validation(fieldErrors: FieldErrors, message = 'The given data was invalid.') {
    return new ApiError(422, 'VALIDATION_ERROR', message, fieldErrors)
  }

  static field(field: string, message: string) {
    return ApiError.validation({ [field]: [message] })
  }

  static notFound(message = 'The requested resource was not found.') {
    return new ApiError(404, 'NOT_FOUND', message)
  }

  static forbidden(message = 'You are not allowed to perform this action.') {
    return new ApiError(403, 'FORBIDDEN', message)
  }

  static conflict(
    errorCode = 'CONFLICT',
    message = 'The request conflicts with the current state.'
  ) {
    return new ApiError(409, errorCode, message)
  }

  /** 429 with the Retry-After every 429 carries (whole seconds, at least 1). */
  static rateLimited(retryAfterSeconds: number, message = 'Too many requests. Try again later.') {
    return new ApiError(429, 'RATE_LIMITED', message, undefined, retryAfter(retryAfterSeconds))
  }

  /** 503; with Retry-After when the caller knows when to come back. */
  static serviceUnavailable(
    message = 'The service is temporarily unavailable.',
    retryAfterSeconds?: number
  ) {
    return new ApiError(
      503,
      'SERVICE_UNAVAILABLE',
      message,
      undefined,
      retryAfterSeconds === undefined ? undefined : retryAfter(retryAfterSeconds)
    )
  }
}

const retryAfter = (seconds: number) => ({
  'Retry-After': String(Math.max(1, Math.ceil(seconds))),
})
