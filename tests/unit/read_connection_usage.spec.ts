/*
| Only reporting reads use the replica (decisions.md §3 DATABASE_READ_URL): the read
| connection is reached through `readConnection()` (app/support/read_connection.ts), and
| only by the collections list/detail/history reads and the metrics/chart aggregates.
| Authentication, writes and read-your-write never name it. The cluster suite proves
| the routing against a real streaming replica (tests/cluster/read_replica.spec.ts).
*/
import { test } from '@japa/runner'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const ROOT = new URL('../../', import.meta.url).pathname
/** Paths allowed to read through the replica: reporting reads only. */
const REPORTING = /(^|\/)(collections|reporting|history|metrics|charts?)[^/]*(\/|\.ts$)/

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

test.group('Read connection usage', () => {
  test('only reporting reads use readConnection(); nothing names the read connection directly', ({
    assert,
  }) => {
    const offenders: string[] = []
    for (const file of [...sources(join(ROOT, 'app')), ...sources(join(ROOT, 'start'))]) {
      const path = relative(ROOT, file)
      if (path === 'app/support/read_connection.ts') continue
      const text = readFileSync(file, 'utf8')
      if (/connection\(\s*['"]read['"]\s*\)/.test(text))
        offenders.push(`${path}: connection('read')`)
      if (/readConnection\s*\(/.test(text) && !REPORTING.test(path)) {
        offenders.push(`${path}: readConnection() outside reporting reads`)
      }
    }
    assert.deepEqual(offenders, [])
  })
})
