import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Team invitations (portal-api.md › Team, Invitation status). Only the SHA-256 of
 * the emailed proof is stored. `status` holds pending | accepted | revoked;
 * "expired" is a pending record past `expires_at` and is derived when read.
 * The proof hash is kept after acceptance or revocation so that a spent proof
 * answers 410 (unavailable) rather than 404 (unknown); a resend replaces it.
 */
export default class extends BaseSchema {
  protected tableName = 'team_invitations'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.uuid('id').primary()
      table
        .bigInteger('merchant_id')
        .notNullable()
        .references('id')
        .inTable('merchants')
        .onDelete('CASCADE')
      table.string('email', 255).notNullable()
      table.smallint('role').notNullable()
      table.string('status', 20).notNullable()
      table.specificType('token_hash', 'char(64)').notNullable().unique()
      table
        .bigInteger('invited_by')
        .notNullable()
        .references('id')
        .inTable('users')
        .onDelete('RESTRICT')
      table.integer('failed_attempts').notNullable().defaultTo(0)
      table.timestamp('expires_at', { useTz: true }).notNullable()
      table.timestamp('accepted_at', { useTz: true }).nullable()
      table.bigInteger('accepted_user_id').nullable()
      table.timestamp('revoked_at', { useTz: true }).nullable()
      table.timestamp('created_at', { useTz: true }).notNullable()
      table.timestamp('updated_at', { useTz: true }).notNullable()
      table.index(['merchant_id', 'created_at'])
      table.index(['merchant_id', 'email'])
    })
    this.schema.raw(
      "ALTER TABLE team_invitations ADD CONSTRAINT team_invitations_status_check CHECK (status IN ('pending', 'accepted', 'revoked'))"
    )
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
