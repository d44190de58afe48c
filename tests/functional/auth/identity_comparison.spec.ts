/*
| Identities are stored normalized and compared as stored (app/support/identity.ts),
| so JavaScript's lowercase and PostgreSQL's lower() can never disagree: "İ"
| lowercases to "i̇" in JavaScript but to "i" in PostgreSQL, and a final "Σ" to "ς"
| and "σ" respectively.
*/
import { test } from '@japa/runner'
import type { FakeMailer } from '@adonisjs/mail'
import { resetState } from '#tests/helpers/database'
import {
  createMerchantWithUser,
  createPortalClient,
  PORTAL_ORIGIN,
  signedInMember,
} from '#tests/helpers/portal'
import { profileTestSetup, sentResetMails } from '#tests/helpers/profile'
import { route } from '#tests/helpers/routes'
import User from '#models/user'
import { createUser } from '#services/users/create_user'
import { portalLogin } from '#tests/helpers/requests'

let fake: FakeMailer
let restore: () => Promise<void>

test.group('Identity comparison', (group) => {
  group.each.setup(async () => {
    await resetState()
    ;({ fake, restore } = profileTestSetup())
    return () => restore()
  })

  test('a username with İ and a final Σ signs in as typed and in any case', async ({
    client,
    assert,
  }) => {
    const app = await createPortalClient()
    const { user, password } = await createMerchantWithUser()
    user.username = 'ΟΔΟΣ.İnci'
    await user.save()
    for (const typed of ['ΟΔΟΣ.İnci', 'οδοσ.i̇nci', 'ΟΔΟΣ.İNCI']) {
      const response = await portalLogin(
        client,
        app,
        { username: typed, password },
        { Origin: PORTAL_ORIGIN }
      )
      assert.equal(response.status(), 200, typed)
    }
  })

  test('an email is stored normalized, and a reset request in another case finds it', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    user.email = 'İNCİ.ΟΔΟΣ@Example.test'
    await user.save()
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.email, 'i̇nci̇.οδος@example.test')

    const response = await client
      .post(route('auth.reset_link'))
      .json({ email: 'İncİ.ΟδοΣ@example.test', reset_url: `${PORTAL_ORIGIN}/reset` })
    response.assertStatus(200)
    assert.lengthOf(await sentResetMails(fake), 1)
  })

  test('one namespace: an email change to another account’s username, in other case, is taken', async ({
    client,
    assert,
  }) => {
    const other = await createMerchantWithUser()
    other.user.username = 'İnci@example.test'
    await other.user.save()
    const member = await signedInMember()
    const response = await client
      .patch(route('profile.update'))
      .header('Authorization', member.bearer)
      .json({ email: 'İNCI@example.test' })
    response.assertStatus(422)
    assert.property(response.body().errors, 'email')
  })

  test('operator-created users: a username equal to another account’s email is refused', async ({
    assert,
  }) => {
    const { merchant } = await createMerchantWithUser()
    const first = await createUser({
      merchantId: merchant.id,
      email: 'İnci@example.test',
      firstName: 'A',
      lastName: 'B',
      role: 'developer',
      password: 'Correct-Horse-9-Battery',
      isActive: true,
    })
    assert.equal(first.email, 'i̇nci@example.test')
    await assert.rejects(() =>
      createUser({
        merchantId: merchant.id,
        email: 'someone@example.test',
        username: 'İNCI@EXAMPLE.TEST',
        firstName: 'A',
        lastName: 'B',
        role: 'developer',
        password: 'Correct-Horse-9-Battery',
        isActive: true,
      })
    )
  })
})
