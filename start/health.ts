/*
| Readiness checks: the database answers, every migration has been applied, and when
| REDIS_URL is set (rate limits kept in Redis) Redis answers a PING within a second.
*/
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { BaseCheck, HealthChecks, Result } from '@adonisjs/core/health'
import { DbCheck } from '@adonisjs/lucid/database'
import { MigrationRunner } from '@adonisjs/lucid/migration'
import redis from '@adonisjs/redis/services/main'
import env from '#start/env'

/**
 * Every migration of this build applied. Once true it stays true for the process
 * lifetime (migrations are not rolled back under a running server), so a probe then
 * costs nothing instead of a read of the migration files and the schema table.
 */
export class MigrationsAppliedCheck extends BaseCheck {
  name = 'Migrations applied'
  #complete = false

  async run() {
    if (this.#complete) return Result.ok('All migrations are applied')
    const runner = new MigrationRunner(db, app, {
      direction: 'up',
      dryRun: true,
      disableLocks: true,
    })
    const migrations = await runner.getList()
    const pending = migrations.filter((migration) => migration.status !== 'migrated')
    this.#complete = pending.length === 0
    return pending.length === 0
      ? Result.ok('All migrations are applied')
      : Result.failed(`${pending.length} migration(s) pending`)
  }
}

/**
 * Lucid's database check, run against the connection as it is at each probe: built
 * once around `db.connection()`, it would keep a client that a closed and re-made
 * connection (`db.manager.close`) has left behind, and fail for the process lifetime.
 */
class DatabaseCheck extends BaseCheck {
  name = `Database health check (${db.primaryConnectionName})`

  run() {
    return new DbCheck(db.connection()).run()
  }
}

/** The limiter store: a PING answered within a second. */
class RedisReachableCheck extends BaseCheck {
  name = 'Redis reachable'

  async run() {
    let timer: NodeJS.Timeout | undefined
    try {
      await Promise.race([
        redis.connection('main').ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer within 1 s')), 1_000)
        }),
      ])
      return Result.ok('Redis answers')
    } catch {
      return Result.failed('Redis is unreachable')
    } finally {
      clearTimeout(timer)
    }
  }
}

export const healthChecks = new HealthChecks().register([
  new DatabaseCheck(),
  new MigrationsAppliedCheck(),
  ...(env.get('REDIS_URL') ? [new RedisReachableCheck()] : []),
])
