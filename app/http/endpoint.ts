/*
| One declaration per endpoint, kept beside its controller
| (app/controllers/<resource>_endpoints.ts): its route (method, path, name), the stack
| of its kind of caller with the limits it consumes and its cache policy
| (app/http/stacks.ts), its input (the body and query validators), its success
| response (shape, transformer, message) and what else the OpenAPI document says of
| it. start/register_endpoint.ts serves it: it validates the input, calls the
| controller's action with the validated value and the actor, and answers with the
| response the declaration names. app/openapi/declared_operation.ts describes it from
| the same fields, so nothing is kept the same by hand.
|
| A declaration imports no controller: the controller imports its declarations (for
| the types of its actions) and start/routes.ts pairs the two.
*/
import type { HttpContext } from '@adonisjs/core/http'
import type { RouteMatcher } from '@adonisjs/core/types/http'
import type { PortalActor } from '#auth/actor'
import type { MachineSession } from '#middleware/machine_auth_middleware'
import type PortalClient from '#models/portal_client'
import type { InputOf, InputSchema, Prechecks } from '#validators/rules/input'
import type { CatalogueLookup } from '#validators/rules/currency'
import type { FieldOverrides, JsonSchema, Schema } from '#openapi/json_schema'
import type { Access, HeaderSpec, HttpMethod, OperationSpec } from '#openapi/operation_spec'
import type { Stack } from '#http/stacks'

/** A body the route validates, and what the document adds to its generated schema. */
export interface BodyDeclaration<Input extends InputSchema<any> = InputSchema<any>> {
  input: Input
  /** Field errors found before validation, answered in the same 422. */
  prechecks?: (body: unknown) => Prechecks<InputOf<Input>>
  /** Document: fields whose VineJS rule emits no JSON Schema of its own. */
  overrides?: FieldOverrides
  /** Document: keywords of what `prechecks` enforces (e.g. `minProperties: 1`). */
  enforcedByPrechecks?: JsonSchema
  /** `false`: no body is expected (NO_BODY: any field is refused). */
  required?: false
}

/**
 * A body whose form depends on the resource (invitation acceptance): `formOf` names
 * the one to validate once `resolve` has found the resource; the document lists them
 * all, under their names.
 */
export interface BodyFormsDeclaration<Forms extends Record<string, BodyDeclaration>, Resource> {
  forms: Forms
  formOf: (resource: Resource) => keyof Forms
}

/** A query the route validates, and how the document describes its parameters. */
export interface QueryDeclaration<Input extends InputSchema<any> = InputSchema<any>, Value = any> {
  input: Input
  /** Whose `currency` the catalogue must accept, checked beside the operation. */
  catalogue?: CatalogueLookup
  /** The operation's input made of the validated query (what the action gets). */
  as?: (input: any) => Value
  /** Document: fields whose VineJS rule emits no JSON Schema of its own. */
  overrides?: FieldOverrides
  /** Document: each parameter's description. */
  descriptions?: Record<string, string>
}

/** The success answer: the envelope's `data` shape and message, and the transformer. */
export interface ResponseDeclaration {
  /** 200 unless said. */
  status?: 200 | 201 | 204
  description: string
  /** The shape of `data` (of each item of a list); none: `data: null`. */
  data?: JsonSchema
  /** Turns the action's record into `data` (each item of a list). */
  transformer?: ShapeTransformer<any, any>
  /**
   * A list: the action returns `{ items, total }` for the page it was handed, and the
   * fields `carries` names, which `meta` carries beside the page's (its shape: `meta`).
   */
  list?: { meta?: JsonSchema; carries?: readonly string[] }
  message?: string
  /** A message that depends on the outcome; `message` is the one the document shows. */
  messageOf?: (record: any) => string
  headers?: Record<string, HeaderSpec>
}

/** A transformer class of app/transformers (PortalTransformer). */
export interface ShapeTransformer<Record, Shape> {
  new (resource: Record): { toObject(): Shape }
  transform(resource: Record): Shape
  transform(resources: Record[]): Shape[]
}

/** What the document says of an endpoint beyond what its other fields state. */
type Documentation = Pick<
  OperationSpec,
  'operationId' | 'tag' | 'summary' | 'description' | 'errors' | 'envelope' | 'parsesBody'
> & {
  /** Documented query parameters of a route that validates none itself (the signed link). */
  queryParameters?: object[]
  /** A body the route reads itself (multipart, the OAuth form): documented only. */
  documentedBody?: OperationSpec['body']
  /** Responses answered by the action itself (no envelope), by status. */
  responses?: OperationSpec['responses']
  methodNotAllowed?: OperationSpec['methodNotAllowed']
}

