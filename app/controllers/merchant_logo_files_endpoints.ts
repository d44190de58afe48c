/*
| The logos of the fs drive disk (outside /api/v1), the endpoint of
| MerchantLogoFilesController: public like any <img> source; names are unguessable
| (ULID) and change with every upload.
*/
import { schema } from '#openapi/json_schema'
import { endpointsOf } from '#http/endpoint'
import { publicReadStack } from '#http/stacks'
import type { CachePolicy } from '#http/cache_policy'
import { routeIds } from '#validators/rules/route_ids'
import { LOGO_CACHE_CONTROL } from '#services/merchants/logo_storage'
import { MEDIA_ROUTE_PREFIX } from '#config/drive'

/** A file never changes: a new logo always gets a new name. */
const IMMUTABLE: CachePolicy = {
  on: 'success',
  headers: {
    'Cache-Control': {
      value: LOGO_CACHE_CONTROL,
      description: 'Immutable: a new logo always gets a new name.',
    },
  },
}

export const merchantLogoFilesEndpoints = endpointsOf({
  show: {
    method: 'get',
    path: `${MEDIA_ROUTE_PREFIX}/logos/:merchant/:file`,
    name: 'media.logo',
    stack: publicReadStack(IMMUTABLE),
    where: {
      merchant: routeIds.numeric,
      file: { match: /^[0-9a-z]{26}\.(?:png|jpg|webp)$/ },
    },
    operationId: 'getMerchantLogoFile',
    tag: 'Service',
    summary: 'A merchant logo (fs disk)',
    description:
      'Outside `/api/v1`. With `DRIVE_DISK=fs`, the `url` and `logo_url` values of the merchant endpoints point here (with `s3` they point to the bucket or CDN instead). Public like any `<img>` source: names are unguessable and change with every upload, so a file never changes and is cached for a year. The type comes from the stored name (the upload was checked and re-encoded), never sniffed. Only logo-shaped names are routed; a missing file or any other name is 404 `NOT_FOUND`.',
    responses: {
      200: {
        description: 'The image, in the type of its extension.',
        content: {
          'image/png': { schema: schema.string({ contentMediaType: 'image/png' }) },
          'image/jpeg': { schema: schema.string({ contentMediaType: 'image/jpeg' }) },
          'image/webp': { schema: schema.string({ contentMediaType: 'image/webp' }) },
        },
        headers: {
          'X-Content-Type-Options': {
            description: 'The declared type is final.',
            schema: { const: 'nosniff' },
            required: true,
          },
          'Content-Security-Policy': {
            description: 'Nothing in the file may run or load anything.',
            schema: { const: "default-src 'none'; sandbox" },
            required: true,
          },
          'Cross-Origin-Resource-Policy': {
            description: 'Embeddable from any origin.',
            schema: { const: 'cross-origin' },
            required: true,
          },
          'Content-Length': {
            description: 'Bytes.',
            schema: schema.string({ pattern: '^[0-9]+$' }),
          },
        },
      },
    },
  },
})
