/*
| The demo data is a Lucid seeder (database/seeders/demo_seeder.ts): `node ace db:seed`
| finds it (and nothing else below database/seeders), loads the demo merchant with its
| users and Portal client outside production, and leaves production alone (there an
| operator asks explicitly with `node ace demo:seed`).
*/
import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import DbSeed from '@adonisjs/lucid/commands/db_seed'
import { resetState } from '#tests/helpers/database'
import { countRows, runCommand } from '#tests/helpers/foundation'

/** The application as the command sees it, but in `environment`. */
function appIn(environment: string) {
  return new Proxy(app, {
    get(target, key) {
      if (key === 'nodeEnvironment') return environment
      const value = Reflect.get(target, key, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

test.group('db:seed › demo seeder', (group) => {
  group.each.setup(() => resetState())

  test('db:seed runs the demo seeder and loads the demo data', async ({ assert }) => {
    const result = await runCommand(DbSeed, [])
    const output = result.stdout.join('\n')
    assert.equal(result.exitCode, 0, output)
    assert.include(output, 'database/seeders/demo_seeder')
    assert.include(output, 'completed')
    assert.notInclude(output, 'error')
    const merchant = await db
      .from('merchants')
      .where('email', 'payments@demo-merchant.test')
      .first()
    assert.exists(merchant)
    assert.equal(await countRows('merchants'), 1)
    assert.equal(await countRows('users'), 2)
    assert.equal(await countRows('portal_clients'), 1)
    const transactions = await db
      .from('transactions')
      .where('merchant_id', merchant.id)
      .count('* as total')
      .first()
    assert.isAbove(Number(transactions?.total), 0)
  })

  test('db:seed leaves the demo data out in production', async ({ assert }) => {
    const result = await runCommand(DbSeed, [], (command) => {
      command.app = appIn('production')
    })
    const output = result.stdout.join('\n')
    assert.equal(result.exitCode, 0, output)
    assert.include(output, 'ignored')
    assert.include(output, 'database/seeders/demo_seeder')
    assert.equal(await countRows('merchants'), 0)
    assert.equal(await countRows('users'), 0)
  })
})
