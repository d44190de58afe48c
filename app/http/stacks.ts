/*
| The middleware stacks of each kind of caller, as data: start/register_endpoint.ts
| turns each step into its named middleware, and the OpenAPI document reads the same
| stack for who may call a route, the limits it consumes and its cache policy.
|
| Order: authentication, the API-wide (or public) limit, role, the route's own
| limits, body parsing, merchant scope. So credentials and roles are judged before a
| body is read (401/403 before 422), and every request that gets past authentication
| consumes its limits before anything can refuse it: a role refusal, a malformed or
| unsupported body, a merchant selector naming another merchant ("rejected requests
| also consume limits", portal-api.md › Limits). A limit keyed by a body field (login
| identity, invitation proof) follows body parsing (`afterBody`).
*/
import type { LimitOptions, ThrottledAudit } from '#middleware/limit_middleware'
import type { AuditAction } from '#services/audit/actions'
import type { RoleName } from '#models/user'
import type { Access, LimitRef } from '#openapi/operation_spec'
import { PORTAL_CACHE, SIGNED_LINK_CACHE, type CachePolicy } from '#http/cache_policy'

/** A limit the route consumes: its key (the limiter's) and its key in words (the document's). */
export interface EndpointLimit extends Omit<LimitOptions, 'audit'> {
  per: string
  /** Refusals audited as this action; start/register_endpoint.ts hands in the audit trail. */
  audit?: ThrottledAudit<AuditAction>
}

/** One middleware of a stack, by its name in start/kernel.ts. */
export type StackStep =
  | { use: 'limit'; limit: EndpointLimit }
  | { use: 'portalAuth' }
  | { use: 'appClient' }
  | { use: 'role'; role: RoleName }
  | { use: 'body'; options?: { types?: string[]; ignoreInvalid?: boolean } }
  | { use: 'merchantScope' }
  /** A cache policy of the whole request (`on: 'request'`): its headers come first. */
  | { use: 'privateCache'; policy: CachePolicy }
  /** Machine authentication takes the API-wide limit itself, once the client is known. */
  | { use: 'machineAuth'; scope: string; limit: LimitRef }
  | { use: 'rawBody' }

/** Who may call (typed, so an action knows its actor), the steps, and the cache policy. */
export interface Stack<A extends Access = Access> {
  access: A
  steps: StackStep[]
  /** Every response `Cache-Control: no-store` (DEFAULT_CACHE), or this. */
  cache?: CachePolicy
}

interface PortalOptions {
  /** The route's own limits, after authentication and role. */
  limits?: EndpointLimit[]
  cache?: keyof typeof PORTAL_CACHE
  body?: { types?: string[]; ignoreInvalid?: boolean }
}

const limitStep = (limit: EndpointLimit): StackStep => ({ use: 'limit', limit })
const bodyStep = (options?: PortalOptions['body']): StackStep =>
  options ? { use: 'body', options } : { use: 'body' }
/** A stack's cache policy, and its first step when the policy is the whole request's. */
function cached(policy: CachePolicy | undefined, steps: StackStep[]) {
  if (!policy) return { steps }
  return {
    cache: policy,
    steps: policy.on === 'request' ? [{ use: 'privateCache', policy } as const, ...steps] : steps,
  }
}
const portalCache = (name: PortalOptions['cache']) => (name ? PORTAL_CACHE[name] : undefined)

/** The API-wide limit of a signed-in user (per client IP while the PAT is missing or invalid). */
const API_PER_USER: EndpointLimit = { name: 'api', key: ['user'], per: 'user' }

/** Portal user PAT, either role; API limit per user. */
export function portalStack(options: PortalOptions = {}): Stack<'pat'> {
  return {
    access: 'pat',
    ...cached(portalCache(options.cache), [
      { use: 'portalAuth' },
      limitStep(API_PER_USER),
      ...(options.limits ?? []).map(limitStep),
      bodyStep(options.body),
      { use: 'merchantScope' },
    ]),
  }
}

/** Portal user PAT, administrators only (403 FORBIDDEN before validation). */
export function adminStack(options: PortalOptions = {}): Stack<'admin'> {
  return {
    access: 'admin',
    ...cached(portalCache(options.cache), [
      { use: 'portalAuth' },
      limitStep(API_PER_USER),
      { use: 'role', role: 'administrator' },
      ...(options.limits ?? []).map(limitStep),
      bodyStep(options.body),
      { use: 'merchantScope' },
    ]),
  }
}

/**
 * Portal application credentials (HTTP Basic + X-Service-Application); API limit per
 * IP, counted BEFORE the client secret is hashed: every verification is a scrypt, so
 * failed application authentication is throttled too.
 */
export function appClientStack(
  options: PortalOptions & { afterBody?: EndpointLimit[] } = {}
): Stack<'app'> {
  return {
    access: 'app',
    ...cached(portalCache(options.cache), [
      limitStep({ name: 'api', key: ['ip'], per: 'client IP' }),
      { use: 'appClient' },
      ...(options.limits ?? []).map(limitStep),
      bodyStep(),
      ...(options.afterBody ?? []).map(limitStep),
    ]),
  }
}

/** The public limit per IP, shared by every public route; `audit` names refusals' action. */
const publicLimit = (audit?: AuditAction): EndpointLimit => ({
  name: 'public',
  key: ['ip'],
  per: 'client IP',
  ...(audit ? { audit: { action: audit } } : {}),
})

/** No credentials, a JSON body: the public limit per IP. */
export function publicStack(audit?: AuditAction): Stack<'public'> {
  return { access: 'public', steps: [limitStep(publicLimit(audit)), bodyStep()] }
}

/** No credentials and no body (public files): the public limit per IP; the files' cache policy. */
export function publicReadStack(cache?: CachePolicy): Stack<'public'> {
  return { access: 'public', ...cached(cache, [limitStep(publicLimit())]) }
}

/** The mailed, signed link: its signature is checked by the controller; the public limit. */
export function signedLinkStack(audit: AuditAction): Stack<'signed_link'> {
  return { access: 'signed_link', ...cached(SIGNED_LINK_CACHE, [limitStep(publicLimit(audit))]) }
}

/** Machine access tokens of the given scope; the API limit per machine client. */
export function machineStack(scope: string): Stack<'machine'> {
  return {
    access: 'machine',
    steps: [{ use: 'machineAuth', scope, limit: { name: 'api', per: 'machine client' } }],
  }
}

/** The token endpoint: its own limit per IP, then the raw form body; the token's cache policy. */
export function oauthClientStack(limit: EndpointLimit, cache?: CachePolicy): Stack<'oauth_client'> {
  return { access: 'oauth_client', ...cached(cache, [limitStep(limit), { use: 'rawBody' }]) }
}

/** Open service routes (health, the document): no credentials, no limit; a cache policy. */
export function openStack(cache?: CachePolicy): Stack<'none'> {
  return { access: 'none', ...cached(cache, []) }
}

/** The limits a stack consumes, in order, as the document names them. */
export function limitsOf(stack: Stack): LimitRef[] {
  return stack.steps.flatMap((step) =>
    step.use === 'limit' || step.use === 'machineAuth'
      ? [{ name: step.limit.name, per: step.limit.per }]
      : []
  )
}
