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
 * Formats are left to the schema's own `pattern`s here: these tests check that the
 * document's explicit rules (patterns, lengths) are the server's. A format a strict
 * client applies as well is checked where it matters (website, email).
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

/** The document's schema of property `name` of an operation's request body. */
export function bodyPropertySchema(
  method: string,
  path: string,
  name: string,
  mediaType = 'application/json'
): Json {
  const body = operation(method, path).requestBody?.content?.[mediaType]?.schema
  const property = body?.properties?.[name]
  if (!property) throw new Error(`No body property ${name} on ${method} ${path}`)
  return property
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
