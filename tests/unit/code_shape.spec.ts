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
