/*
| Readiness checks: the database answers, and every migration has been applied.
*/
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { BaseCheck, HealthChecks, Result } from '@adonisjs/core/health'
import { DbCheck } from '@adonisjs/lucid/database'
import { MigrationRunner } from '@adonisjs/lucid/migration'

class MigrationsAppliedCheck extends BaseCheck {
  name = 'Migrations applied'

  async run() {
    const runner = new MigrationRunner(db, app, {
      direction: 'up',
      dryRun: true,
      disableLocks: true,
    })
    const migrations = await runner.getList()
    const pending = migrations.filter((migration) => migration.status !== 'migrated')
    return pending.length === 0
      ? Result.ok('All migrations are applied')
      : Result.failed(`${pending.length} migration(s) pending`)
  }
}

export const healthChecks = new HealthChecks().register([
  new DbCheck(db.connection()),
  new MigrationsAppliedCheck(),
])
