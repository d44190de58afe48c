import { test } from '@japa/runner'
import { setEnv } from '#tests/helpers/env'
import { createHash } from 'node:crypto'
import {
  acceptUrl,
  hashInvitationProof,
  newInvitationProof,
  portalOrigin,
} from '#services/invitation_service'

test.group('Invitation proof', () => {
  test('is 64 lowercase hex characters (32 random bytes), different every time', ({ assert }) => {
    const proofs = new Set(Array.from({ length: 50 }, () => newInvitationProof()))
    assert.equal(proofs.size, 50)
    for (const proof of proofs) assert.match(proof, /^[a-f0-9]{64}$/)
  })

  test('is stored as its SHA-256 hex digest', ({ assert }) => {
    const proof = newInvitationProof()
    assert.equal(hashInvitationProof(proof), createHash('sha256').update(proof).digest('hex'))
  })

  test('the accept link is the Portal origin plus /team/invitations/accept#token=<proof>', ({
    assert,
  }) => {
    assert.equal(
      acceptUrl('https://portal.example', 'ab'.repeat(32)),
      `https://portal.example/team/invitations/accept#token=${'ab'.repeat(32)}`
    )
  })
})

test.group('PORTAL_URL', () => {
  const cases: Array<[string | undefined, string | null]> = [
    ['https://portal.example.test', 'https://portal.example.test'],
    ['https://portal.example.test/some/path?x=1', 'https://portal.example.test'],
    ['http://localhost:5173', 'http://localhost:5173'],
    ['https://portal.example.test:443', 'https://portal.example.test'],
    [undefined, null],
    ['', null],
    ['   ', null],
    ['portal.example.test', null],
    ['ftp://portal.example.test', null],
    ['javascript:alert(1)', null],
    ['https://user:secret@portal.example.test', null],
  ]
  for (const [value, expected] of cases) {
    test(`${JSON.stringify(value)} gives ${expected}`, ({ assert }) => {
      const restore = setEnv('PORTAL_URL', value)
      try {
        assert.equal(portalOrigin(), expected)
      } finally {
        restore()
      }
    })
  }
})