export interface EndpointDeclaration<A extends Access = Access> extends Documentation {
  method: HttpMethod
  /** Router pattern (`:param`); the document writes `{param}`. */
  path: string
  /** Route name (`.as`): what signed URLs and tests use. */
  name: string
  stack: Stack<A>
  /** Matchers of this route's own parameters (shared ones: start/routes.ts). */
  where?: Record<string, RouteMatcher>
  /** `false`: a GET that does not answer HEAD (HEAD → 405). */
  head?: false
  query?: QueryDeclaration
  /** Found before the body is validated (404/410 before 422); handed to the action. */
  resolve?: (ctx: HttpContext, actor: any) => Promise<unknown>
  body?: BodyDeclaration | BodyFormsDeclaration<Record<string, BodyDeclaration>, any>
  response?: ResponseDeclaration
  /**
   * `true`: work the action queues (a password hash, an image) is dropped once its
   * client has gone; the action gets the request's AbortSignal (app/http/client_gone.ts).
   */
  dropsWorkWhenClientLeaves?: true
}

/** A declaration as registered: its action's name in the controller. */
export type Endpoint<D extends EndpointDeclaration = EndpointDeclaration> = D & { action: string }

/** The endpoints of one controller, by action (the name of its method). */
export function endpointsOf<const Declarations extends Record<string, EndpointDeclaration<any>>>(
  declarations: Declarations
): { [Name in keyof Declarations]: Declarations[Name] & { action: Name } } {
  const endpoints: Record<string, Endpoint> = {}
  for (const [action, declaration] of Object.entries(declarations)) {
    endpoints[action] = { ...declaration, action }
  }
  return endpoints as any
}

/** Who acts, as the stack authenticated it. */
export type ActorOf<A> = A extends 'pat' | 'admin'
  ? PortalActor
  : A extends 'app'
    ? PortalClient
    : A extends 'machine'
      ? MachineSession
      : undefined

type FormValue<F> = {
  [K in keyof F]: F[K] extends { input: infer I } ? InputOf<I> : never
}[keyof F]

/** The validated value the action gets: the body's, else the query's (or what `as` makes of it). */
export type InputValue<D> = D extends { body: { input: infer I } }
  ? InputOf<I>
  : D extends { body: { forms: infer F } }
    ? FormValue<F>
    : D extends { query: { as: (input: any) => infer V } }
      ? V
      : D extends { query: { input: infer I } }
        ? InputOf<I>
        : undefined

/** The page a list asks for (`page`, `per_page` of its query, defaulted). */
export interface PageRequest {
  page: number
  perPage: number
}

/** What registration prepared besides the input: the resolved resource, or a list's page. */
export type PreparedOf<D> = D extends { resolve: (...args: any[]) => Promise<infer R> }
  ? R
  : D extends { response: { list: object } }
    ? PageRequest
    : undefined

type RecordOf<T> = T extends new (resource: infer R) => unknown ? R : never

/** What the action returns: the transformer's record, a list of them, or the shape itself. */
export type ResultOf<D> = D extends { response: infer R }
  ? R extends { list: object; transformer: infer T }
    ? { items: RecordOf<T>[]; total: number }
    : R extends { list: object; data: Schema<infer S> }
      ? { items: S[]; total: number }
      : R extends { transformer: infer T }
        ? RecordOf<T>
        : R extends { data: Schema<infer S> }
          ? S
          : R extends { messageOf: (record: infer M) => string }
            ? M
            : void
  : void

/** The signal an action gets: its client's departure, where the declaration asks for it. */
export type SignalOf<D> = D extends { dropsWorkWhenClientLeaves: true } ? AbortSignal : undefined

/**
 * The action of a declaration: the validated input, the actor of its stack, the
 * request (for what the stack put on it, the route's parameters, a stream), what
 * registration prepared (`PreparedOf`) and the client's departure (`SignalOf`).
 */
export type Action<D> =
  D extends EndpointDeclaration<infer A>
    ? (
        input: InputValue<D>,
        actor: ActorOf<A>,
        ctx: HttpContext,
        prepared: PreparedOf<D>,
        signal: SignalOf<D>
      ) => Promise<ResultOf<D>> | ResultOf<D>
    : never

/** The actions a controller owes its declarations, by name. */
export type ActionsOf<Endpoints> = { [Name in keyof Endpoints]: Action<Endpoints[Name]> }
