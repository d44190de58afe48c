/*
| Operator-side creation of Portal users (user:create, demo:seed). Usernames and
| emails share one namespace (services/users/identity_availability.ts).
*/
import ApiError from '#exceptions/api_error'
import Merchant from '#models/merchant'
import User, { ROLES, type RoleName } from '#models/user'
import { identityTaken } from '#services/users/identity_availability'
import { normalizeIdentity } from '#support/identity'

export async function createUser(input: {
  merchantId: number | string
  email: string
  username?: string
  firstName: string
  lastName: string
  role: RoleName
  password: string
  isActive: boolean
}) {
  const merchant = await Merchant.find(input.merchantId)
  if (!merchant) throw ApiError.notFound(`Merchant ${input.merchantId} does not exist.`)
  const email = normalizeIdentity(input.email)
  const username = input.username ?? email
  for (const identity of new Set([email, normalizeIdentity(username)])) {
    if (await identityTaken(identity)) {
      throw ApiError.conflict('CONFLICT', `${identity} is already used by another account.`)
    }
  }
  return User.create({
    merchantId: merchant.id,
    email,
    username,
    firstName: input.firstName,
    lastName: input.lastName,
    role: ROLES[input.role],
    password: input.password,
    isActive: input.isActive,
  })
}
