/*
| Issue 37 › "The document agrees with the server": for each field a property-based
| tester found misdescribed, the generated document's schema accepts exactly what the
| server accepts. Values are generated with fast-check (fixed seeds, so a failure
| replays) and each one is sent to the server over HTTP and checked against the
| document's schema for that field.
*/
import { test } from '@japa/runner'
import fc from 'fast-check'
import { resetState } from '#tests/helpers/database'
import { createPortalClient, signedInMember } from '#tests/helpers/portal'
import { raiseLimits } from '#tests/helpers/limits'
import { route } from '#tests/helpers/routes'
import { clearLogoStorage, postLogoMultipart } from '#tests/helpers/merchant'
import { tinyPng } from '#tests/helpers/images'
import { openApiDocument } from '#openapi/document'
import {
  componentSchema,
  documentCheck,
  inputStringSchemas,
  queryParameterSchema,
  requestBodySchema,
} from '#tests/helpers/document_schemas'
import { portalLogin } from '#tests/helpers/requests'

const TEAM_MEMBERS = '/api/v1/portal/team/members'

/** Canonical and non-canonical integers around 2^53 - 1, and other digit strings. */
const pageCandidates = fc.oneof(
  fc.bigInt({ min: 1n, max: 2n ** 64n }).map(String),
  fc.bigInt({ min: 2n ** 53n - 1000n, max: 2n ** 53n + 1000n }).map(String),
  fc.stringMatching(/^[0-9]{1,20}$/),
  fc.constantFrom('9007199254740991', '9007199254740992', '9999999999999999', '0', '01')
)

/** Text of any code point, trimmed as every input is, with or without a NUL inside. */
const textMaybeWithNul = fc
  .tuple(fc.string({ unit: 'binary', maxLength: 20 }), fc.boolean(), fc.string({ maxLength: 5 }))
  .map(([text, nul, tail]) => (nul ? `a${text}\u0000${tail}b` : `a${text}${tail}b`))

/** Addresses, near-addresses and other text with an `@`, as sent (already trimmed). */
const emailCandidates = fc
  .oneof(
    fc.emailAddress(),
    fc.emailAddress().map((address) => address.toUpperCase()),
    fc.stringMatching(/^[a-z0-9._%+-]{1,12}@[a-z0-9.-]{1,12}$/),
    fc.tuple(fc.string({ unit: 'binary', maxLength: 8 }), fc.domain()).map(([l, d]) => `${l}@${d}`),
    fc.constantFrom(
      'j@info',
      'j@info.x',
      'j@-a.io',
      'j..k@a.io',
      '"j"@a.io',
      'j@a.io.',
      '\u212a@a.io',
      'İnci.Οδος@example.test',
      'ü@müller.de',
      'j@a.xn--p1ai'
    )
  )
  .filter((value) => value.trim() === value && value.length > 0)

/** https URLs, near-URLs and URLs a WHATWG parser reads but RFC 3986 refuses. */
const websiteCandidates = fc
  .oneof(
    fc.webUrl({ validSchemes: ['https'], withQueryParameters: true, withFragments: true }),
    fc.webUrl({
      validSchemes: ['https', 'http'],
      authoritySettings: { withIPv4: true, withPort: true },
    }),
    fc
      .tuple(fc.webUrl({ validSchemes: ['https'] }), fc.string({ unit: 'binary', maxLength: 4 }))
      .map(([url, text]) => `${url}/${text}`),
    fc
      .tuple(fc.webUrl({ validSchemes: ['https'] }), fc.stringMatching(/^%[0-9a-z]{0,2}$/))
      .map(([url, escape]) => `${url}/${escape}`),
    fc.webUrl({ validSchemes: ['https'] }).map((url) => url.replace('https', 'hTTpS')),
    fc.constantFrom(
      'hTTps://ĜŁĂ',
      'https://x/%zz',
      'https://x',
      'https://localhost:3000/a?b=c#d',
      'https://example.com./',
      'https://1.2.3.4:443/p',
      'https://999.1.1.1/',
      'https://a.0x1/',
      'https://a_b.example/',
      'https://[::1]/',
      'https://u@example.com/',
      'https://example.com:65536/',
      'https://example.com/a|b',
      'https://example.com/#a#b',
      'https://xn--exmple-cua.com/%C3%A4',
      'http://example.com/',
      ''
    )
  )
  .filter((value) => value.trim() === value)

