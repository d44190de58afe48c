/*
| app/platform/token_value.ts reads token values and checks secrets by the auth package's
| own rules (AccessToken.decode, AccessToken#verify), compared here on arbitrary input.
*/
import { createHash } from 'node:crypto'
import { test } from '@japa/runner'
import fc from 'fast-check'
import { AccessToken } from '@adonisjs/auth/access_tokens'
import { safeEqual, Secret } from '@adonisjs/core/helpers'
import string from '@adonisjs/core/helpers/string'
import {
  decodeTokenValue,
  secretMatches,
  tokenSecretOf,
  tokenValueOf,
  transientToken,
} from '#platform/token_value'

/** What the auth package decodes, in this module's shape. */
function packageDecode(prefix: string, value: string) {
  const decoded = AccessToken.decode(prefix, value)
  return decoded ? { identifier: decoded.identifier, secret: decoded.secret.release() } : null
}

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex')

/** Characters that matter to base64url decoding: both alphabets, padding, dots, spaces, non-ASCII. */
const tokenCharacter = fc.constantFrom(
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=. %é\u0000'.split('')
)
const tokenText = fc.array(tokenCharacter, { maxLength: 24 }).map((chars) => chars.join(''))
/** Values shaped like real tokens (encoded id and secret), and arbitrary ones. */
const tokenValue = fc.oneof(
  fc
    .tuple(fc.string({ maxLength: 12, unit: 'grapheme' }), fc.string({ maxLength: 40 }))
    .map(
      ([id, secret]) =>
        `pat_${Buffer.from(id).toString('base64url')}.${Buffer.from(secret).toString('base64url')}`
    ),
  tokenText.map((text) => `pat_${text}`),
  tokenText
)

test.group('Token values', () => {
  test('a secret is made from its seed as AccessToken.seed makes it', ({ assert }) => {
    const urlSafe = fc.stringMatching(/^[A-Za-z0-9_-]{1,60}$/)
    try {
      fc.assert(
        fc.property(urlSafe, (seed) => {
          string.random.use(() => seed)
          const made = AccessToken.seed(seed.length)
          assert.equal(tokenSecretOf(seed), made.secret.release())
          assert.equal(made.hash, sha256Hex(tokenSecretOf(seed)))
        })
      )
    } finally {
      string.random.restore()
    }
  })

  test('a new secret has the seed length, URL-safe characters and its checksum', ({ assert }) => {
    const { secret, hash, userId } = transientToken(7, 40)
    const seed = secret.release().slice(0, 40)
    assert.match(seed, /^[A-Za-z0-9_-]{40}$/)
    assert.equal(secret.release(), tokenSecretOf(seed))
    assert.equal(hash, sha256Hex(secret.release()))
    assert.equal(userId, 7)
    assert.notEqual(transientToken(7, 40).secret.release(), secret.release())
  })

  test('a token value is what AccessToken computes for its id and secret', ({ assert }) => {
    fc.assert(
      fc.property(
        fc.oneof(fc.nat(), fc.stringMatching(/^[1-9][0-9]{0,15}$/)),
        fc.string({ maxLength: 60, unit: 'grapheme' }),
        (identifier, secret) => {
          const token = new AccessToken({
            identifier,
            tokenableId: 1,
            type: 'portal',
            prefix: 'pat_',
            secret: new Secret(secret),
            name: null,
            hash: sha256Hex(secret),
            abilities: ['*'],
            createdAt: new Date(),
            updatedAt: new Date(),
            lastUsedAt: null,
            expiresAt: null,
          })
          assert.equal(tokenValueOf('pat_', identifier, secret), token.value!.release())
        }
      )
    )
  })

  test('decode as AccessToken.decode does, on any value', ({ assert }) => {
    fc.assert(
      fc.property(tokenValue, (value) => {
        assert.deepEqual(decodeTokenValue('pat_', value), packageDecode('pat_', value))
      }),
      { numRuns: 5000 }
    )
  })

  test('an issued token decodes to its id and secret; other spellings of it do not', ({
    assert,
  }) => {
    const token = `pat_${Buffer.from('42').toString('base64url')}.${Buffer.from('s3cret').toString('base64url')}`
    assert.deepEqual(decodeTokenValue('pat_', token), { identifier: '42', secret: 's3cret' })
    for (const other of [`${token}=`, token.replace('pat_', 'mat_'), 'pat_.c2VjcmV0', 'pat_NDI']) {
      assert.isNull(decodeTokenValue('pat_', other))
      assert.isNull(packageDecode('pat_', other))
    }
  })

  test('a secret matches its stored hash as AccessToken#verify decides', ({ assert }) => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.string({ maxLength: 70 }), (secret, other) => {
        const stored = sha256Hex(secret)
        assert.isTrue(secretMatches(stored, secret))
        for (const candidate of [other, stored.slice(1), `${stored}0`, stored.toUpperCase()]) {
          assert.equal(
            secretMatches(candidate, secret),
            safeEqual(candidate, sha256Hex(secret)),
            candidate
          )
        }
      })
    )
  })
})
