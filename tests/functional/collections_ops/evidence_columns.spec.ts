/*
| The evidence record's columns are named in several places: the view's triggers and
| the split (RECORD_COLUMNS, evidence_view.ts), the import's direct COPY
| (import_columns.ts, in its own positional order, with the body's columns among them)
| and the tables themselves. A column added to one and not the others would be
| silently dropped by an import or by the view. These lists must agree, with each
| other and with the migrated tables.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { RECORD_COLUMNS } from '#services/collections/history/evidence_view'
import { BODIES, RECORDS } from '#services/collections/history/evidence_layout'
import {
  DIRECT_BODY_COLUMNS,
  DIRECT_EVENT_COLUMNS,
} from '#services/collections/import/import_columns'

/** The columns of a table in the public schema, sorted. */
async function tableColumns(table: string) {
  const result = await db.rawQuery(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = ?`,
    [table]
  )
  return result.rows.map((row: { column_name: string }) => row.column_name).sort()
}

const sorted = (columns: readonly string[]) => [...columns].sort()

test.group('Evidence columns: one set of names everywhere', () => {
  test('the import writes exactly the columns of an evidence record, and its month', async ({
    assert,
  }) => {
    assert.lengthOf(new Set(DIRECT_EVENT_COLUMNS), DIRECT_EVENT_COLUMNS.length)
    assert.deepEqual(sorted(DIRECT_EVENT_COLUMNS), sorted([...RECORD_COLUMNS, 'body_month']))
  })

  test('evidence_records has exactly the record columns the code names, and its month', async ({
    assert,
  }) => {
    assert.deepEqual(await tableColumns(RECORDS), sorted([...RECORD_COLUMNS, 'body_month']))
  })

  test('evidence_bodies has exactly the body columns the import writes', async ({ assert }) => {
    assert.deepEqual(await tableColumns(BODIES), sorted(DIRECT_BODY_COLUMNS))
  })
})
