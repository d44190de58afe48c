/*
| The cost of purging one month of expired evidence (issue 40 › goal 4): time and WAL
| of `history:purge` (purgeExpiredEvidence) over a month of events, 1 % of them on legal
| hold, and the VACUUM that reclaims what the purge left (from VACUUM FULL tables and a
| CHECKPOINT, so every page touched writes its full image once), with the held events checked
| to be kept exactly (their rows, seals included, byte for byte).
|
|   DATABASE_URL=... node --import=@poppinss/ts-exec bench/purge_month.ts \
|     [--events=100000] [--seals=bytes|text] [--purge=both|rows|partition] [--smoke]
|
| Loads `--events` transactions of one validated request each (a body of about 200
| bytes), all retained until a day of January 2026, through the import; with
| --seals=text converts their seals to the text format main stores (migration 1100's
| down) first. Then purges as of February 2026: row by row (`--purge=rows`, every
| month below the whole-month threshold), by emptying the month's partition
| (`partition`, the default threshold), or each on the same lines loaded afresh
| (`both`, the default: rows first). Prints one JSON object per purge. Empties the
| evidence and transactions of its database: use one of its own.
*/
import { Readable } from 'node:stream'
import { DateTime } from 'luxon'
import { bootApp } from './boot_app.js'
import { flag } from './collections_dataset.js'
import { expectFigures, sized } from './smoke.js'

const EVENTS = Number(flag('events', String(sized(100_000, 400))))
const SEALS = flag('seals', 'bytes')
if (!Number.isSafeInteger(EVENTS) || EVENTS < 100) throw new Error('--events must be 100 or more')
if (SEALS !== 'bytes' && SEALS !== 'text') throw new Error('--seals must be bytes or text')
const PURGE = flag('purge', 'both')
const PURGES = PURGE === 'both' ? ['rows', 'partition'] : [PURGE]
if (!PURGES.every((purge) => purge === 'rows' || purge === 'partition')) {
  throw new Error('--purge must be both, rows or partition')
}

