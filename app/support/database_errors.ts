/*
| What a database error means for the API: "the database is not there right now"
| (503 SERVICE_UNAVAILABLE rather than a bug, 500), or a unique index that a
| concurrent writer won (each caller maps it to its contract conflict). Pure,
| unit-tested.
*/

/** SQLSTATE 23505: a unique index refused the row. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505'
}

/**
 * Runs `operation`; when a unique index refuses its row (a concurrent writer won the
 * race past the caller's own check), throws `conflict()` instead.
 */
export async function onUniqueViolation<T>(
  operation: () => Promise<T>,
  conflict: () => Error
): Promise<T> {
  try {
    return await operation()
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict()
    throw error
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])

// SQLSTATE: 08 connection exception, 53 insufficient resources, 57P0x operator
// intervention (shutdown, cannot connect now), 57014 statement timeout, 55000 database
// not accepting connections, 3D000 database missing.
const SQLSTATE_PREFIXES = ['08', '53', '57P']
const SQLSTATES = new Set(['57014', '55000', '3D000'])

const MESSAGES = [
  /timeout acquiring a connection/i,
  /connection terminated/i,
  /connection (?:was )?(?:closed|ended)/i,
  /client has encountered a connection error/i,
  /the database system is (?:starting up|shutting down)/i,
]

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object') return false
  const { code, message, name } = error as { code?: unknown; message?: unknown; name?: unknown }
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || SQLSTATES.has(code)) return true
    if (/^[0-9A-Z]{5}$/.test(code) && SQLSTATE_PREFIXES.some((prefix) => code.startsWith(prefix))) {
      return true
    }
  }
  if (name === 'KnexTimeoutError') return true
  if (typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message))) return true
  const cause = (error as { cause?: unknown }).cause
  // Bounded: a cycle of causes must not overflow the stack inside the error handler.
  return cause !== undefined && cause !== error && depth < 8
    ? isDatabaseUnavailable(cause, depth + 1)
    : false
}
