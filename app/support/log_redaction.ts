/*
| Credentials never reach a log line: a key named like a credential is censored in the
| object of every log line, at the top and two levels down (`{ body: { password } }`,
| `req.headers.authorization`), in objects and arrays alike; config/logger.ts has pino
| censor the same keys in a child logger's bindings.
|
| config/logger.ts runs this as a pino formatter rather than as pino's `redact` paths:
| with wildcard paths pino runs its redactor over every value of every line, strings
| and numbers included, so every field a line carries (trace_id, span_id) cost a
| request measurable CPU (bench/tracing_overhead.ts). This walk reads the keys once and
| copies only an object that holds a credential; the caller's object is never changed.
*/
export const SECRET_KEYS = [
  'password',
  'password_confirmation',
  'current_password',
  'token',
  'access_token',
  'client_secret',
  'secret',
  'otp',
  'value',
  'proof',
  'signature',
  'authorization',
  'cookie',
]

export const CENSOR = '[redacted]'

const SECRETS = new Set(SECRET_KEYS)
const DEEPEST = 2

/** A copy to censor: same prototype; an error keeps its message and stack (not enumerable). */
function copyOf(value: object): object {
  if (Array.isArray(value)) return [...value]
  const copy = Object.assign(Object.create(Object.getPrototypeOf(value)), value)
  if (value instanceof Error) Object.assign(copy, { message: value.message, stack: value.stack })
  return copy
}

/** `value` with every credential censored down to two levels below the top; `value` itself when it holds none. */
export function redactSecrets<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value
  let copy: object | undefined
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    const current = (value as Record<string, unknown>)[key]
    const next = SECRETS.has(key)
      ? CENSOR
      : depth < DEEPEST
        ? redactSecrets(current, depth + 1)
        : current
    if (next === current) continue
    copy ??= copyOf(value)
    Reflect.set(copy, key, next)
  }
  return (copy ?? value) as T
}
