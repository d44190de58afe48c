/*
| The router's handler of one endpoint declaration (app/http/endpoint.ts), in the
| order the contract answers in: the query (422), the resource the route names
| (`resolve`: 404/410 before 422), the body (422), then the controller's action with
| the validated value, the actor its stack authenticated and, where the declaration
| asks, the client's departure as an AbortSignal; then the success answer
| the declaration names (its transformer, message and status) with its stack's cache
| policy of success answers (app/http/cache_policy.ts). A query whose currency
| the catalogue must accept is checked beside the action and joined to its outcome
| (app/validators/rules/currency.ts).
|
| What varies between declarations is chosen here once, at registration; a request
| runs only its own steps. The controller is made once, on first use (no container
| per request: start/register_endpoint.ts).
*/
import type { HttpContext } from '@adonisjs/core/http'
import type { Constructor, LazyImport } from '@adonisjs/core/types/common'
import type { Access } from '#openapi/operation_spec'
import type { BodyDeclaration, Endpoint, PageRequest, ResponseDeclaration } from '#http/endpoint'
import { headersOf } from '#http/cache_policy'
import { clientGoneSignal } from '#http/client_gone'
import { noContent, pageMeta, respond } from '#http/responses'
import {
  validateBody,
  validateBodyWithPrechecks,
  validateQuery,
  validateQueryWithCatalogue,
} from '#http/request_input'
import { afterCatalogue } from '#validators/rules/currency'
import { pageOf } from '#validators/rules/pagination'

type ActionFn = (
  input: unknown,
  actor: unknown,
  ctx: HttpContext,
  prepared: unknown,
  signal: AbortSignal | undefined
) => unknown

/** The actor each kind of stack leaves on the request (nothing for the others). */
const ACTORS: Record<Access, (ctx: HttpContext) => unknown> = {
  pat: (ctx) => ctx.actor,
  admin: (ctx) => ctx.actor,
  app: (ctx) => ctx.portalClient,
  machine: (ctx) => ctx.machine,
  public: () => undefined,
  signed_link: () => undefined,
  oauth_client: () => undefined,
  none: () => undefined,
}

function bodyReader(body: BodyDeclaration): (ctx: HttpContext) => Promise<unknown> {
  const prechecks = body.prechecks
  return prechecks
    ? (ctx) => validateBodyWithPrechecks(ctx, body.input, prechecks)
    : (ctx) => validateBody(ctx, body.input)
}

/** Sends the success answer a declaration names for the action's result. */
function responder(response: ResponseDeclaration) {
  const status = response.status ?? 200
  if (status === 204) return (ctx: HttpContext) => noContent(ctx)
  const { transformer, messageOf, list } = response
  const message = response.message ?? ''
  if (list) {
    const carried = list.carries ?? []
    return (ctx: HttpContext, result: any, page: PageRequest) => {
      const meta: Record<string, unknown> = pageMeta(page.page, page.perPage, result.total)
      for (const field of carried) meta[field] = result[field]
      const data = transformer ? transformer.transform(result.items) : result.items
      respond(ctx, status, messageOf ? messageOf(result) : message, data, meta)
    }
  }
  return (ctx: HttpContext, result: unknown) => {
    const data = transformer ? transformer.transform(result) : result
    respond(ctx, status, messageOf ? messageOf(result) : message, data)
  }
}

export function handlerOf(endpoint: Endpoint, load: LazyImport<Constructor<any>>) {
  const actorOf = ACTORS[endpoint.stack.access]
  const query = endpoint.query
  const lookup = query?.catalogue
  const asInput = query?.as
  const resolve = endpoint.resolve
  const body = endpoint.body
  const readBody = body && 'input' in body ? bodyReader(body) : undefined
  const forms =
    body && 'forms' in body
      ? {
          readers: Object.fromEntries(
            Object.entries(body.forms).map(([name, form]) => [name, bodyReader(form)])
          ),
          formOf: body.formOf,
        }
      : undefined
  const answer = endpoint.response ? responder(endpoint.response) : undefined
  const cache = endpoint.stack.cache
  // A policy of the whole request is its stack's first step (start/register_endpoint.ts).
  const successHeaders = cache?.on === 'success' ? headersOf(cache) : undefined
  const paged = endpoint.response?.list !== undefined
  const signalOf = endpoint.dropsWorkWhenClientLeaves ? clientGoneSignal : () => undefined

  let action: ActionFn | undefined
  const loadAction = async () => {
    const { default: Controller } = await load()
    const controller = new Controller()
    return (controller[endpoint.action] as ActionFn).bind(controller)
  }

  const handler = async (ctx: HttpContext) => {
    action ??= await loadAction()
    const actor = actorOf(ctx)
    let input: unknown
    let catalogue: Promise<void> | undefined
    if (query) {
      if (lookup) {
        const reading = await validateQueryWithCatalogue(ctx, query.input, lookup)
        input = reading.input
        catalogue = reading.catalogue
      } else {
        input = await validateQuery(ctx, query.input)
      }
      if (asInput) input = asInput(input)
    }
    let prepared: unknown
    if (resolve) prepared = await resolve(ctx, actor)
    else if (paged) prepared = pageOf(input as { page?: number; per_page?: number })
    if (readBody) input = await readBody(ctx)
    else if (forms) input = await forms.readers[forms.formOf(prepared)](ctx)
    const work = action(input, actor, ctx, prepared, signalOf(ctx))
    const result = catalogue
      ? await afterCatalogue(catalogue, work as Promise<unknown>)
      : await work
    if (successHeaders) for (const [name, value] of successHeaders) ctx.response.header(name, value)
    if (answer) answer(ctx, result, prepared as PageRequest)
  }
  // What `node ace list:routes` shows as the route's handler.
  Object.defineProperty(handler, 'name', { value: `${load.name}.${endpoint.action}` })
  return handler
}
