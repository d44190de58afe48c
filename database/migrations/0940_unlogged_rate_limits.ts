import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The limiter's counters are unlogged: no WAL for the upsert every limited request
 * makes, so no WAL flush on its commit and nothing shipped to replicas.
 * The price, accepted because every window is one minute: after a crash of
 * PostgreSQL (not a clean restart) or a failover to a replica, the counters start
 * from zero. Operators who cannot accept that use Redis (`REDIS_URL`) or roll this
 * back.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.raw('ALTER TABLE rate_limits SET UNLOGGED')
  }

  async down() {
    this.schema.raw('ALTER TABLE rate_limits SET LOGGED')
  }
}
