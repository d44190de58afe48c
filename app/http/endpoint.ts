/*
| One declaration per endpoint, kept beside its controller
| (app/controllers/<resource>_endpoints.ts): its route (method, path, name, handler),
| the middleware stack of its kind of caller with the limits it consumes, and what the
| OpenAPI document says of it. start/routes.ts registers the declarations and
| app/openapi/document.ts describes the same ones, so a route cannot be served
| without its description, nor consume a limit its description does not name: both
| read the limits from the one stack.
|
| A stack is data (the steps below); start/register_endpoint.ts turns each step into its
| named middleware. Order: authentication, the API-wide (or public) limit, role, the
| route's own limits, body parsing, merchant scope. So credentials and roles are
| judged before a body is read (401/403 before 422), and every request that gets past
| authentication consumes its limits before anything can refuse it: a role refusal, a
| malformed or unsupported body, a merchant selector naming another merchant
| ("rejected requests also consume limits", portal-api.md › Limits). A limit keyed by
| a body field (login identity, invitation proof) follows body parsing (`afterBody`).
*/
import type { Constructor, LazyImport } from '@adonisjs/core/types/common'
import type { GetControllerHandlers, RouteMatcher } from '@adonisjs/core/types/http'
import type { LimitOptions, ThrottledAudit } from '#middleware/limit_middleware'
import type { AuditAction } from '#services/audit/actions'
import type { RoleName } from '#models/user'
import type { Access, HttpMethod, LimitRef, OperationSpec } from '#openapi/operation_spec'

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
  | { use: 'privateCache'; options?: { credential: true } }
  /** Machine authentication takes the API-wide limit itself, once the client is known. */
  | { use: 'machineAuth'; scope: string; limit: LimitRef }
  | { use: 'rawBody' }

export interface Stack {
  access: Access
  steps: StackStep[]
}

interface PortalOptions {
  /** The route's own limits, after authentication and role. */
  limits?: EndpointLimit[]
  /** `private`: member, team-list and key data; `credential`: the one-time secret. */
  cache?: 'private' | 'credential'
  body?: { types?: string[]; ignoreInvalid?: boolean }
}

const limitStep = (limit: EndpointLimit): StackStep => ({ use: 'limit', limit })
const bodyStep = (options?: PortalOptions['body']): StackStep =>
  options ? { use: 'body', options } : { use: 'body' }
const cacheSteps = (cache: PortalOptions['cache']): StackStep[] =>
  cache === 'credential'
    ? [{ use: 'privateCache', options: { credential: true } }]
    : cache === 'private'
      ? [{ use: 'privateCache' }]
      : []

/** The API-wide limit of a signed-in user (per client IP while the PAT is missing or invalid). */
const API_PER_USER: EndpointLimit = { name: 'api', key: ['user'], per: 'user' }

/** Portal user PAT, either role; API limit per user. */
export function portalStack(options: PortalOptions = {}): Stack {
  return {
    access: 'pat',
    steps: [
      ...cacheSteps(options.cache),
      { use: 'portalAuth' },
      limitStep(API_PER_USER),
      ...(options.limits ?? []).map(limitStep),
      bodyStep(options.body),
      { use: 'merchantScope' },
    ],
  }
}

/** Portal user PAT, administrators only (403 FORBIDDEN before validation). */
export function adminStack(options: PortalOptions = {}): Stack {
  return {
    access: 'admin',
    steps: [
      ...cacheSteps(options.cache),
      { use: 'portalAuth' },
      limitStep(API_PER_USER),
      { use: 'role', role: 'administrator' },
      ...(options.limits ?? []).map(limitStep),
      bodyStep(options.body),
      { use: 'merchantScope' },
    ],
  }
}

/**
 * Portal application credentials (HTTP Basic + X-Service-Application); API limit per
 * IP, counted BEFORE the client secret is hashed: every verification is a scrypt, so
 * failed application authentication is throttled too.
 */
