/*
| Converts the stored seals of `exchange_evidence` (snapshot_ciphertext,
| projection_ciphertext) between the two formats, in place: bytes in the compact format
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
*/
import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { toBytes, toText, type StoredRow } from '#services/collections/history/stored_seal_rows'

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

/** The SQL type of a column of exchange_evidence, or null when it does not exist. */
async function columnType(
  client: TransactionClientContract | typeof db,
  column: string
): Promise<string | null> {
  const result = await client.rawQuery(
    `SELECT data_type FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'exchange_evidence'
        AND column_name = ?`,
    [column]
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
const FORGET_CHANGED_SEALS = `
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
CREATE OR REPLACE TRIGGER exchange_evidence_seal_changed BEFORE UPDATE ON exchange_evidence
  FOR EACH ROW EXECUTE FUNCTION exchange_evidence_seal_changed();`

/** Converts the next batch of pending rows after `afterId`; returns the last id, or null. */
async function convertBatch(
  trx: TransactionClientContract,
  to: StoredSealFormat,
  afterId: string,
  batchRows: number,
  lock: 'FOR UPDATE SKIP LOCKED' | ''
): Promise<{ lastId: string; rows: number } | null> {
  const claimed = await trx.rawQuery(
    `SELECT id, snapshot_ciphertext, snapshot_size, projection_ciphertext
       FROM exchange_evidence WHERE id > ? AND ${PENDING}
      ORDER BY id LIMIT ? ${lock}`,
    [afterId, batchRows]
  )
  const rows: StoredRow[] = claimed.rows
  if (rows.length === 0) return null
  const converted = rows.map(to === 'bytes' ? toBytes : toText)
  const type = COLUMN_TYPE[to]
  await trx.rawQuery(
    `UPDATE exchange_evidence e
        SET snapshot_ciphertext_next = v.snapshot, projection_ciphertext_next = v.projection,
            snapshot_size = v.size
       FROM unnest(?::text[], ?::${type}[], ?::${type}[], ?::int[])
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
  if ((await columnType(db, 'snapshot_ciphertext')) === COLUMN_TYPE[to]) {
    return { ...result, done: true }
  }
  const type = COLUMN_TYPE[to]
  const batchRows = options.batchRows ?? CONVERSION_BATCH_ROWS
  // A next column of the other format is a down() that stopped half-way: start afresh.
  const next = await columnType(db, 'snapshot_ciphertext_next')
  if (next !== null && next !== type) {
    await db.rawQuery(`ALTER TABLE exchange_evidence
      DROP COLUMN snapshot_ciphertext_next, DROP COLUMN projection_ciphertext_next`)
  }
  await db.rawQuery(`ALTER TABLE exchange_evidence
    ADD COLUMN IF NOT EXISTS snapshot_ciphertext_next ${type},
    ADD COLUMN IF NOT EXISTS projection_ciphertext_next ${type}`)
  await db.rawQuery(FORGET_CHANGED_SEALS)

  let afterId = ''
  for (;;) {
    if (options.signal?.aborted) return result
    const batch = await db.transaction((trx) =>
      convertBatch(trx, to, afterId, batchRows, 'FOR UPDATE SKIP LOCKED')
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
      const batch = await convertBatch(trx, to, after, batchRows, '')
      if (batch === null) break
      after = batch.lastId
      result.converted += batch.rows
    }
    await trx.rawQuery(`DROP TRIGGER exchange_evidence_seal_changed ON exchange_evidence;
      DROP FUNCTION exchange_evidence_seal_changed()`)
    await trx.rawQuery(`ALTER TABLE exchange_evidence
      DROP COLUMN snapshot_ciphertext, DROP COLUMN projection_ciphertext`)
    await trx.rawQuery(
      'ALTER TABLE exchange_evidence RENAME COLUMN snapshot_ciphertext_next TO snapshot_ciphertext'
    )
    await trx.rawQuery(
      'ALTER TABLE exchange_evidence RENAME COLUMN projection_ciphertext_next TO projection_ciphertext'
    )
  })
  return { ...result, done: true }
}
