/*
| The one way tests build a merchant with its members and tokens: a Portal
| application, `signedInMember` (merchant, client and a signed-in member),
| `teammate` (more members of that merchant, each with a PAT),
| `createMerchantWithUser` (a member without a PAT) and `issuePat`.
*/
import { MerchantFactory } from '#database/factories/merchant_factory'
import { UserFactory, DEFAULT_TEST_PASSWORD } from '#database/factories/user_factory'
import {
  PortalClientFactory,
  TEST_PORTAL_CLIENT_SECRET,
} from '#database/factories/portal_client_factory'
import type PortalClient from '#models/portal_client'
import type User from '#models/user'
import type Merchant from '#models/merchant'
import { PORTAL_ABILITY } from '#auth/portal_access_tokens'
import UserModel from '#models/user'

export const PORTAL_ORIGIN = 'https://portal.example.test'

export function basicAuthorization(clientId: string, secret: string) {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`
}

export function appHeaders(client: PortalClient, secret = TEST_PORTAL_CLIENT_SECRET) {
  return {
    'Authorization': basicAuthorization(client.clientId, secret),
    'X-Service-Application': 'merchant_portal',
  }
}

export async function createPortalClient(overrides: Partial<PortalClient> = {}) {
  return PortalClientFactory.merge(overrides).create()
}

export async function createMerchantWithUser(
  options: {
    role?: 'administrator' | 'developer'
    merchant?: Merchant
    overrides?: Partial<User>
  } = {}
) {
  const merchant = options.merchant ?? (await MerchantFactory.create())
  const factory = options.role === 'developer' ? UserFactory.apply('developer') : UserFactory
  const user = await factory.merge({ merchantId: merchant.id, ...options.overrides }).create()
  return { merchant, user, password: DEFAULT_TEST_PASSWORD }
}

/** Issues a PAT directly (the login endpoint has its own tests). */
export async function issuePat(
  user: User,
  client: PortalClient,
  options: { abilities?: string[]; minutes?: number } = {}
) {
  const token = await UserModel.accessTokens.issue(user, {
    abilities: options.abilities ?? [PORTAL_ABILITY],
    expiresInMinutes: options.minutes ?? 60,
    portalClientId: client.id,
  })
  return token.value!.release()
}

/** A user of `merchant` with `role` (and any column `overrides`), and a PAT from `client`. */
async function addMember(
  merchant: Merchant,
  client: PortalClient,
  role: 'administrator' | 'developer',
  overrides: Partial<User> = {}
) {
  const { user, password } = await createMerchantWithUser({ role, merchant, overrides })
  const pat = await issuePat(user, client)
  return { user, password, pat, bearer: `Bearer ${pat}` }
}

/** A merchant with one member of `role`, a Portal client, and a PAT for that member. */
export async function signedInMember(role: 'administrator' | 'developer' = 'administrator') {
  const client = await createPortalClient()
  const merchant = await MerchantFactory.create()
  return { client, merchant, ...(await addMember(merchant, client, role)) }
}

export type Session = Awaited<ReturnType<typeof signedInMember>>

/**
 * The one way to add a signed-in member: another user of the session's merchant with
 * `role` (and any column `overrides`), with a PAT from the same Portal client.
 */
export async function teammate(
  session: Pick<Session, 'merchant' | 'client'>,
  role: 'administrator' | 'developer',
  overrides: Partial<User> = {}
) {
  return { ...session, ...(await addMember(session.merchant, session.client, role, overrides)) }
}
