import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { HttpContext } from '@adonisjs/core/http'
import ApiError from '#exceptions/api_error'
import { openApiDocument } from '#openapi/document'

/*
| decisions.md §6: GET /openapi.json and the reference page GET /docs, rendered by
| Swagger UI (swagger-ui-dist, bundled: no CDN, works offline). Everything served
| here is static for a given build, so it is cacheable (its cache policy:
| openapi_endpoints.ts)
| and revalidated by ETag.
| The page's Content-Security-Policy allows only its own scripts, styles and
| images and fetching the document: no inline script, no other origin.
*/

export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets styles through the CSSOM, which CSP does not restrict: no inline
  // style is needed (tests/functional/openapi/docs_page.spec.ts fails on a violation).
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const swaggerUiDir = () =>
  dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

/** The files the page loads: name → file of swagger-ui-dist, or our own text, and its type. */
const ASSETS: Record<string, { type: string; file?: string; text?: string }> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', file: 'swagger-ui.css' },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', file: 'swagger-ui-bundle.js' },
  'favicon-32x32.png': { type: 'image/png', file: 'favicon-32x32.png' },
  'docs.js': {
    type: 'text/javascript; charset=utf-8',
    text: `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayOperationId: true,
    showExtensions: true,
    tryItOutEnabled: false,
    validatorUrl: null,
  })
})
`,
  },
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Merchant Portal API reference</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/docs.js"></script>
</body>
</html>
`

interface Served {
  body: Buffer | string
  type: string
  etag: string
  /** Compressed once, when worth it (the UI bundle is 1.7 MB, the document 0.6 MB). */
  gzip?: Buffer
}

const etagOf = (body: Buffer | string) =>
  createHash('sha256').update(body).digest('base64url').slice(0, 27)

const COMPRESS_FROM_BYTES = 1024

const cache = new Map<string, Promise<Served>>()

function served(key: string, load: () => Promise<Omit<Served, 'etag'>>): Promise<Served> {
  let entry = cache.get(key)
  if (!entry) {
    entry = load().then((loaded) => ({
      ...loaded,
      etag: etagOf(loaded.body),
      gzip:
        Buffer.byteLength(loaded.body) >= COMPRESS_FROM_BYTES
          ? gzipSync(loaded.body, { level: 9 })
          : undefined,
    }))
    entry.catch(() => cache.delete(key))
    cache.set(key, entry)
  }
  return entry
}

/** Whether the client takes gzip (`Accept-Encoding`, a q of 0 refuses it). */
function acceptsGzip(header: string | undefined) {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';')
    const q = params.find((param) => param.trim().startsWith('q='))
    return (coding === 'gzip' || coding === '*') && (!q || Number(q.trim().slice(2)) > 0)
  })
}

function send(ctx: HttpContext, item: Served, headers: Record<string, string> = {}) {
  const { response, request } = ctx
  const gzip = item.gzip && acceptsGzip(request.header('accept-encoding')) ? item.gzip : undefined
  // Each representation has its own validator (RFC 9110 §8.8.3).
  const etag = `"${item.etag}${gzip ? '-gz' : ''}"`
  response.header('ETag', etag)
  response.header('X-Content-Type-Options', 'nosniff')
  if (item.gzip) response.header('Vary', 'Accept-Encoding')
  for (const [name, value] of Object.entries(headers)) response.header(name, value)
  const given = request.header('if-none-match')
  if (given && given.split(',').some((tag) => tag.trim() === etag)) {
    return response.status(304).send('')
  }
  response.header('Content-Type', item.type)
  if (gzip) {
    response.header('Content-Encoding', 'gzip')
    return response.status(200).send(gzip)
  }
  return response.status(200).send(item.body)
}

export default class OpenapiController {
  /** GET /openapi.json */
  async document(_input: undefined, _actor: undefined, ctx: HttpContext) {
    const item = await served('openapi.json', async () => ({
      body: openApiDocument().json,
      type: 'application/json; charset=utf-8',
    }))
    send(ctx, item)
  }

  /** GET /docs */
  async page(_input: undefined, _actor: undefined, ctx: HttpContext) {
    const item = await served('page', async () => ({
      body: PAGE,
      type: 'text/html; charset=utf-8',
    }))
    send(ctx, item, {
      'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY,
      'Referrer-Policy': 'no-referrer',
    })
  }

  /** GET /docs/assets/:asset (a fixed list: no path from the request reaches the disk) */
  async asset(_input: undefined, _actor: undefined, ctx: HttpContext) {
    const name = String(ctx.params.asset)
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined
    if (!asset) throw ApiError.notFound()
    const item = await served(`asset:${name}`, async () => ({
      body: asset.text ?? (await readFile(join(swaggerUiDir(), asset.file!))),
      type: asset.type,
    }))
    send(ctx, item)
  }
}
