/*
| Converts the stored seals of evidence (snapshot_ciphertext, projection_ciphertext of
| `evidence_bodies`, or of the table `exchange_evidence` before migration 1110) between
| the two formats, in place: bytes in the compact format
| (evidence_cipher.ts; migration 1100's up) or text in the application encrypter's
| format (its down).
|
| Resumable and safe beside a running service: the converted seals go into a column
| beside each (`*_next`), in committed batches of BATCH_ROWS rows claimed with
| `FOR UPDATE SKIP LOCKED`; a row is done once its next columns hold what its seals
| hold, so an interrupted run resumes where it stopped; a trigger clears the copy of a
| seal the service changes meanwhile (a purge, an import). The last step, in one
| transaction under a lock that holds writers back, converts the rows written
| meanwhile, drops the old columns and gives the new ones their names. Until then the
| service reads and writes the old columns as before.
|
| Seals that do not open (corrupt, or another key's) are kept byte for byte, so they
| stay unreadable exactly as before. A snapshot over the read bound is kept as it is
| too: re-sealed smaller it would become readable, and its stored projection (made when
| it was withheld) would no longer say what a read of it says.
|
| Over evidence_bodies, the view `exchange_evidence` shows the columns the bodies have
| (evidence_view.ts), so it is defined again when they are added and when they swap.
*/
import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { toBytes, toText, type StoredRow } from '#services/collections/history/stored_seal_rows'
import { BODIES, EVENT_IDS } from '#services/collections/history/evidence_layout'
import { defineEvidenceView, evidenceIsSplit } from '#services/collections/history/evidence_view'

export type StoredSealFormat = 'bytes' | 'text'

export const CONVERSION_BATCH_ROWS = 500

export interface ConversionOptions {
  batchRows?: number
  /** Aborted: stop before the next batch; running it again resumes. */
  signal?: AbortSignal
  /** After each committed batch: the rows this run has converted so far. */
  onProgress?: (converted: number) => void
}

export interface ConversionResult {
  /** Rows converted by this run. */
  converted: number
  /** The columns hold the format asked for (false: stopped by the signal first). */
  done: boolean
}

const COLUMN_TYPE = { bytes: 'bytea', text: 'text' } as const

/** The table holding the seals: the bodies once evidence is split (migration 1110). */
async function sealTable(client: TransactionClientContract | typeof db) {
  return (await evidenceIsSplit(client)) ? BODIES : 'exchange_evidence'
}

/** The SQL type of a column of the seals' table, or null when it does not exist. */
async function columnType(
  client: TransactionClientContract | typeof db,
  table: string,
  column: string
): Promise<string | null> {
  const result = await client.rawQuery(
    `SELECT data_type FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ? AND column_name = ?`,
    [table, column]
  )
  return result.rows[0]?.data_type ?? null
}

/** An array literal of `values` for a `?::<type>[]` binding (knex would spread an array). */
function arrayLiteral(values: Array<string | Buffer | number | null>) {
  const element = (value: string | Buffer | number | null) => {
    if (value === null) return 'NULL'
    if (typeof value === 'number') return String(value)
    const text = Buffer.isBuffer(value) ? `\\x${value.toString('hex')}` : value
    return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
  }
  return `{${values.map(element).join(',')}}`
}

const PENDING = `((snapshot_ciphertext IS NOT NULL AND snapshot_ciphertext_next IS NULL)
  OR (projection_ciphertext IS NOT NULL AND projection_ciphertext_next IS NULL))`

/**
 * While a conversion runs, a seal the service changes (a purge, an import) loses its
 * converted copy, so the rows pending include it again.
 */
const FORGET_CHANGED_SEALS = (table: string) => `
CREATE OR REPLACE FUNCTION exchange_evidence_seal_changed() RETURNS trigger AS $$
BEGIN
  IF NEW.snapshot_ciphertext IS DISTINCT FROM OLD.snapshot_ciphertext THEN
    NEW.snapshot_ciphertext_next := NULL;
  END IF;
  IF NEW.projection_ciphertext IS DISTINCT FROM OLD.projection_ciphertext THEN
    NEW.projection_ciphertext_next := NULL;
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE OR REPLACE TRIGGER exchange_evidence_seal_changed BEFORE UPDATE ON ${table}
  FOR EACH ROW EXECUTE FUNCTION exchange_evidence_seal_changed();`

