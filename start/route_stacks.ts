/*
| The middleware stacks of start/routes.ts, one per kind of caller. Order:
| authentication, role, the API-wide (or public) limit, body parsing, merchant
| scope; a route's own limit follows on its route line. So credentials and roles
| are judged before a body is read (401/403 before 422), and a limit keyed by a
| body field (login identity, invitation proof) can read it.
*/
import { middleware } from '#start/kernel'
import type { LimitOptions } from '#middleware/limit_middleware'

/**
 * Portal application credentials (HTTP Basic + X-Service-Application); API limit per
 * IP, counted BEFORE the client secret is hashed (issue 9 › 4): every verification is
 * a scrypt, so failed application authentication is throttled too.
 */
export const appClientStack = () => [
  middleware.limit({ name: 'api', key: ['ip'] }),
  middleware.appClient(),
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
export const portalStack = () => [
  middleware.portalAuth(),
  middleware.limit({ name: 'api', key: ['user'] }),
  middleware.body(),
  middleware.merchantScope(),
]

/** Portal user PAT, administrators only (403 FORBIDDEN before validation). */
export const adminStack = () => [
  middleware.portalAuth(),
  middleware.role({ role: 'administrator' }),
  middleware.limit({ name: 'api', key: ['user'] }),
  middleware.body(),
  middleware.merchantScope(),
]
