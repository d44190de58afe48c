/*
| The limits of an operation as the document states them: in its description (the
| number per minute, the key, the variable that overrides it) and as `x-limits`.
*/
import { LIMITS } from '#limits/limits'
import type { LimitRef, OperationSpec } from '#openapi/operation_spec'

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

/** The **Limits** paragraph of an operation's description. */
export function limitsParagraph(limits: OperationSpec['limits']): string {
  if (limits === 'none') return '**Limits:** none.'
  const list = limits.map((limit) => `- ${limitText(limit)}`).join('\n')
  return `**Limits** (a refused request counts too; 429 \`RATE_LIMITED\` carries \`Retry-After\`):\n${list}`
}

/** The `x-limits` extension: each limit with its number per minute, key and variable. */
export function limitsExtension(limits: OperationSpec['limits']) {
  return limits === 'none'
    ? []
    : limits.map((limit) => ({
        name: limit.name,
        per_minute: LIMITS[limit.name].perMinute,
        key: limit.per,
        env: LIMITS[limit.name].env,
      }))
}
