import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from '@japa/runner'
import { importCycles, importGraph } from '../../scripts/import_cycles.js'

/*
| The shape of the code (issue 39): no import cycles in app/ and start/, and no
| hand-written file over 250 lines in app/, start/ or config/.
*/

/**
 * Cycles known when this check was written, each to be removed by its own change:
 * a controller and its endpoint declaration import each other (the controller the
 * declaration's types, the declaration the controller, lazily). Any other cycle fails;
 * so does an entry here once its cycle is gone (delete the entry then).
 */
const KNOWN_CYCLES = [
  ['app/controllers/health_controller.ts', 'app/controllers/health_endpoints.ts'],
  ['app/controllers/merchant_api_controller.ts', 'app/controllers/merchant_api_endpoints.ts'],
  ['app/controllers/oauth_token_controller.ts', 'app/controllers/oauth_token_endpoints.ts'],
]

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
    assert.include(
      graph.get('app/controllers/openapi_endpoints.ts'),
      'app/controllers/openapi_controller.ts'
    )
  })

  test('no import cycle but the known ones, and each known one still exists', ({ assert }) => {
    const cycles = importCycles(importGraph('.', ['app', 'start']))
    const known = new Set(KNOWN_CYCLES.map((cycle) => cycle.join(' ')))
    const found = new Set(cycles.map((cycle) => cycle.join(' ')))
    assert.deepEqual(
      [...found].filter((cycle) => !known.has(cycle)),
      [],
      'new import cycles (each line: the modules that import each other)'
    )
    assert.deepEqual(
      [...known].filter((cycle) => !found.has(cycle)),
      [],
      'cycles gone: delete them from KNOWN_CYCLES'
    )
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
