/*
| /health/ready reads the migration list only until every migration is applied: from
| then on, for the process lifetime, the migration check answers without reading it
| (start/health.ts). A pending migration is never remembered.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { MigrationsAppliedCheck } from '#start/health'
import { route } from '#tests/helpers/routes'

/** Runs `work` with the newest migration marked as not applied, then restores its row. */
async function withNewestMigrationPending<T>(work: () => Promise<T>): Promise<T> {
  const newest = await db.from('adonis_schema').orderBy('id', 'desc').firstOrFail()
  await db.from('adonis_schema').where('id', newest.id).delete()
  try {
    return await work()
  } finally {
    await db.table('adonis_schema').insert(newest)
  }
}

test.group('/health/ready › migrations check', () => {
  test('a pending migration fails the check until applied; once complete it is not read again', async ({
    assert,
  }) => {
    const check = new MigrationsAppliedCheck()
    const pending = await withNewestMigrationPending(() => check.run())
    assert.equal(pending.status, 'error')
    const applied = await check.run()
    assert.equal(applied.status, 'ok')
    const afterComplete = await withNewestMigrationPending(() => check.run())
    assert.equal(afterComplete.status, 'ok')
  })

  test('/health/ready stays ready without reading the migration list again', async ({
    client,
    assert,
  }) => {
    const first = await client.get(route('health.ready'))
    first.assertStatus(200)
    const again = await withNewestMigrationPending(() => client.get(route('health.ready')))
    again.assertStatus(200)
    assert.deepInclude(again.body().checks, { name: 'Migrations applied', status: 'ok' })
  })
})
