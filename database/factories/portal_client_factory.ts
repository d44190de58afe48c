import factory from '@adonisjs/lucid/factories'
import PortalClient from '#models/portal_client'
import { hashSecret } from '#auth/high_entropy_secrets'

export const TEST_PORTAL_CLIENT_SECRET = 'portal-client-test-secret'

export const PortalClientFactory = factory
  .define(PortalClient, ({ faker }) => ({
    name: 'Merchant Portal',
    clientId: `pc_${faker.string.hexadecimal({ length: 24, casing: 'lower', prefix: '' })}`,
    secretHash: hashSecret(TEST_PORTAL_CLIENT_SECRET),
    allowedOrigins: ['https://portal.example.test'],
    isActive: true,
  }))
  .build()
