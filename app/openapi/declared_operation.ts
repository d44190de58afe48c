/*
| The operation the document describes for an endpoint declaration
| (app/http/endpoint.ts), read from the fields the server runs with: the path and
| stack (access, limits, cache policy), the validators of its query and body, and
| its success response (shape and message). app/openapi/operation.ts turns it into
| the document's Operation Object.
*/
import type { BodyDeclaration, Endpoint, ResponseDeclaration } from '#http/endpoint'
import { limitsOf } from '#http/stacks'
import { DEFAULT_CACHE, documentedHeaders } from '#http/cache_policy'
import { inputJsonSchema, queryParameters } from '#openapi/json_schema'
import { messageOnly, ok, page } from '#openapi/components'
import type { OperationSpec, ResponseSpec } from '#openapi/operation_spec'

/** The OpenAPI path of a router pattern: `:param` becomes `{param}`. */
const documentPath = (pattern: string) => pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}')

const bodySchema = (body: BodyDeclaration) => ({
  ...inputJsonSchema(body.input, body.overrides),
  ...body.enforcedByPrechecks,
})

function bodyOf(endpoint: Endpoint): OperationSpec['body'] {
  const body = endpoint.body
  if (!body) return endpoint.documentedBody
  if ('forms' in body) {
    const forms = Object.entries(body.forms)
    return { schema: { oneOf: forms.map(([title, form]) => ({ title, ...bodySchema(form) })) } }
  }
  return { schema: bodySchema(body), ...(body.required === false ? { required: false } : {}) }
}

function successOf(response: ResponseDeclaration): Record<number, ResponseSpec> {
  const status = response.status ?? 200
  const { description, data, list, message, headers } = response
  const schema =
    status === 204
      ? undefined
      : list
        ? page(data!, list.meta)
        : data
          ? ok(data, { message })
          : messageOnly(message)
  return {
    [status]: { description, ...(schema ? { schema } : {}), ...(headers ? { headers } : {}) },
  }
}

export function operationOf(endpoint: Endpoint): OperationSpec {
  const { stack, query } = endpoint
  const limits = limitsOf(stack)
  const pathParameters = [...endpoint.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1])
  const queryParametersOf = query
    ? queryParameters(query.input, query.overrides, query.descriptions)
    : endpoint.queryParameters
  const body = bodyOf(endpoint)
  return {
    method: endpoint.method,
    path: documentPath(endpoint.path),
    operationId: endpoint.operationId,
    tag: endpoint.tag,
    summary: endpoint.summary,
    description: endpoint.description,
    access: stack.access,
    limits: limits.length ? limits : 'none',
    ...(pathParameters.length ? { pathParameters } : {}),
    ...(queryParametersOf ? { query: queryParametersOf } : {}),
    ...(body ? { body } : {}),
    responses: {
      ...(endpoint.response ? successOf(endpoint.response) : {}),
      ...endpoint.responses,
    },
    ...(endpoint.errors ? { errors: endpoint.errors } : {}),
    ...(endpoint.envelope !== undefined ? { envelope: endpoint.envelope } : {}),
    ...(endpoint.parsesBody !== undefined ? { parsesBody: endpoint.parsesBody } : {}),
    cacheHeaders: documentedHeaders(stack.cache ?? DEFAULT_CACHE),
    ...(endpoint.methodNotAllowed ? { methodNotAllowed: endpoint.methodNotAllowed } : {}),
  }
}
