/*
| The one error kind of the Portal API: a contract error code and a sentence (and the
| fields, and when to retry). The exception handler turns it into decisions.md §1's
| envelope, with the status of its code (error_codes.ts).
*/
import { ERROR_STATUSES, type ConflictCode, type ErrorCode } from '#exceptions/error_codes'

export type FieldErrors = Record<string, string[]>

export default class ApiError extends Error {
  constructor(
    readonly errorCode: ErrorCode,
    message: string,
    readonly fieldErrors?: FieldErrors,
    readonly headers?: Record<string, string>
  ) {
    super(message)
    this.name = 'ApiError'
  }

  /** The HTTP status of its code (error_codes.ts). */
  get status(): number {
    return ERROR_STATUSES[this.errorCode]
  }

  static validation(fieldErrors: FieldErrors, message = 'The given data was invalid.') {
    return new ApiError('VALIDATION_ERROR', message, fieldErrors)
  }

  static field(field: string, message: string) {
    return ApiError.validation({ [field]: [message] })
  }

  static notFound(message = 'The requested resource was not found.') {
    return new ApiError('NOT_FOUND', message)
  }

  static forbidden(message = 'You are not allowed to perform this action.') {
    return new ApiError('FORBIDDEN', message)
  }

  static conflict(
    errorCode: ConflictCode = 'CONFLICT',
    message = 'The request conflicts with the current state.'
  ) {
    return new ApiError(errorCode, message)
  }

  /** 429 with the Retry-After every 429 carries (whole seconds, at least 1). */
  static rateLimited(retryAfterSeconds: number, message = 'Too many requests. Try again later.') {
    return new ApiError('RATE_LIMITED', message, undefined, retryAfter(retryAfterSeconds))
  }

  /**
   * 503 with Retry-After for a request refused by a bound of the service's own (the hash
   * queue, an image lane): load shed by design, counted by the bound's metrics, not an
   * outage (the exception handler logs it apart).
   */
  static shed(message: string, retryAfterSeconds: number) {
    const error = ApiError.serviceUnavailable(message, retryAfterSeconds)
    error.shed = true
    return error
  }

  /** Set by shed(). */
  shed = false

  /** 503; with Retry-After when the caller knows when to come back. */
  static serviceUnavailable(
    message = 'The service is temporarily unavailable.',
    retryAfterSeconds?: number
  ) {
    return new ApiError(
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
