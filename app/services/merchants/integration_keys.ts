/*
| portal-api.md › Integration keys and Integration keys presence. The two keys are
| write-only: stored encrypted with the application's encryption (purpose-bound to
| merchant and key type, so a ciphertext cannot be moved to another slot), never
| returned, logged or audited. Presence reads never create the integration record.
| A wrong current password changes nothing and is audited as a failure; a change and
| its audit record commit together.
*/
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import encryption from '@adonisjs/core/services/encryption'
import type { UserActor } from '#auth/actor'
import { AuditActions } from '#services/audit/actions'
import { audit } from '#services/audit/audit_trail'
import { requireCurrentPassword } from '#services/users/current_password'
import { lockTeamAsAdministrator } from '#services/team/team_locks'
import type { IntegrationKeyType } from '#validators/rules/route_ids'

/** What the integration keys operations return for Integration keys presence. */
export interface IntegrationKeysView {
  hasAuthenticationToken: boolean
  hasSecretKey: boolean
  updatedAt: DateTime | null
}

const COLUMN: Record<IntegrationKeyType, string> = {
  authentication_token: 'encrypted_authentication_token',
  secret_key: 'encrypted_secret_key',
}

/** Encryption purpose of a stored key: its merchant and slot (the signer decrypts with it). */
export const integrationKeyPurpose = (merchantId: number, keyType: IntegrationKeyType) =>
  `integration-key:${merchantId}:${keyType}`

/** GET /portal/merchant/integration-keys */
export async function integrationKeysPresence(
  actor: UserActor,
  client = db.connection()
): Promise<IntegrationKeysView> {
  const row = await client
    .from('merchant_integrations')
    .where('merchant_id', actor.merchantId)
    .select(
      db.raw('encrypted_authentication_token is not null as has_authentication_token'),
      db.raw('encrypted_secret_key is not null as has_secret_key'),
      'updated_at'
    )
    .first()
  return {
    hasAuthenticationToken: row?.has_authentication_token ?? false,
    hasSecretKey: row?.has_secret_key ?? false,
    updatedAt: row ? DateTime.fromJSDate(row.updated_at) : null,
  }
}

/**
 * The opening of a key mutation: the caller's current password (a wrong one is 422
 * and audited as a failure of `action`); the key's column and audit target.
 */
async function authorizeKeyMutation(
  actor: UserActor,
  keyType: IntegrationKeyType,
  action: string,
  currentPassword: string,
  signal: AbortSignal | undefined
) {
  const target = { type: 'integration_key', id: keyType }
  await requireCurrentPassword(actor, currentPassword, { action, target }, signal)
  return { column: COLUMN[keyType], target }
}

/** PUT /portal/merchant/integration-keys/{keyType}: sets (or replaces) one key. */
export async function putIntegrationKey(
  actor: UserActor,
  keyType: IntegrationKeyType,
  input: { value: string; current_password: string; reason: string },
  options: { signal?: AbortSignal } = {}
): Promise<IntegrationKeysView> {
  const action = AuditActions.integrationKeyPut
  const { column, target } = await authorizeKeyMutation(
    actor,
    keyType,
    action,
    input.current_password,
    options.signal
  )
  const encrypted = encryption.encrypt(
    input.value,
    undefined,
    integrationKeyPurpose(actor.merchantId, keyType)
  )
  return db.transaction(async (trx) => {
    // The merchant lock team mutations take, then the caller re-checked: a demotion
    // or removal that committed since authentication wins (403).
    await lockTeamAsAdministrator(trx, actor)
    const now = DateTime.now().toJSDate()
    const previous = await trx
      .from('merchant_integrations')
      .where('merchant_id', actor.merchantId)
      .forUpdate()
      .select(db.raw(`${column} is not null as present`))
      .first()
    // One statement whether or not the record exists yet: concurrent first writes
    // cannot both insert.
    await trx.rawQuery(
      `insert into merchant_integrations (merchant_id, ${column}, created_at, updated_at)
       values (?, ?, ?, ?)
       on conflict (merchant_id) do update set ${column} = excluded.${column}, updated_at = excluded.updated_at`,
      [actor.merchantId, encrypted, now, now]
    )
    await audit(trx, actor, {
      action,
      outcome: 'success',
      target,
      reason: input.reason,
      metadata: { replaced: previous?.present === true },
    })
    return integrationKeysPresence(actor, trx)
  })
}

/**
 * DELETE /portal/merchant/integration-keys/{keyType}: clears one key. Idempotent: no
 * record or no key is a success that changes nothing. The other key and every other
 * setting of the record stay as they are.
 */
export async function deleteIntegrationKey(
  actor: UserActor,
  keyType: IntegrationKeyType,
  input: { current_password: string; reason: string },
  options: { signal?: AbortSignal } = {}
): Promise<void> {
  const action = AuditActions.integrationKeyDelete
  const { column, target } = await authorizeKeyMutation(
    actor,
    keyType,
    action,
    input.current_password,
    options.signal
  )
  await db.transaction(async (trx) => {
    await lockTeamAsAdministrator(trx, actor)
    const cleared = await trx
      .from('merchant_integrations')
      .where('merchant_id', actor.merchantId)
      .whereNotNull(column)
      .update({ [column]: null, updated_at: DateTime.now().toJSDate() })
      .returning('id')
    await audit(trx, actor, {
      action,
      outcome: 'success',
      target,
      reason: input.reason,
      metadata: { removed: cleared.length > 0 },
    })
  })
}
