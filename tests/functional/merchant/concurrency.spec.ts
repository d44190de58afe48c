/*
| Merchant mutations under concurrency: they serialize on the merchant row with the
| team mutations (app/services/team/team_locks.ts), so an administrator demoted while the
| request waits is refused 403 and changes nothing; first writes of the integration
| record never collide.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { readdir } from 'node:fs/promises'
import app from '@adonisjs/core/services/app'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { whileTeamLocked } from '#tests/helpers/team'
import { clearLogoStorage, integrationKey, MERCHANT, uploadLogo } from '#tests/helpers/merchant'
import { tinyPng } from '#tests/helpers/images'
import { ROLES } from '#models/user'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'

const demote = (userId: number) => async (trx: TransactionClientContract) => {
  await trx.from('users').where('id', userId).update({ role: ROLES.developer })
}

test.group('Merchant mutations re-check the administrator under the merchant lock', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())

  test('PATCH /portal/merchant by an administrator demoted meanwhile is 403', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const response = await whileTeamLocked(
      admin.merchant.id,
      () => client.patch(MERCHANT()).header('Authorization', admin.bearer).json({ name: 'Late' }),
      demote(admin.user.id)
    )
    response.assertStatus(403)
    assert.equal(response.body().error_code, 'FORBIDDEN')
    const row = await db.from('merchants').where('id', admin.merchant.id).first()
    assert.equal(row.name, admin.merchant.name)
  })

  test('POST /portal/merchant/logo by an administrator demoted meanwhile is 403, nothing kept', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const png = await tinyPng()
    const response = await whileTeamLocked(
      admin.merchant.id,
      () => uploadLogo(client, admin, png),
      demote(admin.user.id)
    )
    response.assertStatus(403)
    const row = await db.from('merchants').where('id', admin.merchant.id).first()
    assert.isNull(row.logo_path)
    // The object written before the transaction is removed again.
    const files = await readdir(app.makePath('storage', 'logos', String(admin.merchant.id))).catch(
      () => []
    )
    assert.lengthOf(files, 0)
  })

  test('PUT integration key by an administrator demoted meanwhile is 403', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const response = await whileTeamLocked(
      admin.merchant.id,
      () =>
        client.put(integrationKey('secret_key')).header('Authorization', admin.bearer).json({
          value: 'sk-late-value',
          current_password: admin.password,
          reason: 'Rotating the signing key',
        }),
      demote(admin.user.id)
    )
    response.assertStatus(403)
    const rows = await db.from('merchant_integrations')
    assert.lengthOf(rows, 0)
  })

  test('concurrent first writes of both keys both land in one integration record', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const body = (value: string) => ({
      value,
      current_password: admin.password,
      reason: 'Initial integration setup',
    })
    const responses = await Promise.all([
      client
        .put(integrationKey('secret_key'))
        .header('Authorization', admin.bearer)
        .json(body('a-1')),
      client
        .put(integrationKey('authentication_token'))
        .header('Authorization', admin.bearer)
        .json(body('b-1')),
    ])
    for (const response of responses) response.assertStatus(200)
    const rows = await db.from('merchant_integrations')
    assert.lengthOf(rows, 1)
    assert.isNotNull(rows[0].encrypted_secret_key)
    assert.isNotNull(rows[0].encrypted_authentication_token)
  })
})
