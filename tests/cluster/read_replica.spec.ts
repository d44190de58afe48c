/*
| A read replica for the read-heavy routes (issue 14; decisions.md §3
| DATABASE_READ_URL): a real streaming replica (helpers/streaming_replica.ts) behind a
| production build. Reporting reads go through `readConnection()` to the replica; every
| authentication check, write and read-your-write stays on the primary.
|
| The replica's WAL replay is paused to make the proof deterministic: while paused the
| replica lags, so a request that succeeds with a PAT created after the pause was
| authenticated on the primary, and a reporting read that does not see a row written
| after the pause was served by the replica.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { setEnv } from '#tests/helpers/env'
import { readConnection } from '#support/read_connection'
import { aceOnHost, call, Instance } from './helpers/instances.js'
import { StreamingReplica } from './helpers/streaming_replica.js'
import { route } from '#tests/helpers/routes'

/** Client backends connected to the replica other than our own probes. */
async function appBackendsOn(replica: StreamingReplica) {
  const rows = await replica.query(
    'replica',
    `select count(*)::int as total from pg_stat_activity
      where backend_type = 'client backend' and pid <> pg_backend_pid()`
  )
  return rows[0].total as number
}

test.group('Read replica', (group) => {
  const replica = new StreamingReplica()
  let instance: Instance
  /** What `demo:seed` printed: the accounts it made. */
  let demo: {
    portal_client: { client_id: string; client_secret: string }
    developer: { username: string; password: string }
    merchant: { id: number }
  }

  group.setup(async () => {
    await replica.start()
    const primaryEnv = { DATABASE_URL: replica.url('primary') }
    const migrated = await aceOnHost(['migration:run', '--force'], primaryEnv)
    if (migrated.code !== 0) throw new Error(`migration failed: ${migrated.stderr}`)
    const seeded = await aceOnHost(['demo:seed'], primaryEnv)
    if (seeded.code !== 0) throw new Error(`demo:seed failed: ${seeded.stderr}`)
    demo = JSON.parse(seeded.stdout.trim().split('\n').pop()!)
    await replica.caughtUp()
    instance = new Instance({
      name: 'replica-backed',
      store: 'database',
      databaseUrl: replica.url('primary'),
      databaseReadUrl: replica.url('replica'),
      outboxDir: replica.root,
    })
    await instance.start()
    return async () => {
      await instance.stop()
      await replica.stop()
    }
  })

  test('the replica streams from the primary and is read-only', async ({ assert }) => {
    const [primary] = await replica.query('primary', 'select pg_is_in_recovery() as recovery')
    const [standby] = await replica.query('replica', 'select pg_is_in_recovery() as recovery')
    assert.isFalse(primary.recovery)
    assert.isTrue(standby.recovery)
    const senders = await replica.query('primary', 'select state from pg_stat_replication')
    assert.deepEqual(senders, [{ state: 'streaming' }])
  })

  test('readConnection() reads from the replica when DATABASE_READ_URL is set, from the primary otherwise', async ({
    assert,
    cleanup,
  }) => {
    const primary = await readConnection().rawQuery('select pg_is_in_recovery() as recovery')
    const [unset] = primary.rows
    assert.isFalse(unset.recovery, 'without DATABASE_READ_URL: the primary')

    cleanup(setEnv('DATABASE_READ_URL', replica.url('replica')))
    db.manager.add('read', {
      client: 'pg',
      connection: { connectionString: replica.url('replica') },
      pool: { min: 0, max: 2 },
    })
    cleanup(() => db.manager.close('read', true))
    const { rows } = await readConnection().rawQuery('select pg_is_in_recovery() as recovery')
    assert.isTrue(rows[0].recovery, 'with DATABASE_READ_URL: the replica')
    await assert.rejects(
      () => readConnection().rawQuery('create table never_here (id int)'),
      /read-only transaction/
    )
  })

  test('authentication, writes and read-your-write stay on the primary while the replica lags', async ({
    assert,
    cleanup,
  }) => {
    await replica.pauseReplay()
    cleanup(() => replica.resumeReplay())

    const basic = Buffer.from(
      `${demo.portal_client.client_id}:${demo.portal_client.client_secret}`
    ).toString('base64')
    const login = await call(instance, 'POST', route('auth.login'), {
      headers: { 'Authorization': `Basic ${basic}`, 'X-Service-Application': 'merchant_portal' },
      json: { username: demo.developer.username, password: demo.developer.password },
    })
    assert.equal(login.status, 200, JSON.stringify(login.body))
    const bearer = `Bearer ${login.body.data.access_token}`

    // The PAT exists on the primary only: the replica has not replayed it.
    const onReplica = await replica.query(
      'replica',
      'select count(*)::int as total from auth_access_tokens'
    )
    const onPrimary = await replica.query(
      'primary',
      'select count(*)::int as total from auth_access_tokens'
    )
    assert.equal(onPrimary[0].total, onReplica[0].total + 1, 'the replica lags behind')

    const me = await call(instance, 'GET', route('profile.show'), {
      headers: { Authorization: bearer },
    })
    assert.equal(me.status, 200, 'authenticated on the primary')
    const renamed = await call(instance, 'PATCH', route('profile.update'), {
      headers: { Authorization: bearer },
      json: { first_name: 'Renamed' },
    })
    assert.equal(renamed.status, 200, 'written to the primary')
    const again = await call(instance, 'GET', route('profile.show'), {
      headers: { Authorization: bearer },
    })
    assert.equal(again.body.data.first_name, 'Renamed', 'its own write read back')

    // Nothing of this opened a connection to the replica.
    assert.equal(await appBackendsOn(replica), 0)
  })

  test('reporting reads over HTTP are served by the replica (when the collections routes exist)', async ({
    assert,
    cleanup,
  }) => {
    const basic = Buffer.from(
      `${demo.portal_client.client_id}:${demo.portal_client.client_secret}`
    ).toString('base64')
    const login = await call(instance, 'POST', route('auth.login'), {
      headers: { 'Authorization': `Basic ${basic}`, 'X-Service-Application': 'merchant_portal' },
      json: { username: demo.developer.username, password: demo.developer.password },
    })
    const bearer = `Bearer ${login.body.data.access_token}`
    const probe = await call(
      instance,
      'GET',
      `${route('collections.transactions.index')}?environment=live`,
      { headers: { Authorization: bearer } }
    )
    if (probe.status === 404) {
      console.log(
        'collections routes are not registered in this build: readConnection() proven directly'
      )
      return
    }
    assert.equal(probe.status, 200, JSON.stringify(probe.body))
    const before = probe.body.meta.total as number

    await replica.pauseReplay()
    cleanup(() => replica.resumeReplay())
    await replica.query(
      'primary',
      `insert into transactions (merchant_id, environment, merchant_transaction_id, amount,
         currency, payment_status, payment_brand, created_at, updated_at)
       values ($1, 'live', 'REPLICA-LAG-PROBE', '10.00', 'PHP', 'PAID', 'gcash', now(), now())`,
      [demo.merchant.id]
    )
    const lagging = await call(
      instance,
      'GET',
      `${route('collections.transactions.index')}?environment=live`,
      { headers: { Authorization: bearer } }
    )
    assert.equal(lagging.body.meta.total, before, 'the paused replica answered')
    assert.isAbove(await appBackendsOn(replica), 0, 'the instance is connected to the replica')

    await replica.resumeReplay()
    await replica.caughtUp()
    const fresh = await call(
      instance,
      'GET',
      `${route('collections.transactions.index')}?environment=live`,
      { headers: { Authorization: bearer } }
    )
    assert.equal(fresh.body.meta.total, before + 1, 'caught up: the new row is visible')
  })

  test('a replica that is down fails only the reporting reads; sign-in and the rest keep working', async ({
    assert,
  }) => {
    await replica.stopReplica()
    const basic = Buffer.from(
      `${demo.portal_client.client_id}:${demo.portal_client.client_secret}`
    ).toString('base64')
    const login = await call(instance, 'POST', route('auth.login'), {
      headers: { 'Authorization': `Basic ${basic}`, 'X-Service-Application': 'merchant_portal' },
      json: { username: demo.developer.username, password: demo.developer.password },
    })
    assert.equal(login.status, 200)
    const bearer = `Bearer ${login.body.data.access_token}`
    const me = await call(instance, 'GET', route('profile.show'), {
      headers: { Authorization: bearer },
    })
    assert.equal(me.status, 200)
    const reporting = await call(
      instance,
      'GET',
      `${route('collections.transactions.index')}?environment=live`,
      {
        headers: { Authorization: bearer },
      }
    )
    if (reporting.status === 404) return // collections routes not on this branch yet
    assert.equal(reporting.status, 503, JSON.stringify(reporting.body))
    assert.equal(reporting.body.error_code, 'SERVICE_UNAVAILABLE')
  })
})
