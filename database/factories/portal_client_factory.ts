import factory from '@adonisjs/lucid/factories'
import hash from '@adonisjs/core/services/hash'
import PortalClient from '#models/portal_client'

export const TEST_PORTAL_CLIENT_SECRET = 'portal-client-test-secret'

export const PortalClientFactory = factory
  .define(PortalClient, async ({ faker }) => ({
    name: 'Merchant Portal',
    clientId: `pc_${faker.string.hexadecimal({ length: 24, casing: 'lower', prefix: '' })}`,
    secretHash: await hash.make(TEST_PORTAL_CLIENT_SECRET),
    allowedOrigins: ['https://portal.example.test'],
    isActive: true,
  }))
  .build()
