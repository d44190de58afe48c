/*
| The middleware stacks of start/routes.ts, one per kind of caller. Order:
| authentication, the API-wide (or public) limit, role, the route's own limits
| (passed on its route line), body parsing, merchant scope. So credentials and roles
| are judged before a body is read (401/403 before 422), and every request that gets
| past authentication consumes its limits before anything can refuse it: a role
| refusal, a malformed or unsupported body, a merchant selector naming another
| merchant ("rejected requests also consume limits", portal-api.md › Limits). A limit
| keyed by a body field (login identity, invitation proof) follows the stack on its
| route line, where the body is parsed.
*/
import { middleware } from '#start/kernel'
import type { LimitOptions } from '#middleware/limit_middleware'

/** A route's own limit, `middleware.limit({...})` on its route line. */
type RouteLimit = ReturnType<typeof middleware.limit>

/**
 * Portal application credentials (HTTP Basic + X-Service-Application); API limit per
 * IP, counted BEFORE the client secret is hashed: every verification is
 * a scrypt, so failed application authentication is throttled too.
 */
export const appClientStack = (...routeLimits: RouteLimit[]) => [
  middleware.limit({ name: 'api', key: ['ip'] }),
  middleware.appClient(),
  ...routeLimits,
  middleware.body(),
]

/**
 * No credentials: the public limit per IP, shared by every public route. `audit`
 * names the action a refusal is audited as (throttled public mutations).
 */
export const publicStack = (audit?: LimitOptions['audit']) => [
  middleware.limit({ name: 'public', key: ['ip'], audit }),
  middleware.body(),
]

/** Portal user PAT, either role; API limit per user. */
export const portalStack = (...routeLimits: RouteLimit[]) => [
  middleware.portalAuth(),
  middleware.limit({ name: 'api', key: ['user'] }),
  ...routeLimits,
  middleware.body(),
  middleware.merchantScope(),
]

/** Portal user PAT, administrators only (403 FORBIDDEN before validation). */
export const adminStack = (...routeLimits: RouteLimit[]) => [
  middleware.portalAuth(),
  middleware.limit({ name: 'api', key: ['user'] }),
  middleware.role({ role: 'administrator' }),
  ...routeLimits,
  middleware.body(),
  middleware.merchantScope(),
]
