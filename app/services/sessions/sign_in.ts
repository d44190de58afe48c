/*
| Portal sign-in (portal-api.md › POST /auth/login, Authentication rule 1).
*/
import { normalizeIdentity } from '#support/identity'
import { randomBytes } from 'node:crypto'
import { DateTime } from 'luxon'
import hash from '@adonisjs/core/services/hash'
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

  const token = await User.accessTokens.issue(user, {
    abilities: [PORTAL_ABILITY],
    expiresInMinutes: patLifetimeMinutes(),
    portalClientId: input.application.id,
  })
  return {
    user,
    merchant,
    accessToken: token.value!.release(),
    expiresAt: DateTime.fromJSDate(token.expiresAt!).toUTC(),
  }
}
