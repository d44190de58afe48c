/*
| The schemas the generated OpenAPI document gives one field, compiled as a strict
| client would read them (Ajv's draft 2020-12 build, Unicode patterns), so a test can
| ask whether the document accepts a value and compare with what the server does.
*/
import ajv2020 from '@redocly/ajv/dist/2020.js'
import type { ValidateFunction } from '@redocly/ajv/dist/2020.js'
import { openApiDocument } from '#openapi/document'

type Json = Record<string, any>

const Ajv2020 = ajv2020.default
const DOCUMENT_ID = 'https://merchant-portal.invalid/openapi.json'

let ajv: InstanceType<typeof Ajv2020> | undefined

/**
 * Formats are not applied here: the tests compare the document's explicit rules
 * (patterns, lengths) with the server's, and a field whose format says less than its
 * pattern (email, website) is then no looser than the server either.
 */
function compiler() {
  if (!ajv) {
    ajv = new Ajv2020({
      strict: false,
      allErrors: true,
      unicodeRegExp: true,
      validateFormats: false,
    })
    ajv.addSchema({ $id: DOCUMENT_ID, components: openApiDocument().document.components })
  }
  return ajv
}

function compile(schema: Json): ValidateFunction {
  const rebased = JSON.parse(
    JSON.stringify(schema).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`)
  )
  return compiler().compile(rebased)
}

function operation(method: string, path: string): Json {
  const found = (openApiDocument().document.paths as Json)[path]?.[method]
  if (!found) throw new Error(`No ${method.toUpperCase()} ${path} in the document`)
  return found
}

/** The document's schema of query parameter `name` of an operation. */
export function queryParameterSchema(method: string, path: string, name: string): Json {
  const parameter = (operation(method, path).parameters as Json[]).find(
    (candidate) => candidate.in === 'query' && candidate.name === name
  )
  if (!parameter) throw new Error(`No query parameter ${name} on ${method} ${path}`)
  return parameter.schema
}

/** The document's request body schema of an operation. */
export function requestBodySchema(method: string, path: string, mediaType = 'application/json') {
  const body = operation(method, path).requestBody?.content?.[mediaType]?.schema
  if (!body) throw new Error(`No ${mediaType} body on ${method} ${path}`)
  return body as Json
}

/** The document's schema of a component (`components.schemas`). */
export function componentSchema(name: string): Json {
  const component = (openApiDocument().document.components.schemas as Json)[name]
  if (!component) throw new Error(`No component ${name}`)
  return component
}

/** Whether `schema` accepts a value, as a strict client reads the document. */
export function documentCheck(schema: Json): (value: unknown) => boolean {
  const validate = compile(schema)
  return (value) => validate(value) as boolean
}

/**
 * Every string schema of the inputs the server validates (JSON bodies and query
 * parameters of `/api/v1`), found anywhere inside them, with where it is.
 */
export function inputStringSchemas(): Array<{ where: string; schema: Json }> {
  const found: Array<{ where: string; schema: Json }> = []
  const walk = (node: unknown, where: string) => {
    if (!node || typeof node !== 'object') return
    const schema = node as Json
    const types = Array.isArray(schema.type) ? schema.type : [schema.type]
    if (types.includes('string')) found.push({ where, schema })
    for (const [name, property] of Object.entries<unknown>(schema.properties ?? {})) {
      walk(property, `${where}.${name}`)
    }
    if (schema.items) walk(schema.items, `${where}[]`)
    for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
      ;(schema[keyword] ?? []).forEach((branch: unknown, index: number) =>
        walk(branch, `${where}.${keyword}[${index}]`)
      )
    }
  }
  for (const [path, item] of Object.entries<Json>(openApiDocument().document.paths as Json)) {
    if (!path.startsWith('/api/v1/')) continue
    for (const [method, entry] of Object.entries<Json>(item)) {
      if (method.startsWith('x-')) continue
      const at = `${method.toUpperCase()} ${path}`
      for (const parameter of (entry.parameters ?? []) as Json[]) {
        if (parameter.in === 'query') walk(parameter.schema, `${at} ?${parameter.name}`)
      }
      walk(entry.requestBody?.content?.['application/json']?.schema, `${at} body`)
    }
  }
  return found
}
