import factory from '@adonisjs/lucid/factories'
import User, { ROLES } from '#models/user'

export const DEFAULT_TEST_PASSWORD = 'Correct-Horse-9-Battery'

export const UserFactory = factory
  .define(User, ({ faker }) => {
    const email = `${faker.string.alphanumeric(10).toLowerCase()}@example.test`
    return {
      username: email,
      email,
      password: DEFAULT_TEST_PASSWORD,
      firstName: faker.person.firstName().slice(0, 50),
      lastName: faker.person.lastName().slice(0, 50),
      role: ROLES.administrator,
      isActive: true,
      emailVerifiedAt: null,
    }
  })
  .state('developer', (user) => {
    user.role = ROLES.developer
  })
  .state('inactive', (user) => {
    user.isActive = false
  })
  .build()
