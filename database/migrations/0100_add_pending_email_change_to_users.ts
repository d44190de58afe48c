import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Email change (portal-api.md › Profile, Email change state table). The pending
 * change lives on the user row: the new address, its 15-minute expiry, the id used
 * in the signed link's path, a keyed hash of the OTP, a hash of the link proof and
 * the wrong-OTP counter. At most one user may hold a given pending address.
 */
export default class extends BaseSchema {
  protected tableName = 'users'

  async up() {
    this.schema.alterTable(this.tableName, (table) => {
      table.string('pending_email', 255).nullable()
      table.timestamp('pending_email_expires_at', { useTz: true }).nullable()
      table.uuid('pending_email_verification_id').nullable().unique()
      table.string('pending_email_otp_hash', 128).nullable()
      table.string('pending_email_proof_hash', 128).nullable()
      table.smallint('pending_email_failed_attempts').notNullable().defaultTo(0)
    })
    this.schema.raw(
      'CREATE UNIQUE INDEX users_pending_email_lower_unique ON users (lower(pending_email)) WHERE pending_email IS NOT NULL'
    )
  }

  async down() {
    this.schema.raw('DROP INDEX IF EXISTS users_pending_email_lower_unique')
    this.schema.alterTable(this.tableName, (table) => {
      table.dropColumn('pending_email')
      table.dropColumn('pending_email_expires_at')
      table.dropColumn('pending_email_verification_id')
      table.dropColumn('pending_email_otp_hash')
      table.dropColumn('pending_email_proof_hash')
      table.dropColumn('pending_email_failed_attempts')
    })
  }
}
