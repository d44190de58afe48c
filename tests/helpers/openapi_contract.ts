/*
| Every response of the functional suite is checked against the OpenAPI document
| (issue 10): tests/bootstrap.ts registers `assertDocumentedResponse` as a global
| teardown hook of @japa/api-client, so tests written later are covered too.
|
| A response fails the test that made it when its status is not documented for the
| operation, its JSON body does not match the documented schema (an unlisted field,
| a wrong type, an `error_code` the operation does not list), its media type is not
| documented, or a documented required header is missing or malformed. An unknown
| path must be the generic 404 NOT_FOUND; a known path with another method the
| generic 405 METHOD_NOT_ALLOWED with `Allow`.
|
| JSON Schema engine: Ajv's draft 2020-12 build (the dialect of OpenAPI 3.1), from
| @redocly/ajv, the Ajv 8 that @redocly/cli already locks. @japa/openapi-assertions
| cannot be used: its validator (api-schema-builder on Ajv 6) accepts OpenAPI 3.0
| documents only and rejects 3.1 schemas such as `type: ["string", "null"]`.
*/
import type { ApiResponse } from '@japa/api-client'
import ajv2020 from '@redocly/ajv/dist/2020.js'
import type { ValidateFunction } from '@redocly/ajv/dist/2020.js'
import { errorEnvelope } from '#openapi/operation_errors'

type Json = Record<string, any>

// A CommonJS module: `module.exports` is the class, and `.default` the class again.
const Ajv2020 = ajv2020.default
const DOCUMENT_ID = 'https://merchant-portal.invalid/openapi.json'

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

interface CompiledResponse {
  mediaTypes: string[]
  validate?: ValidateFunction
  headers: { name: string; required: boolean; validate: ValidateFunction }[]
}

interface CompiledPath {
  template: string
  regex: RegExp
  parameterNames: string[]
  parameterValidators: Record<string, ValidateFunction>
  operations: Record<string, Map<number, CompiledResponse>>
  /** The path's own 405 body (`x-method-not-allowed`), when not the Portal envelope's. */
  methodNotAllowed?: ValidateFunction
}

export interface ObservedResponse {
  method: string
  path: string
  status: number
  headers: Record<string, string | string[] | undefined>
  body: unknown
  text: string | undefined
}

export class OpenApiContract {
  private ajv: InstanceType<typeof Ajv2020>
  private paths: CompiledPath[]
  private notFound: ValidateFunction
  private methodNotAllowed: ValidateFunction