/** POSTs one multipart part `file` with the PNG under `disposition`, byte for byte. */
async function uploadWithDisposition(bearer: string, disposition: string, png: Buffer) {
  const boundary = 'DispositionBoundary37'
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: ${disposition}\r\nContent-Type: image/png\r\n\r\n`
    ),
    png,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  return postLogoMultipart(bearer, boundary, body)
}

test.group('The document agrees with the server', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => raiseLimits())

  test('page: the document accepts exactly the pages the server accepts (1 to 2^53 - 1)', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const documented = documentCheck(queryParameterSchema('get', TEAM_MEMBERS, 'page'))
    assert.isTrue(documented('9007199254740991'))
    assert.isFalse(documented('9007199254740992'))
    await fc.assert(
      fc.asyncProperty(pageCandidates, async (page) => {
        const response = await client
          .get(`${route('team.members.index')}?page=${page}`)
          .header('Authorization', admin.bearer)
        const served = response.status() === 200
        if (!served) assert.deepEqual(Object.keys(response.body().errors), ['page'])
        assert.equal(documented(page), served, `page=${page}: answered ${response.status()}`)
      }),
      { numRuns: 60, seed: 37_1 }
    )
  })

  test('U+0000: every string of every input is documented as refusing NUL', ({ assert }) => {
    const strings = inputStringSchemas()
    assert.isAbove(strings.length, 40)
    for (const { where, schema } of strings) {
      assert.exists(schema.not, `${where} does not say that NUL is refused`)
      assert.isTrue(documentCheck(schema.not)('x\u0000y'), `${where}: its \`not\` misses NUL`)
      assert.isFalse(documentCheck(schema.not)(null), `${where}: its \`not\` refuses null`)
    }
  })

  test('U+0000: the document refuses a login username exactly when the server does', async ({
    client,
    assert,
  }) => {
    const portal = await createPortalClient()
    const documented = documentCheck(requestBodySchema('post', '/api/v1/auth/login'))
    await fc.assert(
      fc.asyncProperty(textMaybeWithNul, async (username) => {
        const body = { username, password: 'not-the-password' }
        const response = await portalLogin(client, portal, body)
        const refused = response.status() === 422
        if (refused) assert.deepEqual(Object.keys(response.body().errors), ['username'])
        else assert.equal(response.status(), 401)
        assert.equal(
          documented(body),
          !refused,
          `${JSON.stringify(username)}: ${response.status()}`
        )
      }),
      { numRuns: 60, seed: 37_4 }
    )
  })

  test('email: the document accepts exactly the addresses the server accepts (a dotted domain)', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const documented = documentCheck(requestBodySchema('patch', '/api/v1/portal/merchant'))
    assert.isFalse(documented({ email: 'j@info' }))
    await fc.assert(
      fc.asyncProperty(emailCandidates, async (email) => {
        const response = await client
          .patch(route('merchant.update'))
          .header('Authorization', admin.bearer)
          .json({ email })
        const accepted = response.status() === 200
        if (!accepted) assert.deepEqual(Object.keys(response.body().errors), ['email'])
        assert.equal(
          documented({ email }),
          accepted,
          `${JSON.stringify(email)}: ${response.status()}`
        )
      }),
      { numRuns: 100, seed: 37_3 }
    )
  })

  test('website: the document accepts exactly the websites the server stores, and every stored one is a URI', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const documented = documentCheck(requestBodySchema('patch', '/api/v1/portal/merchant'))
    const answered = documentCheck(componentSchema('Merchant').properties.website)
    for (const value of ['hTTps://ĜŁĂ', 'https://x/%zz']) {
      assert.isFalse(documented({ website: value }), value)
      assert.isFalse(answered(value), value)
    }
    await fc.assert(
      fc.asyncProperty(websiteCandidates, async (website) => {
        const response = await client
          .patch(route('merchant.update'))
          .header('Authorization', admin.bearer)
          .json({ website })
        const stored = response.status() === 200
        const label = `${JSON.stringify(website)}: ${response.status()}`
        assert.equal(documented({ website }), stored, label)
        if (!stored) {
          assert.deepEqual(Object.keys(response.body().errors), ['website'], label)
          return
        }
        const value = response.body().data.website
        assert.equal(value, website === '' ? null : website, label)
        assert.isTrue(answered(value), label)
        // Opened by a URL parser as the https URL of a host.
        if (value !== null) assert.equal(new URL(value).protocol, 'https:', label)
      }),
      { numRuns: 120, seed: 37_2 }
    )
  })

  test('logo: the document requires the filename the server needs to read the part as the file', async ({
    assert,
    cleanup,
  }) => {
    cleanup(() => clearLogoStorage())
    const admin = await signedInMember('administrator')
    const png = await tinyPng()
    const media = (openApiDocument().document.paths as any)['/api/v1/portal/merchant/logo'].post
      .requestBody.content['multipart/form-data']
    assert.equal(media.schema.properties.file.format, 'binary')
    const header = media.encoding.file.headers['Content-Disposition']
    assert.isTrue(header.required)
    const documented = documentCheck(header.schema)
    const dispositions = [
      'form-data; name="file"; filename="logo.png"',
      'form-data; name="file"; filename=x',
      'form-data; name="file"; filename*=UTF-8\'\'l%C3%B6go.png',
      'form-data; name="file"',
      'form-data; name="file"; filename=""',
    ]
    for (const disposition of dispositions) {
      const response = await uploadWithDisposition(admin.bearer, disposition, png)
      const read = response.status === 200
      if (!read)
        assert.deepEqual(response.body.errors, { file: ['The file field must be a file.'] })
      assert.equal(documented(disposition), read, `${disposition}: ${response.status}`)
    }
  })
})
