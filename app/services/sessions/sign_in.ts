/*
| Portal sign-in (portal-api.md › POST /auth/login, Authentication rule 1).
*/
import { normalizeIdentity } from '#support/identity'
import { DateTime } from 'luxon'
import { decoyPasswordHash, loginHashingPlace, verifyPassword } from '#auth/password_hashing'
import { hydrate } from '#platform/hydrate'
import settings from '#config/settings'
import { directQuery } from '#platform/direct_query'
import ApiError from '#exceptions/api_error'
import Merchant from '#models/merchant'
import User, { roleName } from '#models/user'
import type PortalClient from '#models/portal_client'
import { PORTAL_ABILITY } from '#auth/portal_access_tokens'

export function patLifetimeMinutes() {
  const configured = settings.patTtlMinutes()
  return configured && configured > 0 ? Math.floor(configured) : 60
}

/**
 * The account a login identity names: its username or its email, compared normalized.
 * One prepared statement and a shallow hydration: the query builder's building and
 * hydration ran on the main thread while the pool threads hashed, and a login's own
 * CPU is what it loses against a bare scrypt (bench/README.md › hot_paths.ts).
 */
export async function findByLoginIdentity(identity: string) {
  const [row] = await directQuery(
    'users:by-login-identity',
    `select * from users where username_normalized = $1 or email = $1
      order by (username_normalized = $1) desc limit 1`,
    [normalizeIdentity(identity)]
  )
  return row ? hydrate(User, row) : null
}

/**
 * Signs in. The password check waits in the line of the submitted identity, whether
 * or not an account has it (#auth/password_hashing); `signal` aborts when the caller
 * has gone, and a check still waiting is then dropped.
 */
export async function signIn(
  input: { username: string; password: string; application: PortalClient },
  options: { signal?: AbortSignal } = {}
) {
  const place = loginHashingPlace(input.username, options.signal)
  const user = await findByLoginIdentity(input.username)
  if (!user) {
    // A decoy costs the same hash as an account's, so time never tells that none matched.
    await verifyPassword(decoyPasswordHash(), input.password, place)
    throw new ApiError('INVALID_CREDENTIALS', 'The username or password is incorrect.')
  }
  if (!(await verifyPassword(user.password, input.password, place))) {
    throw new ApiError('INVALID_CREDENTIALS', 'The username or password is incorrect.')
  }

  const role = roleName(user.role)
  if (!user.isActive || !role || !user.merchantId) {
    throw new ApiError('MERCHANT_USER_NOT_AUTHORIZED', 'This account cannot use the Portal.')
  }

  // The password was verified without any lock (a scrypt). A password change or reset
  // may have committed since, revoking every token: the PAT is issued by one statement
  // that re-reads the user row FOR SHARE and inserts only if the verified hash is still
  // in place, so a change either commits first (and this login fails) or waits for
  // this statement (and then revokes the PAT issued here). Removal and
  // role changes are judged on the same locked row, the merchant in the same statement.
  const issued = await User.accessTokens.issueOnLogin(
    { id: user.id, merchantId: user.merchantId, role: user.role, verifiedHash: user.password },
    {
      abilities: [PORTAL_ABILITY],
      expiresInMinutes: patLifetimeMinutes(),
      portalClientId: input.application.id,
    },
    { user: User, merchant: Merchant }
  )
  // A user row gone since the lookup is a failed sign-in, as before.
  if (!issued.current) {
    throw new ApiError('INVALID_CREDENTIALS', 'The username or password is incorrect.')
  }
  if (!issued.merchant || !issued.merchant.is_active) {
    throw new ApiError('MERCHANT_USER_NOT_AUTHORIZED', 'This account cannot use the Portal.')
  }
  if (!issued.current.passwordUnchanged) {
    throw new ApiError('INVALID_CREDENTIALS', 'The username or password is incorrect.')
  }
  if (!issued.token) {
    throw new ApiError('MERCHANT_USER_NOT_AUTHORIZED', 'This account cannot use the Portal.')
  }
  const token = issued.token
  const merchant = hydrate(Merchant, issued.merchant)
  return {
    user,
    merchant,
    accessToken: token.value!.release(),
    expiresAt: DateTime.fromJSDate(token.expiresAt!).toUTC(),
  }
}
