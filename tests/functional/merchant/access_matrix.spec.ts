/*
| portal-api.md › Endpoints index and Authentication (roles): who may call each of
| the eight merchant routes. Developers read the merchant, its logo and key
| presence; every mutation is Admin only, refused 403 FORBIDDEN before any field or
| file is validated, and changes nothing.
*/
import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { createPortalClient, issuePat, signedInMember, teammate } from '#tests/helpers/portal'
import {
  clearLogoStorage,
  INTEGRATION_KEYS,
  integrationKey,
  LOGO,
  MERCHANT,
} from '#tests/helpers/merchant'
import { decompressionBomb, oversizeFile, tinyPng } from '#tests/helpers/images'
import { seedDemoData } from '#database/demo/demo_data'
import User from '#models/user'

type Session = { bearer: string; password: string }

interface RouteCase {
  route: string
  /** A valid request: what an administrator is allowed to do. */
  valid: (client: ApiClient, session: Session) => Promise<{ status(): number }>
  /** An invalid request: a developer must still get 403, not 422. */
  invalid?: (client: ApiClient, session: Session) => Promise<{ status(): number }>
  administrator: number
  developer: number
}

const KEY_BODY = (session: Session) => ({
  value: 'matrix-key-value-1',
  current_password: session.password,
  reason: 'Access matrix check',
})

const ROUTES: RouteCase[] = [
  {
    route: 'GET /portal/merchant',
    valid: (client, s) => client.get(MERCHANT()).header('Authorization', s.bearer),
    administrator: 200,
    developer: 200,
  },
  {
    route: 'PATCH /portal/merchant',
    valid: (client, s) =>
      client.patch(MERCHANT()).header('Authorization', s.bearer).json({ name: 'Matrix Co' }),
    invalid: (client, s) =>
      client.patch(MERCHANT()).header('Authorization', s.bearer).json({ id: 'x', name: null }),
    administrator: 200,
    developer: 403,
  },
  {
    route: 'GET /portal/merchant/logo',
    valid: (client, s) => client.get(LOGO()).header('Authorization', s.bearer),
    administrator: 200,
    developer: 200,
  },
  {
    route: 'POST /portal/merchant/logo',
    valid: async (client, s) =>
      client
        .post(LOGO())
        .header('Authorization', s.bearer)
        .file('file', await tinyPng(), { filename: 'l.png', contentType: 'image/png' }),
    invalid: async (client, s) =>
      client
        .post(LOGO())
        .header('Authorization', s.bearer)
        .file('file', oversizeFile(), { filename: 'big.png', contentType: 'image/png' })
        .file('other', await decompressionBomb(), { filename: 'b.png', contentType: 'image/png' }),
    administrator: 200,
    developer: 403,
  },
  {
    route: 'DELETE /portal/merchant/logo',
    valid: (client, s) => client.delete(LOGO()).header('Authorization', s.bearer),
    invalid: (client, s) => client.delete(LOGO()).header('Authorization', s.bearer).json({ a: 1 }),
    administrator: 204,
    developer: 403,
  },
  {
    route: 'GET /portal/merchant/integration-keys',
    valid: (client, s) => client.get(INTEGRATION_KEYS()).header('Authorization', s.bearer),
    administrator: 200,
    developer: 200,
  },
  {
    route: 'PUT /portal/merchant/integration-keys/{keyType}',
    valid: (client, s) =>
      client.put(integrationKey('secret_key')).header('Authorization', s.bearer).json(KEY_BODY(s)),
    invalid: (client, s) =>
      client
        .put(integrationKey('secret_key'))
        .header('Authorization', s.bearer)
        .json({ value: '' }),
    administrator: 200,
    developer: 403,
  },
  {
    route: 'DELETE /portal/merchant/integration-keys/{keyType}',
    valid: (client, s) =>
      client
        .delete(integrationKey('secret_key'))
        .header('Authorization', s.bearer)
        .json({ current_password: s.password, reason: 'Access matrix check' }),
    invalid: (client, s) =>
      client.delete(integrationKey('secret_key')).header('Authorization', s.bearer).json({ x: 1 }),
    administrator: 204,
    developer: 403,
  },
]

/** Everything a refused mutation must leave untouched. */
async function snapshot(merchantId: number) {
  return JSON.stringify([
    await db.from('merchants').where('id', merchantId).first(),
    await db.from('merchant_integrations').where('merchant_id', merchantId),
  ])
}

test.group('Merchant routes: developer and administrator', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())

  for (const route of ROUTES) {
    test(`${route.route}: administrator ${route.administrator}, developer ${route.developer}`, async ({
      client,
      assert,
    }) => {
      const admin = await signedInMember('administrator')
      const developer = await teammate(admin, 'developer')
      const before = await snapshot(admin.merchant.id)
      const asDeveloper = await route.valid(client, developer)
      assert.equal(asDeveloper.status(), route.developer)
      if (route.invalid) {
        const invalid = await route.invalid(client, developer)
        assert.equal(invalid.status(), 403, 'a developer is refused before validation')
      }
      if (route.developer === 403) assert.equal(await snapshot(admin.merchant.id), before)
      const asAdministrator = await route.valid(client, admin)
      assert.equal(asAdministrator.status(), route.administrator)
    })

    test(`${route.route}: 401 without a PAT`, async ({ client, assert }) => {
      const response = await route.valid(client, { bearer: '', password: 'x' })
      assert.equal(response.status(), 401)
    })
  }
})

test.group('demo:seed gives the demo merchant two services and a logo', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())

  test('the demo administrator sees two services and a served logo', async ({ client, assert }) => {
    const demo = await seedDemoData()
    // Twice: re-running keeps the same services and the existing logo.
    const again = await seedDemoData()
    const user = await User.findByOrFail('username', again.administrator.username)
    const pat = await issuePat(user, await createPortalClient())
    const merchant = await client.get(MERCHANT()).header('Authorization', `Bearer ${pat}`)
    merchant.assertStatus(200)
    assert.equal(merchant.body().data.id, demo.merchant.id)
    assert.lengthOf(merchant.body().data.services, 2)
    assert.isTrue(
      merchant.body().data.services.every((item: { is_active: boolean }) => item.is_active)
    )
    const url = merchant.body().data.logo_url as string
    assert.isString(url)
    const served = await client.get(new URL(url).pathname)
    served.assertStatus(200)
    served.assertHeader('content-type', 'image/png')
    const logos = await db.from('audit_logs').where('action', 'merchant.logo.update')
    assert.lengthOf(logos, 1)
  })
})
