import factory from '@adonisjs/lucid/factories'
import Merchant from '#models/merchant'

export const MerchantFactory = factory
  .define(Merchant, ({ faker }) => ({
    name: faker.company.name().slice(0, 150),
    contactPerson: faker.person.fullName().slice(0, 100),
    email: faker.internet.email().toLowerCase(),
    dialCode: '+63',
    phone: '9171234567',
    address: faker.location.streetAddress(),
    website: null,
    currency: 'PHP',
    isActive: true,
    isProduction: false,
  }))
  .state('inactive', (merchant) => {
    merchant.isActive = false
  })
  .build()
