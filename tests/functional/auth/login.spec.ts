import { test } from '@japa/runner'
import { resetState } from '#tests/helpers/database'
import { createMerchantWithUser, createPortalClient, PORTAL_ORIGIN } from '#tests/helpers/portal'
import { portalLogin } from '#tests/helpers/requests'

test.group('POST /auth/login', (group) => {
  group.each.setup(() => resetState())

  test('issues a Bearer PAT with the login user for valid credentials', async ({
    client,
    assert,
  }) => {
    const app = await createPortalClient()
    const { user, merchant, password } = await createMerchantWithUser()
    const response = await portalLogin(
      client,
      app,
      { username: user.email, password },
      { Origin: PORTAL_ORIGIN }
    )
    response.assertStatus(200)
    const body = response.body()
    assert.isTrue(body.success)
    assert.equal(body.data.token_type, 'Bearer')
    assert.match(body.data.access_token, /^pat_/)
    assert.deepEqual(body.data.user, {
      id: user.id,
      reference_id: user.referenceId,
      merchant_reference_id: merchant.referenceId,
      merchant_id: merchant.id,
      first_name: user.firstName,
      last_name: user.lastName,
      role: 1,
      email: user.email,
      email_verified_at: null,
      created_at: user.createdAt.toUTC().toISO(),
    })
    response.assertHeader('cache-control', 'no-store')
  })
})
