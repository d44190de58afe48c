/*
| Portal client secrets follow the high-entropy secret rule (issue 15 › Login): the
| keyed HMAC form is stored; a secret still stored as a scrypt hash (issued before)
| authenticates and is then rewritten in the keyed form; failures change nothing;
| an unknown client id is refused exactly like a wrong secret.
*/
import { test } from '@japa/runner'
import hash from '@adonisjs/core/services/hash'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { route } from '#tests/helpers/routes'
import {
  appHeaders,
  basicAuthorization,
  createMerchantWithUser,
  createPortalClient,
} from '#tests/helpers/portal'
import { TEST_PORTAL_CLIENT_SECRET } from '#database/factories/portal_client_factory'
import { createPortalClient as issuePortalClient } from '#auth/portal_clients'
import { hashSecret, KEYED_HASH_PREFIX } from '#auth/high_entropy_secrets'
import { portalLogin } from '#tests/helpers/requests'

async function storedHash(id: number): Promise<string> {
  const row = await db.from('portal_clients').where('id', id).select('secret_hash').firstOrFail()
  return row.secret_hash
}

/** A Portal client whose secret is stored as a scrypt hash, as before the keyed rule. */
async function legacyClient() {
  const app = await createPortalClient()
  const legacyHash = await hash.make(TEST_PORTAL_CLIENT_SECRET)
  await db.from('portal_clients').where('id', app.id).update({ secret_hash: legacyHash })
  return { app, legacyHash }
}

test.group('Portal client secrets: the keyed high-entropy rule', (group) => {
  group.each.setup(() => resetState())

  test('a new Portal client stores the keyed HMAC of its secret, never the secret', async ({
    assert,
  }) => {
    const { client, clientSecret } = await issuePortalClient({
      name: 'Portal',
      origins: ['https://portal.example.test'],
    })
    const stored = await storedHash(client.id)
    assert.isTrue(stored.startsWith(KEYED_HASH_PREFIX))
    assert.equal(stored, hashSecret(clientSecret))
    assert.notInclude(stored, clientSecret)
  })

  test('a scrypt-hashed secret logs in and is then stored in the keyed form, which still works', async ({
    client,
    assert,
  }) => {
    const { app, legacyHash } = await legacyClient()
    const { user, password } = await createMerchantWithUser()

    const first = await portalLogin(client, app, { username: user.email, password })
    first.assertStatus(200)
    const upgraded = await storedHash(app.id)
    assert.notEqual(upgraded, legacyHash)
    assert.equal(upgraded, hashSecret(TEST_PORTAL_CLIENT_SECRET))

    const second = await portalLogin(client, app, { username: user.email, password })
    second.assertStatus(200)
    assert.equal(await storedHash(app.id), upgraded)
  })

  test('a wrong secret against a scrypt hash is refused and leaves the hash alone', async ({
    client,
    assert,
  }) => {
    const { app, legacyHash } = await legacyClient()
    const { user, password } = await createMerchantWithUser()
    const response = await client
      .post(route('auth.login'))
      .headers(appHeaders(app, 'not-the-secret'))
      .json({ username: user.email, password })
    response.assertStatus(401)
    response.assertBodyContains({ error_code: 'ECOSYSTEM_CLIENT_UNAUTHENTICATED' })
    assert.equal(await storedHash(app.id), legacyHash)
  })

  test('the right secret of an inactive scrypt-hashed client is refused and not upgraded', async ({
    client,
    assert,
  }) => {
    const { app, legacyHash } = await legacyClient()
    await db.from('portal_clients').where('id', app.id).update({ is_active: false })
    const { user, password } = await createMerchantWithUser()
    const response = await portalLogin(client, app, { username: user.email, password })
    response.assertStatus(401)
    response.assertBodyContains({ error_code: 'ECOSYSTEM_CLIENT_UNAUTHENTICATED' })
    assert.equal(await storedHash(app.id), legacyHash)
  })

  test('an unknown client id is refused with the same error as a wrong secret', async ({
    client,
    assert,
  }) => {
    const app = await createPortalClient()
    const { user, password } = await createMerchantWithUser()
    const body = { username: user.email, password }
    const unknown = await client
      .post(route('auth.login'))
      .headers({
        ...appHeaders(app),
        Authorization: basicAuthorization('pc_unknown', TEST_PORTAL_CLIENT_SECRET),
      })
      .json(body)
    const wrongSecret = await client
      .post(route('auth.login'))
      .headers(appHeaders(app, 'not-the-secret'))
      .json(body)
    unknown.assertStatus(401)
    wrongSecret.assertStatus(401)
    assert.deepEqual(unknown.body(), wrongSecret.body())
    assert.equal(unknown.body().error_code, 'ECOSYSTEM_CLIENT_UNAUTHENTICATED')
  })
})