const { shutdown } = await bootApp()
try {
  const { default: db } = await import('@adonisjs/lucid/services/db')
  const { importJsonLines } = await import('#services/collections/import/import_transactions')
  const { purgeExpiredEvidence } = await import('#services/collections/history/purge_history')
  const { convertStoredSeals } = await import('#services/collections/history/stored_seal_format')
  const { MerchantFactory } = await import('#database/factories/merchant_factory')

  const merchant = await MerchantFactory.create()
  function* lines() {
    for (let index = 0; index < EVENTS; index++) {
      const reference = `PURGE-${String(index).padStart(8, '0')}`
      const day = String(1 + (index % 28)).padStart(2, '0')
      yield (
        JSON.stringify({
          merchant_id: merchant.id,
          environment: 'live',
          merchant_transaction_id: reference,
          amount: '1500.00',
          currency: 'PHP',
          payment_status: 'PAID',
          legacy_status: null,
          payment_brand: 'gcash',
          archived: false,
          created_at: `2025-01-${day}T10:00:00+08:00`,
          updated_at: null,
          events: [
            {
              kind: 'merchant_request.validated',
              captured_at: `2025-01-${day}T10:00:00.120+08:00`,
              schema_version: 2,
              capture_format: 'sanitized_snapshot',
              content_type: 'application/json',
              body: {
                merchant_transaction_id: reference,
                amount: '1500.00',
                currency: 'PHP',
                payment_brand: 'gcash',
                channel: 2,
                is_card_payment: false,
                success_url: 'https://shop.example/ok',
                customer: { email: `buyer${index}@example.com` },
              },
              retain_until: `2026-01-${day}T10:00:00+08:00`,
              legal_hold: index % 100 === 0,
            },
          ],
        }) + '\n'
      )
    }
  }
  /** Loads the lines afresh, purges them `purge`'s way, and measures it. */
  async function measure(purge: string) {
    await db.rawQuery(
      'TRUNCATE evidence_records, evidence_bodies, evidence_purged_months, transactions CASCADE'
    )
    await importJsonLines(Readable.from(lines()))
    if (SEALS === 'text') {
      await convertStoredSeals('text')
      await db.manager.closeAll()
    }
    // The same start for both formats: a compact table, and every page's first change
    // after the checkpoint writing its full image, as in a purge run between checkpoints.
    await db.rawQuery('VACUUM (FULL, ANALYZE) evidence_records, evidence_bodies')

    const heldSeals = `SELECT id, md5(e::text) AS row, md5(snapshot_ciphertext::text) AS s,
        md5(projection_ciphertext::text) AS p
      FROM exchange_evidence e WHERE legal_hold ORDER BY id`
    const rowsOf = async (sql: string, bindings: unknown[] = []) => {
      const result = await db.rawQuery(sql, bindings)
      return result.rows
    }
    const heldBefore = await rowsOf(heldSeals)
    const walNow = async () => {
      const [row] = await rowsOf('SELECT pg_current_wal_lsn() AS lsn')
      return row.lsn as string
    }
    const walSince = async (lsn: string) => {
      const [row] = await rowsOf('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?)::bigint AS d', [
        lsn,
      ])
      return Number(row.d)
    }

    await db.rawQuery('CHECKPOINT')
    const lsn = await walNow()
    const started = process.hrtime.bigint()
    const result = await purgeExpiredEvidence({
      now: DateTime.fromISO('2026-02-01T00:00:00Z'),
      ...(purge === 'rows' && { wholeMonthEvents: Number.MAX_SAFE_INTEGER }),
    })
    const purgeSeconds = Number(process.hrtime.bigint() - started) / 1e9
    const purgeWal = await walSince(lsn)

    const vacuumLsn = await walNow()
    const vacuumStarted = process.hrtime.bigint()
    await db.rawQuery('VACUUM evidence_records, evidence_bodies')
    const vacuumSeconds = Number(process.hrtime.bigint() - vacuumStarted) / 1e9
    const vacuumWal = await walSince(vacuumLsn)

    const heldAfter = await rowsOf(heldSeals)
    const heldKept = JSON.stringify(heldAfter) === JSON.stringify(heldBefore)
    if (!heldKept) throw new Error('the purge changed evidence on legal hold')
    const unpurgedHeld = await db
      .from('exchange_evidence')
      .where('legal_hold', true)
      .whereNull('purged_at')
      .count('* as n')
      .first()

    const figures = {
      purge,
      events: EVENTS,
      seals: SEALS,
      on_legal_hold: result.on_legal_hold,
      held_kept_exactly: heldKept && Number(unpurgedHeld?.n) === heldBefore.length,
      purged: result.purged,
      batches: result.batches,
      months_purged_whole: result.months,
      purge_seconds: Math.round(purgeSeconds * 1000) / 1000,
      purge_wal_bytes: purgeWal,
      purge_wal_bytes_per_event: Math.round(purgeWal / Math.max(1, result.purged)),
      vacuum_seconds: Math.round(vacuumSeconds * 100) / 100,
      vacuum_wal_bytes: vacuumWal,
    }
    console.log(JSON.stringify(figures, null, 2))
    return figures
  }

  const measured = []
  for (const purge of PURGES) measured.push(await measure(purge))
  // One smoke verdict under the bench's own name (.ci/bench_smoke looks for it), with
  // the figures of each purge measured.
  expectFigures(
    'purge_month',
    Object.fromEntries(
      measured.flatMap((figures, index) => [
        [`${PURGES[index]}_purged`, figures.purged],
        [`${PURGES[index]}_purge_seconds`, figures.purge_seconds],
        [`${PURGES[index]}_purge_wal_bytes`, figures.purge_wal_bytes],
      ])
    )
  )
  if (measured.length === 2) {
    const [rows, partition] = measured
    console.log(
      JSON.stringify({
        time_ratio: Math.round((rows.purge_seconds / partition.purge_seconds) * 10) / 10,
        wal_ratio: Math.round((rows.purge_wal_bytes / partition.purge_wal_bytes) * 10) / 10,
      })
    )
  }
} finally {
  await shutdown()
}
