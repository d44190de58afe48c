/*
| The OpenAPI 3.1 document of the whole service, assembled from the endpoint
| declarations beside the controllers (app/controllers/endpoints.ts, the same ones
| start/routes.ts registers) and the response shapes (app/shapes/, whose types the
| transformers return). `node ace openapi:generate`
| writes it to docs/openapi.json; GET /openapi.json serves it; the test suite
| validates every response against it.
*/
import { LIMITS } from '#limits/limits'
import { componentSchemas, parameters, securitySchemes } from '#openapi/components'
import { toOperationObject } from '#openapi/operation'
import type { OperationSpec } from '#openapi/operation_spec'
import { operationOf } from '#openapi/declared_operation'
import { ENDPOINTS } from '#controllers/endpoints'

/** Every declared endpoint's operation, in the order of the contract's Endpoints index, then the service's own. */
export const OPERATIONS: OperationSpec[] = Object.values(ENDPOINTS).flatMap((endpoints) =>
  Object.values(endpoints).map(operationOf)
)

const TAGS = [
  {
    name: 'Auth',
    description: 'Login, logout and password recovery (portal-api.md › Login and session).',
  },
  { name: 'Profile', description: 'The signed-in user: profile, email change, password.' },
  { name: 'Merchant', description: 'Merchant profile and logo.' },
  {
    name: 'Machine clients',
    description:
      "OAuth client-credentials clients of the merchant's integration server, and one-use secret handover.",
  },
  {
    name: 'Integration keys',
    description: 'Presence-only management of the two integration keys.',
  },
  { name: 'Team', description: 'Members, roles and email invitations.' },
  {
    name: 'Collections',
    description: 'Read-only collection transactions and their sanitized exchange history.',
  },
  { name: 'Reporting', description: 'Collection metrics and charts.' },
  { name: 'Machine token', description: 'OAuth 2 client credentials for merchant-owned servers.' },
  { name: 'Merchant integration API', description: 'Endpoints for machine tokens.' },
  { name: 'Service', description: 'Health, this document and its reference page.' },
]

const LIMITS_TABLE = Object.entries(LIMITS)
  .map(([name, limit]) => `| \`${name}\` | ${limit.perMinute} | \`${limit.env}\` |`)
  .join('\n')

const DESCRIPTION = `The back end of the Merchant Portal of a payment-collection service (portal-api.md, contract version 1.7; decisions.md completes it).

- Portal endpoints live under \`/api/v1\`; \`/oauth/token\`, health, the signed email link and this documentation sit outside it.
- Success envelope \`{success: true, message, data}\`; lists add \`meta\` (\`current_page\`, \`per_page\`, \`total\`, \`last_page\`). 204 responses have an empty body.
- Error envelope \`{success: false, message, error_code, errors?}\`; \`errors\` (field path → messages) only on 422. Each operation lists the exact \`error_code\` values of each status. An unknown path is 404 \`NOT_FOUND\`, a known path with another method 405 \`METHOD_NOT_ALLOWED\` (with \`Allow\`).
- A request the server refuses before any operation runs gets the error envelope too, and its connection is closed: 400 \`BAD_REQUEST\` (a request line HTTP cannot parse), 431 \`REQUEST_HEADER_FIELDS_TOO_LARGE\` (request line and headers over about 16 KB), 408 \`REQUEST_TIMEOUT\` (the whole request not received within 120 s, the deployment's \`REQUEST_TIMEOUT_SECONDS\`, its headers within 60 s).
- Send \`Accept: application/json\`, and \`Content-Type: application/json\` with a JSON body. Strings are trimmed except passwords and integration key values. No input string may contain U+0000 (NUL) or an unpaired UTF-16 surrogate (422 on that field); each input string says so with a \`not\` schema. Strict endpoints reject unlisted fields (\`additionalProperties: false\`).
- Timestamps are ISO 8601 with an offset; amounts are two-decimal strings; numeric ids are JSON integers.
- Portal responses carry \`Cache-Control: no-store\` (credential, key, member and team-list responses \`no-store, private\`).

## Limits

Every limit counts per minute, also counts refused requests, and answers 429 \`RATE_LIMITED\` with \`Retry-After\` (whole seconds). Each operation names the limits it consumes. Defaults below; each is overridable by its variable and scaled by \`RATE_LIMIT_MULTIPLIER\`.

| limit | per minute | variable |
|---|---|---|
${LIMITS_TABLE}
`

export function buildOpenApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const operation of OPERATIONS) {
    paths[operation.path] ??= {}
    if (paths[operation.path][operation.method]) {
      throw new Error(`Two descriptions of ${operation.method.toUpperCase()} ${operation.path}`)
    }
    paths[operation.path][operation.method] = toOperationObject(operation)
    if (operation.methodNotAllowed) {
      paths[operation.path]['x-method-not-allowed'] = {
        description: 'The body of a 405 (another method, with `Allow`) on this path.',
        content: { 'application/json': { schema: operation.methodNotAllowed } },
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Merchant Portal API',
      version: '1.7.0',
      description: DESCRIPTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'This service' }],
    tags: TAGS,
    paths,
    components: {
      schemas: componentSchemas,
      parameters,
      securitySchemes,
    },
  }
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>

let cached: { document: OpenApiDocument; json: string } | undefined

/** The document and its canonical serialization (two-space JSON, trailing newline), built once. */
export function openApiDocument() {
  if (!cached) {
    const document = buildOpenApiDocument()
    cached = { document, json: `${JSON.stringify(document, null, 2)}\n` }
  }
  return cached
}
