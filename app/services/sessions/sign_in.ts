/*
| Portal sign-in (portal-api.md › POST /auth/login, Authentication rule 1).
*/
import { normalizeIdentity } from '#support/identity'
import { randomBytes } from 'node:crypto'
import { DateTime } from 'luxon'
import hash from '@adonisjs/core/services/hash'
import db from '@adonisjs/lucid/services/db'
import env from '#start/env'
import ApiError from '#exceptions/api_error'
import Merchant from '#models/merchant'
import User, { roleName } from '#models/user'
import type PortalClient from '#models/portal_client'
import { PORTAL_ABILITY } from '#auth/portal_access_tokens'

export function patLifetimeMinutes() {
  const configured = env.get('PAT_TTL_MINUTES')
  return configured && configured > 0 ? Math.floor(configured) : 60
}

// Verifying against this when no account matches keeps response time flat.
let decoyHash: Promise<string> | undefined

/** The account a login identity names: its username or its email, compared normalized. */
export function findByLoginIdentity(identity: string) {
  const normalized = normalizeIdentity(identity)
  return User.query()
    .where('username_normalized', normalized)
    .orWhere('email', normalized)
    .orderByRaw('(username_normalized = ?) desc', [normalized])
    .first()
}

export async function signIn(input: {
  username: string
  password: string
  application: PortalClient
}) {
  const user = await findByLoginIdentity(input.username)
  if (!user) {
    decoyHash ??= hash.make(randomBytes(16).toString('hex'))
    await hash.verify(await decoyHash, input.password)
    throw new ApiError(401, 'INVALID_CREDENTIALS', 'The username or password is incorrect.')
  }
  if (!(await hash.verify(user.password, input.password))) {
    throw new ApiError(401, 'INVALID_CREDENTIALS', 'The username or password is incorrect.')
  }

  const merchant = user.merchantId ? await Merchant.find(user.merchantId) : null
  if (!user.isActive || !roleName(user.role) || !merchant || !merchant.isActive) {
    throw new ApiError(403, 'MERCHANT_USER_NOT_AUTHORIZED', 'This account cannot use the Portal.')
  }

  // The password was verified without any lock (a scrypt). A password change or reset
  // may have committed since, revoking every token: the PAT is issued in a transaction
  // that re-reads the user row FOR SHARE and finds the verified hash still in place, so
  // a change either commits first (and this login fails) or waits for this commit (and
  // then revokes the PAT issued here). Issue 9 › 7.
  const verifiedHash = user.password
  const token = await db.transaction(async (trx) => {
    const current = await trx
      .from('users')
      .where('id', user.id)
      .forShare()
      .select('password', 'is_active', 'merchant_id', 'role')
      .first()
    if (!current || current.password !== verifiedHash) {
      throw new ApiError(401, 'INVALID_CREDENTIALS', 'The username or password is incorrect.')
    }
    // Removal and role changes revoke tokens too: judged on the same locked row.
    if (
      !current.is_active ||
      current.merchant_id !== user.merchantId ||
      current.role !== user.role
    ) {
      throw new ApiError(403, 'MERCHANT_USER_NOT_AUTHORIZED', 'This account cannot use the Portal.')
    }
    return User.accessTokens.issue(user, {
      abilities: [PORTAL_ABILITY],
      expiresInMinutes: patLifetimeMinutes(),
      portalClientId: input.application.id,
      client: trx,
    })
  })
  return {
    user,
    merchant,
    accessToken: token.value!.release(),
    expiresAt: DateTime.fromJSDate(token.expiresAt!).toUTC(),
  }
}
