/*
| The PostgreSQL limiter store (config/limiter.ts, migration 0940): its counters are
| an unlogged table, so the upsert every limited request makes writes no WAL and
| waits for no WAL flush (bench/README.md). Counters restart from zero after a crash
| or a failover, which one-minute windows tolerate.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import env from '#start/env'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { getProfile } from '#tests/helpers/requests'

test.group('Limiter store', (group) => {
  group.each.setup(() => resetState())

  test('the PostgreSQL store keeps its counters in an unlogged table', async ({
    client,
    assert,
  }) => {
    const { rows } = await db.rawQuery(
      `SELECT relpersistence FROM pg_class WHERE oid = 'rate_limits'::regclass`
    )
    assert.equal(rows[0].relpersistence, 'u')

    const member = await signedInMember()
    const response = await getProfile(client, member.bearer)
    response.assertStatus(200)
    if (!env.get('REDIS_URL')) {
      // The request's API-wide counter is there: the store does use this table.
      const counters = await db.from('rate_limits').count('* as total')
      assert.isAbove(Number(counters[0].total), 0)
    }
  })
})
