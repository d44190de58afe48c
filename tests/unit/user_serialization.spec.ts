import { test } from '@japa/runner'

test.group('User serialization', () => {
  test('never includes email-change proofs or counters', async ({ assert }) => {
    const { default: User } = await import('#models/user')
    const user = new User()
    user.merge({
      email: 'a@example.test',
      pendingEmail: 'b@example.test',
      pendingEmailOtpHash: 'h1',
      pendingEmailProofHash: 'h2',
      pendingEmailFailedAttempts: 3,
      password: 'secret',
    })
    const serialized = JSON.stringify(user.serialize())
    for (const secret of ['h1', 'h2', 'secret', 'FailedAttempts', 'failed_attempts']) {
      assert.notInclude(serialized, secret)
    }
    assert.include(serialized, 'b@example.test')
  })
})
