import { test } from '@japa/runner'
import { createHash } from 'node:crypto'
import {
  acceptUrl,
  hashInvitationProof,
  newInvitationProof,
} from '#services/team/invitations/rules'
import { parsePortalOrigin } from '#support/portal_url'

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
      acceptUrl(parsePortalOrigin('https://portal.example')!, 'ab'.repeat(32)),
      `https://portal.example/team/invitations/accept#token=${'ab'.repeat(32)}`
    )
  })
})
