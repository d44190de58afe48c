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
import { appHeaders, createPortalClient, signedInMember } from '#tests/helpers/portal'
import { raiseLimits } from '#tests/helpers/limits'
import { route } from '#tests/helpers/routes'
import {
  documentCheck,
  inputStringSchemas,
  queryParameterSchema,
  requestBodySchema,
} from '#tests/helpers/document_schemas'

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
        const response = await client
          .post(route('auth.login'))
          .headers(appHeaders(portal))
          .json(body)
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
})