/** Converts the next batch of pending rows after `afterId`; returns the last id, or null. */
async function convertBatch(
  trx: TransactionClientContract,
  table: string,
  to: StoredSealFormat,
  afterId: string,
  batchRows: number,
  lock: 'FOR UPDATE SKIP LOCKED' | ''
): Promise<{ lastId: string; rows: number } | null> {
  const claimed = await trx.rawQuery(
    `SELECT id, snapshot_ciphertext, snapshot_size, projection_ciphertext
       FROM ${table} WHERE id > ? AND ${PENDING}
      ORDER BY id LIMIT ? ${lock}`,
    [afterId, batchRows]
  )
  const rows: StoredRow[] = claimed.rows
  if (rows.length === 0) return null
  const converted = rows.map(to === 'bytes' ? toBytes : toText)
  const type = COLUMN_TYPE[to]
  await trx.rawQuery(
    `UPDATE ${table} e
        SET snapshot_ciphertext_next = v.snapshot, projection_ciphertext_next = v.projection,
            snapshot_size = v.size
       FROM unnest(?::${EVENT_IDS}, ?::${type}[], ?::${type}[], ?::int[])
         AS v(id, snapshot, projection, size)
      WHERE e.id = v.id`,
    [
      arrayLiteral(converted.map((row) => row.id)),
      arrayLiteral(converted.map((row) => row.snapshot)),
      arrayLiteral(converted.map((row) => row.projection)),
      arrayLiteral(converted.map((row) => row.size)),
    ]
  )
  return { lastId: rows.at(-1)!.id, rows: rows.length }
}

/**
 * Stores every seal of exchange_evidence in `to`'s format (see the top of this file).
 * Does nothing when the columns are in that format already.
 */
export async function convertStoredSeals(
  to: StoredSealFormat,
  options: ConversionOptions = {}
): Promise<ConversionResult> {
  const result: ConversionResult = { converted: 0, done: false }
  const table = await sealTable(db)
  const split = table === BODIES
  if ((await columnType(db, table, 'snapshot_ciphertext')) === COLUMN_TYPE[to]) {
    return { ...result, done: true }
  }
  const type = COLUMN_TYPE[to]
  const batchRows = options.batchRows ?? CONVERSION_BATCH_ROWS
  // A next column of the other format is a down() that stopped half-way: start afresh.
  const next = await columnType(db, table, 'snapshot_ciphertext_next')
  if (next !== null && next !== type) {
    if (split) await db.rawQuery('DROP VIEW exchange_evidence')
    await db.rawQuery(`ALTER TABLE ${table}
      DROP COLUMN snapshot_ciphertext_next, DROP COLUMN projection_ciphertext_next`)
  }
  if (next !== type) {
    await db.transaction(async (trx) => {
      await trx.rawQuery(`ALTER TABLE ${table}
        ADD COLUMN IF NOT EXISTS snapshot_ciphertext_next ${type},
        ADD COLUMN IF NOT EXISTS projection_ciphertext_next ${type}`)
      if (split) await defineEvidenceView(trx)
    })
  }
  await db.rawQuery(FORGET_CHANGED_SEALS(table))

  let afterId = ''
  for (;;) {
    if (options.signal?.aborted) return result
    const batch = await db.transaction((trx) =>
      convertBatch(trx, table, to, afterId, batchRows, 'FOR UPDATE SKIP LOCKED')
    )
    if (batch === null) break
    afterId = batch.lastId
    result.converted += batch.rows
    options.onProgress?.(result.converted)
  }

  await db.transaction(async (trx) => {
    // Writers wait (readers do not) while the rows written meanwhile are converted.
    await trx.rawQuery('LOCK TABLE exchange_evidence IN SHARE ROW EXCLUSIVE MODE')
    let after = ''
    for (;;) {
      const batch = await convertBatch(trx, table, to, after, batchRows, '')
      if (batch === null) break
      after = batch.lastId
      result.converted += batch.rows
    }
    await trx.rawQuery(`DROP TRIGGER exchange_evidence_seal_changed ON ${table};
      DROP FUNCTION exchange_evidence_seal_changed()`)
    if (split) await trx.rawQuery('DROP VIEW exchange_evidence')
    await trx.rawQuery(`ALTER TABLE ${table}
      DROP COLUMN snapshot_ciphertext, DROP COLUMN projection_ciphertext`)
    await trx.rawQuery(
      `ALTER TABLE ${table} RENAME COLUMN snapshot_ciphertext_next TO snapshot_ciphertext`
    )
    await trx.rawQuery(
      `ALTER TABLE ${table} RENAME COLUMN projection_ciphertext_next TO projection_ciphertext`
    )
    if (split) await defineEvidenceView(trx)
  })
  return { ...result, done: true }
}
