/*
| decisions.md §6: GET /openapi.json and GET /docs, served by the service itself:
| cacheable static documentation (ETag, 304), the page's assets bundled locally
| (no other origin), and a Content-Security-Policy that allows only what it loads.
*/
import { readFile } from 'node:fs/promises'
import { test } from '@japa/runner'
import { artifactPath } from '#openapi/artifacts'
import { DOCS_CONTENT_SECURITY_POLICY } from '#controllers/openapi_controller'
import { route } from '#tests/helpers/routes'

test.group('GET /openapi.json', () => {
  test('serves the committed document, cacheable and revalidated by ETag', async ({
    client,
    assert,
  }) => {
    const response = await client.get(route('openapi.document'))
    response.assertStatus(200)
    assert.equal(response.text(), await readFile(artifactPath('document'), 'utf8'))
    assert.equal(response.body().openapi, '3.1.0')
    assert.match(response.header('content-type')!, /^application\/json/)
    assert.match(response.header('cache-control')!, /^public, max-age=\d+/)
    const etag = response.header('etag')!
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/)

    const again = await client.get(route('openapi.document')).header('If-None-Match', etag)
    again.assertStatus(304)
    assert.equal(again.text() ?? '', '')
  })

  test('is sent gzip-compressed to clients that accept it, with its own ETag', async ({
    client,
    assert,
  }) => {
    const plain = await client.get(route('openapi.document')).header('Accept-Encoding', 'identity')
    plain.assertStatus(200)
    assert.notExists(plain.header('content-encoding'))
    const compressed = await client
      .get(route('openapi.document'))
      .header('Accept-Encoding', 'gzip, br')
    compressed.assertStatus(200)
    assert.equal(compressed.header('content-encoding'), 'gzip')
    assert.equal(compressed.header('vary'), 'Accept-Encoding')
    assert.isBelow(Number(compressed.header('content-length')), plain.text().length / 5)
    assert.deepEqual(compressed.body(), plain.body())
    assert.notEqual(compressed.header('etag'), plain.header('etag'))
    const refused = await client
      .get(route('openapi.document'))
      .header('Accept-Encoding', 'gzip;q=0')
    assert.notExists(refused.header('content-encoding'))
  })
})

test.group('GET /docs', () => {
  test('a self-contained page: same-origin assets only, a CSP allowing just those', async ({
    client,
    assert,
  }) => {
    const response = await client.get(route('openapi.page'))
    response.assertStatus(200)
    assert.match(response.header('content-type')!, /^text\/html/)
    assert.equal(response.header('content-security-policy'), DOCS_CONTENT_SECURITY_POLICY)
    assert.include(DOCS_CONTENT_SECURITY_POLICY, "default-src 'none'")
    assert.include(DOCS_CONTENT_SECURITY_POLICY, "script-src 'self'")
    assert.notInclude(DOCS_CONTENT_SECURITY_POLICY, 'http')
    assert.match(response.header('cache-control')!, /^public, max-age=\d+/)

    const html = response.text()
    assert.notMatch(html, /<script>|<script [^>]*>[^<]/, 'no inline script')
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1])
    assert.isAbove(urls.length, 2)
    for (const url of urls) {
      assert.match(url, /^\/docs\/assets\/[a-z0-9-]+\.(js|css|png)$/, 'only local assets')
      const asset = await client.get(url)
      asset.assertStatus(200)
      assert.match(asset.header('cache-control')!, /^public, max-age=\d+/)
      assert.isString(asset.header('etag'))
    }
  })

  test('an asset outside the fixed list is 404 NOT_FOUND', async ({ client }) => {
    for (const name of ['index.html', 'package.js', 'absolute-path.js', '..%2Fpackage.json']) {
      // A literal path: most of these names are not valid route parameters at all.
      const response = await client.get(route('openapi.asset', { asset: name }))
      response.assertStatus(404)
      response.assertBodyContains({ error_code: 'NOT_FOUND' })
    }
  })
})
