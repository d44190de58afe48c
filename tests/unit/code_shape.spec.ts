import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from '@japa/runner'
import { importCycles, importGraph } from '../../scripts/import_cycles.js'

/*
| The shape of the code (issue 39): no import cycles in app/ and start/, and no
| hand-written file over 250 lines in app/, start/ or config/.
*/

test.group('Import cycles (app/, start/)', () => {
  test('finds a loop through several modules, a module importing itself, and no tree', ({
    assert,
  }) => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts', 'd.ts']],
    ])
    assert.deepEqual(importCycles(graph), [['a.ts', 'b.ts', 'c.ts'], ['e.ts']])
    assert.deepEqual(
      importCycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ])
      ),
      []
    )
  })

  test('the graph follows #alias, relative, type-only and lazy imports', ({ assert }) => {
    const graph = importGraph('.', ['app', 'start'])
    // #alias and a static import
    assert.include(graph.get('app/limits/enforce_limit.ts'), 'app/limits/limits.ts')
    // a type-only import
    assert.include(
      graph.get('app/services/collections/transactions/list_total.ts'),
      'app/services/collections/transactions/transaction_filters.ts'
    )
    // a lazy import()
    assert.include(graph.get('start/routes.ts'), 'app/controllers/session_controller.ts')
  })

  test('no import cycle', ({ assert }) => {
    const cycles = importCycles(importGraph('.', ['app', 'start']))
    assert.deepEqual(cycles, [], 'each entry: modules that import each other')
  })
})

/** Files made by a generator, which a reader never edits (their header says so). */
const GENERATED = ['app/support/iana_zones.ts']
const MOST_LINES = 250

function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
}

test.group('File length (app/, start/, config/)', () => {
  test(`no hand-written file over ${MOST_LINES} lines`, ({ assert }) => {
    const tooLong = ['app', 'start', 'config']
      .flatMap(typeScriptFiles)
      .filter((file) => !GENERATED.includes(file))
      .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MOST_LINES)
      .map(({ file, lines }) => `${file}: ${lines}`)
    assert.deepEqual(tooLong, [])
  })

  test('each generated file says so', ({ assert }) => {
    for (const file of GENERATED) {
      assert.include(readFileSync(file, 'utf8'), 'Generated, do not edit', file)
    }
  })
})

/*
| Migrations replay what they first ran (docs/operations.md): a migration writes its SQL
| out instead of importing it from the application, whose modules later changes edit.
| The exceptions, each named here with what it imports: the migrations that run an
| operation (batches, progress, resumption) or the application's rule over the rows
| already stored (on a new database there are none), and the currency catalogue.
*/
const MIGRATIONS_IMPORTING_THE_APPLICATION: Record<string, string[]> = {
  '0001_create_currencies_table.ts': ['#database/data/iso4217_currencies'],
  '0590_store_normalized_identities.ts': ['#support/identity'],
  '0930_store_normalized_machine_client_labels.ts': ['#support/machine_client_label'],
  '0970_store_evidence_projections.ts': ['#services/collections/history/reproject_history'],
  '1010_store_websites_as_uris.ts': ['#services/merchants/stored_websites'],
  '1100_store_evidence_seals_as_bytes.ts': ['#services/collections/history/stored_seal_format'],
  '1110_store_evidence_bodies_by_month.ts': [
    '#services/collections/history/evidence_split',
    '#services/collections/history/evidence_unsplit',
  ],
}

test.group('Migrations (database/migrations)', () => {
  test('import nothing of the application but the operations and rules they run', ({ assert }) => {
    const imported: Record<string, string[]> = {}
    for (const file of readdirSync('database/migrations').filter((name) => name.endsWith('.ts'))) {
      const source = readFileSync(join('database/migrations', file), 'utf8')
      const modules = [...source.matchAll(/from '(#[^']+|\.[^']*)'/g)].map((match) => match[1])
      if (modules.length > 0) imported[file] = modules
    }
    assert.deepEqual(imported, MIGRATIONS_IMPORTING_THE_APPLICATION)
  })
})
