/*
| Bytes per stored evidence event, the encrypter's text format against the compact
| bytes (issue 40 › Evidence stored compactly, goal 3), on the same rows.
|
|   DATABASE_URL=... node --import=@poppinss/ts-exec bench/evidence_storage.ts [--smoke]
|
| Uses the evidence already in the database (load it first, e.g. with
| bench/collections_dataset.ts; --smoke loads 200 transactions itself). Converts every
| seal to the text format (migration 1100's down), VACUUM FULL, measures; converts them
| back to bytes (its up), VACUUM FULL, measures. The table is left in the bytes format.
| Measured: heap, TOAST and indexes of the evidence's tables (evidence_records and every
| partition of evidence_bodies: pg_total_relation_size and friends), per event, and the average stored snapshot and projection. Rewrites the
| whole table twice: use a database of its own.
*/
import { bootApp } from './boot_app.js'
import { expectFigures, SMOKE } from './smoke.js'

const { shutdown } = await bootApp()
try {
  const { default: db } = await import('@adonisjs/lucid/services/db')
  const { convertStoredSeals } = await import('#services/collections/history/stored_seal_format')

  if (SMOKE) {
    const { importJsonLines } = await import('#services/collections/import/import_transactions')
    const { Readable } = await import('node:stream')
    const { MerchantFactory } = await import('#database/factories/merchant_factory')
    const merchant = await MerchantFactory.create()
    const lines = Array.from({ length: 200 }, (_, index) =>
      JSON.stringify({
        merchant_id: merchant.id,
        environment: 'live',
        merchant_transaction_id: `SMOKE-${index}`,
        amount: '1500.00',
        currency: 'PHP',
        payment_status: 'PAID',
        legacy_status: null,
        payment_brand: 'gcash',
        archived: false,
        created_at: '2026-03-01T10:00:00+08:00',
        updated_at: null,
        events: [
          {
            kind: 'merchant_request.validated',
            captured_at: '2026-03-01T10:00:00.120+08:00',
            schema_version: 2,
            capture_format: 'sanitized_snapshot',
            body: { merchant_transaction_id: `SMOKE-${index}`, amount: '1500.00', currency: 'PHP' },
          },
        ],
      })
    )
    await importJsonLines(Readable.from([lines.join('\n') + '\n']))
  }

  const measure = async () => {
    // The event's row and its body are two tables since migration 1110 (records, and
    // bodies partitioned by month); exchange_evidence is a view of them.
    await db.rawQuery('VACUUM (FULL, ANALYZE) evidence_records, evidence_bodies')
    const { rows } = await db.rawQuery(`
      WITH stored AS (
        SELECT 'evidence_records'::regclass AS relid
        UNION ALL
        SELECT relid FROM pg_partition_tree('evidence_bodies') WHERE isleaf
      ), sizes AS (
        SELECT sum(pg_relation_size(relid))::bigint AS heap,
          sum(pg_total_relation_size(relid) - pg_relation_size(relid)
            - pg_indexes_size(relid))::bigint AS toast,
          sum(pg_indexes_size(relid))::bigint AS indexes,
          sum(pg_total_relation_size(relid))::bigint AS total
        FROM stored
      )
      SELECT count(*)::int AS events, sizes.heap, sizes.toast, sizes.indexes, sizes.total,
        round(avg(octet_length(snapshot_ciphertext)), 1)::float AS avg_snapshot_bytes,
        round(avg(octet_length(projection_ciphertext)), 1)::float AS avg_projection_bytes
      FROM exchange_evidence, sizes
      GROUP BY sizes.heap, sizes.toast, sizes.indexes, sizes.total`)
    const row = rows[0]
    const figures = {
      events: row.events,
      heap: Number(row.heap),
      toast: Number(row.toast),
      indexes: Number(row.indexes),
      total: Number(row.total),
      avg_snapshot_bytes: row.avg_snapshot_bytes,
      avg_projection_bytes: row.avg_projection_bytes,
    }
    return { ...figures, bytes_per_event: Math.round((figures.total / figures.events) * 10) / 10 }
  }

  const started = Date.now()
  await convertStoredSeals('text')
  const toTextSeconds = (Date.now() - started) / 1000
  await db.manager.closeAll()
  const text = await measure()
  const converting = Date.now()
  await convertStoredSeals('bytes')
  const toBytesSeconds = (Date.now() - converting) / 1000
  await db.manager.closeAll()
  const bytes = await measure()
  const saved = Math.round((1 - bytes.bytes_per_event / text.bytes_per_event) * 1000) / 10
  console.log(
    JSON.stringify(
      {
        text,
        bytes,
        saved_percent: saved,
        to_text_seconds: toTextSeconds,
        to_bytes_seconds: toBytesSeconds,
      },
      null,
      2
    )
  )
  expectFigures('evidence_storage', {
    text_bytes_per_event: text.bytes_per_event,
    bytes_bytes_per_event: bytes.bytes_per_event,
    saved_percent: saved,
  })
} finally {
  await shutdown()
}
