/* The OpenAPI document and its reference page (decisions.md §6; docs/openapi.md), the endpoints of OpenapiController. */
import { schema } from '#openapi/json_schema'
import { endpointsOf } from '#http/endpoint'
import { openStack } from '#http/stacks'
import type { CachePolicy } from '#http/cache_policy'

/** Static for a given build: browsers and proxies may keep it for ten minutes, then revalidate. */
const STATIC_CACHE: CachePolicy = {
  on: 'success',
  headers: {
    'Cache-Control': {
      value: 'public, max-age=600, must-revalidate',
      description: 'Static documentation: cacheable, revalidated with the ETag.',
      schema: schema.string({ pattern: '^public, max-age=[0-9]+' }),
    },
  },
}
const VALIDATOR = {
  ETag: { description: 'Content hash.', schema: schema.string(), required: true },
}

export const openapiEndpoints = endpointsOf({
  document: {
    method: 'get',
    path: '/openapi.json',
    name: 'openapi.document',
    stack: openStack(STATIC_CACHE),
    operationId: 'getOpenApiDocument',
    tag: 'Service',
    summary: 'This OpenAPI 3.1 document',
    description: 'Generate clients and mocks from it. Supports `If-None-Match` (304).',
    envelope: false,
    responses: {
      200: {
        description: 'The document.',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['openapi', 'info', 'paths'],
              properties: {
                openapi: schema.const('3.1.0'),
                info: { type: 'object' },
                paths: { type: 'object' },
              },
            },
          },
        },
        headers: VALIDATOR,
      },
      304: { description: 'Unchanged since the ETag given.', headers: VALIDATOR },
    },
  },
  page: {
    method: 'get',
    path: '/docs',
    name: 'openapi.page',
    stack: openStack(STATIC_CACHE),
    operationId: 'getReferencePage',
    tag: 'Service',
    summary: 'API reference page',
    description:
      "A self-contained page rendered from `/openapi.json` by Swagger UI, bundled with the service (no CDN). Its Content-Security-Policy allows only the page's own scripts, styles, images and the document.",
    envelope: false,
    responses: {
      200: {
        description: 'The page.',
        content: { 'text/html': { schema: schema.string() } },
        headers: {
          ...VALIDATOR,
          'Content-Security-Policy': {
            description: 'Same-origin resources only.',
            schema: schema.string({ pattern: "^default-src 'none'" }),
            required: true,
          },
        },
      },
      304: { description: 'Unchanged since the ETag given.', headers: VALIDATOR },
    },
  },
  asset: {
    method: 'get',
    path: '/docs/assets/:asset',
    name: 'openapi.asset',
    stack: openStack(STATIC_CACHE),
    where: { asset: { match: /^[a-z0-9-]+\.(?:js|css|png)$/ } },
    operationId: 'getReferencePageAsset',
    tag: 'Service',
    summary: 'A file of the reference page',
    description: 'The bundled reference UI (scripts, styles, icon). Unknown names are 404.',
    envelope: false,
    responses: {
      200: {
        description: 'The file.',
        content: {
          'text/javascript': { schema: schema.string() },
          'text/css': { schema: schema.string() },
          'image/png': { schema: schema.string({ contentMediaType: 'image/png' }) },
        },
        headers: VALIDATOR,
      },
      304: { description: 'Unchanged since the ETag given.', headers: VALIDATOR },
    },
    errors: ['NOT_FOUND'],
  },
})