  constructor(document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, unicodeRegExp: true })
    this.ajv.addFormat('date-time', {
      type: 'string',
      validate: (value: string) => RFC3339.test(value) && !Number.isNaN(Date.parse(value)),
    })
    this.ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i)
    this.ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/)
    this.ajv.addFormat('uri', { type: 'string', validate: (value: string) => URL.canParse(value) })
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: document.components })
    this.notFound = this.compile(errorEnvelope(404, ['NOT_FOUND']))
    this.methodNotAllowed = this.compile(errorEnvelope(405, ['METHOD_NOT_ALLOWED']))
    this.paths = Object.entries(document.paths as Json)
      .map(([template, item]) => this.compilePath(document, template, item))
      // Literal segments win over parameters, as in the router.
      .sort((a, b) => a.parameterNames.length - b.parameterNames.length)
  }

  /** Problems of one observed response; empty when it is documented exactly. */
  check(observed: ObservedResponse): string[] {
    const method = observed.method.toLowerCase()
    const candidates = this.paths.filter((path) => this.matches(path, observed.path))
    const label = `${observed.method} ${observed.path} → ${observed.status}`
    if (candidates.length === 0) {
      if (observed.status === 404) return this.validateBody(this.notFound, observed, label)
      return [`${label}: the path is not in the OpenAPI document`]
    }
    const lookup = method === 'head' ? 'get' : method
    const path = candidates.find((candidate) => candidate.operations[lookup])
    if (!path || (method === 'head' && observed.status === 405)) {
      if (observed.status !== 405) {
        return [`${label}: ${observed.method} is not documented for ${candidates[0].template}`]
      }
      // A HEAD answer has no body to check.
      const problems =
        method === 'head'
          ? []
          : this.validateBody(
              candidates[0].methodNotAllowed ?? this.methodNotAllowed,
              observed,
              label
            )
      if (!observed.headers.allow) problems.push(`${label}: 405 without an Allow header`)
      return problems
    }
    const operation = path.operations[lookup]
    const response = operation.get(observed.status)
    if (!response) {
      return [
        `${label}: status ${observed.status} is not documented for ${observed.method} ${path.template} (documented: ${[...operation.keys()].join(', ')})`,
      ]
    }
    const problems: string[] = []
    for (const header of response.headers) {
      const value = observed.headers[header.name.toLowerCase()]
      if (value === undefined) {
        if (header.required) problems.push(`${label}: header ${header.name} is missing`)
        continue
      }
      if (!header.validate(Array.isArray(value) ? value.join(', ') : value)) {
        problems.push(
          `${label}: header ${header.name}: ${this.ajv.errorsText(header.validate.errors)} (got ${JSON.stringify(value)})`
        )
      }
    }
    if (method === 'head') return problems
    const hasBody = observed.text !== undefined && observed.text !== ''
    if (response.mediaTypes.length === 0) {
      if (hasBody && (observed.status === 204 || observed.status === 304)) {
        problems.push(`${label}: a ${observed.status} must have an empty body`)
      }
      return problems
    }
    const mediaType = String(observed.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
    if (!response.mediaTypes.includes(mediaType)) {
      problems.push(
        `${label}: media type ${mediaType || '(none)'} is not documented (${response.mediaTypes.join(', ')})`
      )
      return problems
    }
    if (response.validate && mediaType === 'application/json') {
      problems.push(...this.validateBody(response.validate, observed, label))
    }
    return problems
  }

  private validateBody(validate: ValidateFunction, observed: ObservedResponse, label: string) {
    if (validate(observed.body)) return []
    return (validate.errors ?? []).map(
      (error) =>
        `${label}: body${error.instancePath || ''} ${error.message}${error.params && Object.keys(error.params).length ? ` ${JSON.stringify(error.params)}` : ''}`
    )
  }

  private matches(path: CompiledPath, requestPath: string) {
    const match = path.regex.exec(requestPath)
    if (!match) return false
    return path.parameterNames.every((name, index) => {
      let value: string
      try {
        value = decodeURIComponent(match[index + 1])
      } catch {
        return false
      }
      return path.parameterValidators[name](value)
    })
  }

  private compilePath(document: Json, template: string, item: Json): CompiledPath {
    const parameterNames = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1])
    const wildcards = new Set<string>()
    const parameterValidators: Record<string, ValidateFunction> = {}
    const operations: CompiledPath['operations'] = {}
    const methodNotAllowedSchema =
      item['x-method-not-allowed']?.content?.['application/json']?.schema
    for (const [method, operation] of Object.entries(item)) {
      if (method.startsWith('x-')) continue
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        const resolved = parameter.$ref ? this.resolve(document, parameter.$ref) : parameter
        if (resolved.in === 'path' && !parameterValidators[resolved.name]) {
          parameterValidators[resolved.name] = this.compile(resolved.schema)
          if (resolved['x-wildcard']) wildcards.add(resolved.name)
        }
      }
      const responses = new Map<number, CompiledResponse>()
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        const content = (response.content ?? {}) as Json
        const json = content['application/json']
        responses.set(Number(status), {
          mediaTypes: Object.keys(content),
          validate: json?.schema ? this.compile(json.schema) : undefined,
          headers: Object.entries((response.headers ?? {}) as Json).map(([name, header]) => ({
            name,
            required: header.required === true,
            validate: this.compile(header.schema),
          })),
        })
      }
      operations[method] = responses
    }
    for (const name of parameterNames) {
      parameterValidators[name] ??= this.compile({ type: 'string' })
    }
    const segments = template
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    const regex = segments.reduce(
      (source, part, index) =>
        index === 0
          ? part
          : `${source}${wildcards.has(parameterNames[index - 1]) ? '(.+)' : '([^/]+)'}${part}`,
      ''
    )
    return {
      template,
      regex: new RegExp(`^${regex}$`),
      parameterNames,
      parameterValidators,
      operations,
      methodNotAllowed: methodNotAllowedSchema ? this.compile(methodNotAllowedSchema) : undefined,
    }
  }

  private resolve(document: Json, ref: string): Json {
    return ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: Json, key) => node[key], document)
  }

  /** Compiles a schema whose `#/components/...` references point into the document. */
  private compile(schema: Json): ValidateFunction {
    const rebased = JSON.parse(
      JSON.stringify(schema).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`)
    )
    return this.ajv.compile(rebased)
  }
}

let contract: OpenApiContract | undefined

/** The global api-client teardown hook: throws (failing the test) on an undocumented response. */
export async function assertDocumentedResponse(response: ApiResponse) {
  if (!contract) {
    const { openApiDocument } = await import('#openapi/document')
    contract = new OpenApiContract(openApiDocument().document)
  }
  const raw = response.response as any
  const url = new URL(raw.req?.path ?? '/', 'http://service.invalid')
  const problems = contract.check({
    method: raw.req?.method ?? response.request.request.method,
    path: url.pathname,
    status: response.status(),
    headers: response.headers(),
    body: response.body(),
    text: response.text(),
  })
  if (problems.length > 0) {
    throw new Error(`Response not documented by docs/openapi.json:\n- ${problems.join('\n- ')}`)
  }
}
