/*
| The evidence month functions live in the database, where migrations put them
| (1110 defines them, 1120 and 1130 redefine them with their own written-out SQL), and
| in evidence_view.ts's MONTH_FUNCTIONS, which the split (migration 1110) runs. A
| change of the module without a migration of its own would reach new databases only,
| by 1110's replay, and leave every running one as it was: the migrated database must
| hold exactly what the module defines.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { MONTH_FUNCTIONS } from '#services/collections/history/evidence_view'

const SCRATCH = 'month_functions_as_the_module_defines'

interface Definition {
  name: string
  arguments: string
  result: string
  language: string
  volatility: string
  body: string
}

/** The definitions of the functions named `names` in `schema`, by name. */
async function definitions(
  client: Pick<typeof db, 'rawQuery'>,
  schema: string,
  names: string[]
): Promise<Definition[]> {
  const result = await client.rawQuery(
    `SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS arguments,
            format_type(p.prorettype, NULL) AS result, l.lanname AS language,
            p.provolatile AS volatility, p.prosrc AS body
       FROM pg_proc p
       JOIN pg_namespace n ON n.oid = p.pronamespace
       JOIN pg_language l ON l.oid = p.prolang
      WHERE n.nspname = ? AND p.proname = ANY(?)
      ORDER BY p.proname, 2`,
    [schema, names]
  )
  return result.rows
}

test.group('Evidence month functions: migrations and module agree', () => {
  test('the migrated database holds the month functions evidence_view.ts defines', async ({
    assert,
  }) => {
    const trx = await db.transaction()
    try {
      // The module's SQL, run in a schema of its own first on the path (CREATE
      // FUNCTION without a schema uses it; tables still resolve to public), then undone.
      await trx.rawQuery(`CREATE SCHEMA ${SCRATCH}`)
      await trx.rawQuery(`SET LOCAL search_path = ${SCRATCH}, public`)
      await trx.rawQuery(MONTH_FUNCTIONS)
      const created = await trx.rawQuery(
        `SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = ?`,
        [SCRATCH]
      )
      const names = created.rows.map((row: { proname: string }) => row.proname)
      assert.includeMembers(names, [
        'evidence_retain_month',
        'evidence_month_key',
        'evidence_body_partition',
        'evidence_body_place',
        'evidence_body_month',
      ])
      const module = await definitions(trx, SCRATCH, names)
      const migrated = await definitions(trx, 'public', names)
      assert.deepEqual(migrated, module)
    } finally {
      await trx.rollback()
    }
  })
})
