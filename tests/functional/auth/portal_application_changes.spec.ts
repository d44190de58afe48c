/*
| A Portal application's row is kept in memory while the server hears its changes
| (app/auth/portal_clients.ts, #platform/change_listener, migration 1130): a change
| committed in the database (deactivation, a new secret, deletion) holds from the next
| login once it is heard, and while nothing is heard every login reads the row.
| Each test waits for the notice itself, never for time.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { createMerchantWithUser, createPortalClient, appHeaders } from '#tests/helpers/portal'
import { portalLogin } from '#tests/helpers/requests'
import { route } from '#tests/helpers/routes'
import { hashSecret } from '#auth/high_entropy_secrets'
import { portalClientChanges } from '#auth/portal_clients'

/** Runs `change` and resolves once the server has heard it. */
async function heard(change: () => Promise<unknown>) {
  const notice = portalClientChanges.nextChange()
  await change()
  await notice
}

/** An application and a user who signed in with it once, so the server keeps its row. */
async function keptApplication({ client }: { client: Parameters<typeof portalLogin>[0] }) {
  const app = await createPortalClient()
  const { user, password } = await createMerchantWithUser()
  const credentials = { username: user.email, password }
  const first = await portalLogin(client, app, credentials)
  first.assertStatus(200)
  return { app, credentials }
}

test.group('Portal application: changes heard by every server', (group) => {
  group.each.setup(async () => {
    await resetState()
    // Listening before the first login, so that login keeps the row.
    if (!(await portalClientChanges.listen())) throw new Error('the change listener did not start')
  })

  test('an application deactivated after a login is refused at the next login', async ({
    client,
  }) => {
    const { app, credentials } = await keptApplication({ client })
    await heard(() => db.from('portal_clients').where('id', app.id).update({ is_active: false }))
    const refused = await portalLogin(client, app, credentials)
    refused.assertStatus(401)
    refused.assertBodyContains({ error_code: 'ECOSYSTEM_CLIENT_UNAUTHENTICATED' })
  })

  test('a new secret replaces the old one from the next login', async ({ client }) => {
    const { app, credentials } = await keptApplication({ client })
    const newSecret = 'a-new-secret-of-the-portal-application-0123456789'
    await heard(() =>
      db
        .from('portal_clients')
        .where('id', app.id)
        .update({ secret_hash: hashSecret(newSecret) })
    )
    const old = await portalLogin(client, app, credentials)
    old.assertStatus(401)
    const renewed = await client
      .post(route('auth.login'))
      .headers(appHeaders(app, newSecret))
      .json(credentials)
    renewed.assertStatus(200)
  })

  test('a deleted application is refused at the next login', async ({ client }) => {
    const { app, credentials } = await keptApplication({ client })
    await heard(() => db.from('portal_clients').where('id', app.id).delete())
    const refused = await portalLogin(client, app, credentials)
    refused.assertStatus(401)
  })

  test('while the server hears nothing, every login reads its application', async ({
    client,
    assert,
  }) => {
    const { app, credentials } = await keptApplication({ client })
    // The listening connection is cut (an outage, a restart of PostgreSQL)...
    await heard(() =>
      db.rawQuery(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where query = 'LISTEN portal_clients_changed' and datname = current_database()`
      )
    )
    assert.isFalse(portalClientChanges.listening())
    // ...so a change it cannot hear still holds at once.
    await db.from('portal_clients').where('id', app.id).update({ is_active: false })
    const refused = await portalLogin(client, app, credentials)
    refused.assertStatus(401)
  })
})
