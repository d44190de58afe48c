import { UserSchema } from '#database/schema'
import hash from '@adonisjs/core/services/hash'
import { beforeCreate, beforeSave, belongsTo, column } from '@adonisjs/lucid/orm'
import type { BelongsTo } from '@adonisjs/lucid/types/relations'
import Merchant from '#models/merchant'
import { PortalAccessTokensProvider, type PortalAccessToken } from '#auth/portal_access_tokens'
import { newReferenceId } from '#support/reference_id'
import { normalizeIdentity } from '#support/identity'
import { ROLES, type RoleName } from '#models/team_vocabulary'

/** Portal roles (team_vocabulary.ts), where the user's role is read. */
export { ROLES, type RoleName }

export function roleName(role: number): RoleName | null {
  if (role === ROLES.administrator) return 'administrator'
  if (role === ROLES.developer) return 'developer'
  return null
}

/** Users whose `password` was set to a hash made beforehand (see withPasswordHash). */
const PREHASHED = new WeakSet<object>()

export default class User extends UserSchema {
  static accessTokens = PortalAccessTokensProvider.forModel(User)
  declare currentAccessToken?: PortalAccessToken

  // Email-change proofs and counters are never serialized (responses use transformers anyway).
  @column({ serializeAs: null })
  declare pendingEmailOtpHash: string | null

  @column({ serializeAs: null })
  declare pendingEmailProofHash: string | null

  @column({ serializeAs: null })
  declare pendingEmailFailedAttempts: number

  @belongsTo(() => Merchant)
  declare merchant: BelongsTo<typeof Merchant>

  get isPortalRole() {
    return roleName(this.role) !== null
  }

  @beforeCreate()
  static assignReferenceId(user: User) {
    user.referenceId ??= newReferenceId('usr')
  }

  /**
   * Sets a password hashed beforehand, so that the save does not hash: a caller hashes
   * before opening its transaction, never while holding locks.
   */
  withPasswordHash(passwordHash: string) {
    this.password = passwordHash
    PREHASHED.add(this)
    return this
  }

  /** Identities are stored normalized and compared as stored (app/support/identity.ts). */
  @beforeSave()
  static normalizeIdentities(user: User) {
    if (user.$dirty.username !== undefined) {
      user.usernameNormalized = normalizeIdentity(user.username)
    }
    if (user.$dirty.email !== undefined) user.email = normalizeIdentity(user.email)
    if (user.$dirty.pendingEmail && user.pendingEmail !== null) {
      user.pendingEmail = normalizeIdentity(user.pendingEmail)
    }
  }

  @beforeSave()
  static async hashPassword(user: User) {
    if (user.$dirty.password && !PREHASHED.delete(user)) {
      user.password = await hash.make(user.password)
    }
  }
}