export function appClientStack(
  options: PortalOptions & { afterBody?: EndpointLimit[] } = {}
): Stack {
  return {
    access: 'app',
    steps: [
      ...cacheSteps(options.cache),
      limitStep({ name: 'api', key: ['ip'], per: 'client IP' }),
      { use: 'appClient' },
      ...(options.limits ?? []).map(limitStep),
      bodyStep(),
      ...(options.afterBody ?? []).map(limitStep),
    ],
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
export function publicStack(audit?: AuditAction): Stack {
  return { access: 'public', steps: [limitStep(publicLimit(audit)), bodyStep()] }
}

/** No credentials and no body (public files): the public limit per IP. */
export function publicReadStack(): Stack {
  return { access: 'public', steps: [limitStep(publicLimit())] }
}

/** The mailed, signed link: its signature is checked by the controller; the public limit. */
export function signedLinkStack(audit: AuditAction): Stack {
  return { access: 'signed_link', steps: [limitStep(publicLimit(audit))] }
}

/** Machine access tokens of the given scope; the API limit per machine client. */
export function machineStack(scope: string): Stack {
  return {
    access: 'machine',
    steps: [{ use: 'machineAuth', scope, limit: { name: 'api', per: 'machine client' } }],
  }
}

/** The token endpoint: its own limit per IP, then the raw form body. */
export function oauthClientStack(limit: EndpointLimit): Stack {
  return { access: 'oauth_client', steps: [limitStep(limit), { use: 'rawBody' }] }
}

/** Open service routes (health, the document): no credentials, no limit. */
export function openStack(): Stack {
  return { access: 'none', steps: [] }
}

/** The limits a stack consumes, in order, as the document names them. */
function limitsOf(stack: Stack): LimitRef[] {
  return stack.steps.flatMap((step) =>
    step.use === 'limit' || step.use === 'machineAuth'
      ? [{ name: step.limit.name, per: step.limit.per }]
      : []
  )
}

/** What the document says of an endpoint beyond what its route and stack state. */
type Documentation = Omit<OperationSpec, 'method' | 'path' | 'access' | 'limits' | 'pathParameters'>

export interface EndpointDeclaration extends Documentation {
  method: HttpMethod
  /** Router pattern (`:param`); the document writes `{param}`. */
  path: string
  /** Route name (`.as`): what signed URLs and tests use. */
  name: string
  stack: Stack
  /** Matchers of this route's own parameters (shared ones: start/routes.ts). */
  where?: Record<string, RouteMatcher>
  /** `false`: a GET that does not answer HEAD (HEAD → 405). */
  head?: false
}

export interface Endpoint extends EndpointDeclaration {
  handler: [LazyImport<Constructor<any>>, string]
}

/**
 * The endpoints of one controller, by action: each action name must be a handler of
 * the controller.
 */
export function endpointsOf<
  Controller extends Constructor<any>,
  Action extends GetControllerHandlers<Controller> & string,
>(
  controller: LazyImport<Controller>,
  declarations: Record<Action, EndpointDeclaration>
): Record<Action, Endpoint> {
  const endpoints = {} as Record<Action, Endpoint>
  for (const action of Object.keys(declarations) as Action[]) {
    endpoints[action] = { ...declarations[action], handler: [controller, action] }
  }
  return endpoints
}

/** The OpenAPI path of a router pattern: `:param` becomes `{param}`. */
const documentPath = (pattern: string) => pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}')

/** The operation the document describes for an endpoint. */
export function operationOf(endpoint: Endpoint): OperationSpec {
  const { stack, name, where, head, handler, ...documentation } = endpoint
  const limits = limitsOf(stack)
  const pathParameters = [...endpoint.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1])
  return {
    ...documentation,
    path: documentPath(endpoint.path),
    access: stack.access,
    limits: limits.length ? limits : 'none',
    ...(pathParameters.length ? { pathParameters } : {}),
  }
}
