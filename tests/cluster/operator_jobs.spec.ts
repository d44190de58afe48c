/*
| Operator jobs are safe on several hosts (issue 14; decisions.md §4): the production
| build's `node ace.js auth:prune`, started twice at the same moment as two hosts' cron
| would, does the work once: both exit 0, every expired row is deleted exactly once,
| and the deletions are audited once (a run that found the lock taken or nothing
| left to delete audits nothing twice).
|
| `history:purge` (branch collections-ops) gets the same test when it is registered:
| the test below runs for each operator job the build lists.
*/
import { DateTime } from 'luxon'
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { createMerchantWithUser, createPortalClient, issuePat } from '#tests/helpers/portal'
import { aceOnHost, resetCluster } from './helpers/instances.js'

async function commandIsRegistered(name: string) {
  const listed = await aceOnHost(['list', '--json'])
  return listed.stdout.includes(`"${name}"`)
}

/**
 * One live transaction of a new merchant; returns a maker of its evidence rows (a
 * validated request whose snapshot is not a real ciphertext), by index and retention.
 */
async function evidenceOfOneTransaction(reference: string) {
  const { merchant } = await createMerchantWithUser()
  const [transaction] = await db
    .table('transactions')
    .insert({
      merchant_id: merchant.id,
      environment: 'live',
      merchant_transaction_id: reference,
      amount: '1.00',
      currency: 'PHP',
      payment_status: 'PAID',
      payment_brand: 'gcash',
      created_at: new Date(),
      updated_at: new Date(),
    })
    .returning('id')
  return (index: number, retainUntil: DateTime) => ({
    id: `01J${String(index).padStart(23, '0')}`,
    merchant_id: merchant.id,
    transaction_id: transaction.id ?? transaction,
    environment: 'live',
    kind: 'merchant_request.validated',
    source: 'merchant_api',
    direction: 'inbound',
    captured_at: new Date(),
    capture_format: 'sanitized_snapshot',
    schema_version: 2,
    snapshot_ciphertext: 'not-really-ciphertext',
    snapshot_size: 21,
    retain_until: retainUntil.toJSDate(),
    legal_hold: false,
    created_at: new Date(),
  })
}

test.group('Operator jobs on several hosts', (group) => {
  group.each.setup(() => resetCluster())

  test('auth:prune started on two hosts at once deletes once, errs nowhere, audits once', async ({
    assert,
  }) => {
    for (let round = 0; round < 3; round++) {
      await resetCluster()
      const portalClient = await createPortalClient()
      const expired: number[] = []
      for (let index = 0; index < 4; index++) {
        const { user } = await createMerchantWithUser()
        await issuePat(user, portalClient)
        expired.push(user.id)
      }
      const { user: live } = await createMerchantWithUser()
      await issuePat(live, portalClient)
      await db
        .from('auth_access_tokens')
        .whereIn('tokenable_id', expired)
        .update({ expires_at: DateTime.now().minus({ minutes: 1 }).toJSDate() })

      const runs = await Promise.all([aceOnHost(['auth:prune']), aceOnHost(['auth:prune'])])
      for (const run of runs) {
        assert.equal(run.code, 0, run.stderr)
        assert.equal(run.stderr.trim(), '')
      }
      const outputs = runs.map((run) => JSON.parse(run.stdout.trim().split('\n').pop()!))
      const deleted = outputs.map((output) => Number(output.deleted?.auth_access_tokens ?? 0))
      assert.equal(
        deleted.reduce((sum, count) => sum + count, 0),
        4,
        `round ${round}: ${JSON.stringify(outputs)}`
      )
      const remaining = await db.from('auth_access_tokens').select('tokenable_id')
      assert.deepEqual(
        remaining.map((row: { tokenable_id: number }) => row.tokenable_id),
        [live.id]
      )

      const audits = await db.from('audit_logs').where('action', 'auth.prune')
      const audited = audits.map((row: { metadata: any }) => {
        const metadata = typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata
        return Number(metadata?.deleted?.auth_access_tokens ?? 0)
      })
      assert.equal(
        audited.reduce((sum, count) => sum + count, 0),
        4,
        'deletions audited once'
      )
      assert.lengthOf(
        audited.filter((count) => count > 0),
        1,
        'one audit record carries the deletions'
      )
    }
  })

  test('history:purge started on two hosts at once purges each row once, errs nowhere, audits each run once (when the command exists)', async ({
    assert,
  }) => {
    if (!(await commandIsRegistered('history:purge'))) {
      console.log('history:purge is not registered in this build: nothing to prove yet')
      return
    }
    const evidence = await evidenceOfOneTransaction('PURGE-1')
    const expiredRows = Array.from({ length: 40 }, (_, index) =>
      evidence(index, DateTime.now().minus({ days: 1 }))
    )
    const liveRows = Array.from({ length: 5 }, (_, index) =>
      evidence(100 + index, DateTime.now().plus({ days: 30 }))
    )
    await db.table('exchange_evidence').multiInsert([...expiredRows, ...liveRows])

    const runs = await Promise.all([aceOnHost(['history:purge']), aceOnHost(['history:purge'])])
    for (const run of runs) assert.equal(run.code, 0, run.stderr)
    const outputs = runs.map((run) => JSON.parse(run.stdout.trim().split('\n').pop()!))
    assert.equal(
      outputs.reduce((sum, output) => sum + Number(output.purged ?? 0), 0),
      40,
      JSON.stringify(outputs)
    )
    const purged = await db.from('exchange_evidence').whereNotNull('purged_at').count('* as total')
    assert.equal(Number(purged[0].total), 40)

    const audits = await db
      .from('audit_logs')
      .where('action', 'history.purge')
      .where('outcome', 'success')
    assert.isAtMost(audits.length, 2, 'at most one record per run')
    const audited = audits.map((row: { metadata: any }) => {
      const metadata = typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata
      return Number(metadata?.purged ?? 0)
    })
    assert.equal(
      audited.reduce((sum, count) => sum + count, 0),
      40,
      'each purge audited once'
    )
  })
  test('history:reproject started on two hosts at once re-projects each row once and errs nowhere', async ({
    assert,
  }) => {
    const evidence = await evidenceOfOneTransaction('REPROJECT-1')
    // Never projected (as rows written before stored projections existed).
    const rows = Array.from({ length: 60 }, (_, index) =>
      evidence(index, DateTime.now().plus({ days: 30 }))
    )
    await db.table('exchange_evidence').multiInsert(rows)

    const runs = await Promise.all([
      aceOnHost(['history:reproject']),
      aceOnHost(['history:reproject']),
    ])
    for (const run of runs) assert.equal(run.code, 0, run.stderr)
    const outputs = runs.map((run) => JSON.parse(run.stdout.trim().split('\n').pop()!))
    assert.equal(
      outputs.reduce((sum, output) => sum + Number(output.reprojected ?? 0), 0),
      60,
      JSON.stringify(outputs)
    )
    const left = await db
      .from('exchange_evidence')
      .whereNull('projection_ciphertext')
      .count('* as n')
    assert.equal(Number(left[0].n), 0)
  })
})
