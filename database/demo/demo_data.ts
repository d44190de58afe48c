/*
| Demo data for a newcomer, loaded by the demo seeder (database/seeders/demo_seeder.ts,
| `node ace db:seed`), by `node ace demo:seed` and by the first `npm run dev` on the
| embedded database: a merchant with an administrator and a developer, and a Portal
| client, and a year of collection transactions with their evidence
| (demo_collections.ts, created once). Re-running it keeps the same records and
| issues fresh passwords and a fresh client secret, printed once (only hashes are
| stored). It lives under database/, not app/services: it is data, not an operation.
*/
import { randomBytes } from 'node:crypto'
import { generateSecret, hashSecret } from '#auth/high_entropy_secrets'
import db from '@adonisjs/lucid/services/db'
import Merchant from '#models/merchant'
import PortalClient from '#models/portal_client'
import User, { ROLES, type RoleName } from '#models/user'
import { assignService } from '#services/merchants/create_merchant'
import { seedDemoMerchantProfile } from '#database/demo/demo_merchant_profile'
import { seedDemoCollections } from '#database/demo/demo_collections'

const DEMO_MERCHANT_EMAIL = 'payments@demo-merchant.test'
const DEMO_PORTAL_CLIENT = 'Demo Merchant Portal'
const DEMO_ORIGINS = ['http://localhost:5173', 'http://localhost:3000']

/** Passwords that satisfy the policy (upper, lower, digit, symbol, 12+). */
function demoPassword() {
  return `Demo-${randomBytes(9).toString('base64url')}-7a`
}

async function upsertDemoUser(
  merchant: Merchant,
  username: string,
  role: RoleName,
  names: [string, string]
) {
  const password = demoPassword()
  const existing = await User.findBy('username', username)
  const user = existing ?? new User()
  user.merge({
    merchantId: merchant.id,
    username,
    email: username,
    firstName: names[0],
    lastName: names[1],
    role: ROLES[role],
    isActive: true,
    password,
  })
  await user.save()
  return { user, password }
}

export async function seedDemoData() {
  const merchant =
    (await Merchant.findBy('email', DEMO_MERCHANT_EMAIL)) ??
    (await Merchant.create({
      name: 'Demo Merchant',
      contactPerson: 'Dana Demo',
      email: DEMO_MERCHANT_EMAIL,
      dialCode: '+63',
      phone: '9170000000',
      address: '1 Demo Street, Manila',
      website: 'https://demo-merchant.test',
      currency: 'PHP',
      isActive: true,
      isProduction: false,
    }))
  await assignService({
    merchantId: merchant.id,
    code: 'gcash',
    type: 'ewallet',
    isActive: true,
    isProduction: false,
  })
  await seedDemoMerchantProfile(merchant.id)

  const administrator = await upsertDemoUser(
    merchant,
    'admin@demo-merchant.test',
    'administrator',
    ['Ada', 'Admin']
  )
  const developer = await upsertDemoUser(merchant, 'developer@demo-merchant.test', 'developer', [
    'Dev',
    'Eloper',
  ])

  const clientSecret = generateSecret()
  const existingClient = await PortalClient.findBy('name', DEMO_PORTAL_CLIENT)
  const client = existingClient ?? new PortalClient()
  client.merge({
    name: DEMO_PORTAL_CLIENT,
    clientId: existingClient?.clientId ?? `pc_demo_${randomBytes(8).toString('hex')}`,
    secretHash: hashSecret(clientSecret),
    allowedOrigins: DEMO_ORIGINS,
    isActive: true,
  })
  await client.save()

  const collections = await seedDemoCollections(merchant.id)

  return {
    merchant: { id: merchant.id, reference_id: merchant.referenceId, name: merchant.name },
    administrator: { username: administrator.user.username, password: administrator.password },
    developer: { username: developer.user.username, password: developer.password },
    portal_client: {
      client_id: client.clientId,
      client_secret: clientSecret,
      origins: DEMO_ORIGINS,
    },
    collections,
  }
}

export async function hasAnyMerchant() {
  const row = await db.from('merchants').count('* as total').first()
  return Number(row?.total ?? 0) > 0
}
